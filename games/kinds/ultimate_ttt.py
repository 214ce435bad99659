"""Ultimate Tic-Tac-Toe: the site's entry for the game (games/kinds/__init__.py says what each field is for)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.engines import ultimate_ttt as rules
from games.kinds import GameKind, register

KIND = register(
    GameKind(
        slug="ultimate_ttt",
        engine=rules.ENGINE,
        player="games.ai.ultimate_ttt",
        analysis_hooks="games.ai.analysis.ultimate_ttt",
        order=rules.ORDER,
        name=_("Ultimate Tic-Tac-Toe"),
        blurb=_("Nine small games in one: where you play decides where your opponent must play."),
        sides=("X", "O"),
        rules_template="games/rules/ultimate_ttt.html",
        renderer="js/play/ultimate_ttt.js",
        first_by_default=True,
    )
)
