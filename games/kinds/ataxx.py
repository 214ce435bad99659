"""Ataxx: the site's entry for the game (games/kinds/__init__.py says what each field is for)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.engines import ataxx as rules
from games.kinds import GameKind, register

KIND = register(
    GameKind(
        slug="ataxx",
        engine=rules.ENGINE,
        player="games.ai.ataxx",
        analysis_hooks="games.ai.analysis.ataxx",
        order=rules.ORDER,
        name=_("Ataxx"),
        blurb=_("Clone or jump, and convert every enemy piece you land next to."),
        sides=(_("Black"), _("White")),
        rules_template="games/rules/ataxx.html",
        renderer="js/play/ataxx.js",
    )
)
