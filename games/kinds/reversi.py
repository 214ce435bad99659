"""Reversi: the site's entry for the game (games/kinds/__init__.py says what each field is for)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.engines import reversi as rules
from games.kinds import GameKind, register

KIND = register(
    GameKind(
        slug="reversi",
        engine=rules.ENGINE,
        player="games.ai.reversi",
        analysis_hooks="games.ai.analysis.reversi",
        order=rules.ORDER,
        name=_("Reversi"),
        blurb=_("Trap your opponent's discs between yours and turn them over."),
        sides=(_("Black"), _("White")),
        rules_template="games/rules/reversi.html",
        renderer="js/play/reversi.js",
    )
)
