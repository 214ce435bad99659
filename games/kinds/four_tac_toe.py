"""Four Tac Toe: the site's entry for the game (games/kinds/__init__.py says what each field is for)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.engines import four_tac_toe as rules
from games.kinds import GameKind, register

KIND = register(
    GameKind(
        slug="four_tac_toe",
        engine=rules.ENGINE,
        player="games.ai.four_tac_toe",
        analysis_hooks="games.ai.analysis.four_tac_toe",
        order=rules.ORDER,
        name=_("Four Tac Toe"),
        blurb=_("Tic-tac-toe in four dimensions: score every line of three you complete."),
        sides=("X", "O"),
        rules_template="games/rules/four_tac_toe.html",
        renderer="js/play/four_tac_toe.js",
        # The scoring lines (line k of the position's ``live`` is entry k): the board draws them,
        # and the screen reader's "lines" command reads them out.
        board_data=lambda: {"lines": rules.lines_table()},
    )
)
