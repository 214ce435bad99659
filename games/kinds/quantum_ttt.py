"""Quantum Tic-Tac-Toe: the site's entry for the game (games/kinds/__init__.py says what each field is for)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.engines import quantum_ttt as rules
from games.kinds import GameKind, register

KIND = register(
    GameKind(
        slug="quantum_ttt",
        engine=rules.ENGINE,
        player="games.ai.quantum_ttt",
        analysis_hooks="games.ai.analysis.quantum_ttt",
        order=rules.ORDER,
        name=_("Quantum Tic-Tac-Toe"),
        blurb=_("Every move is in two places at once, until a cycle forces a choice."),
        sides=("X", "O"),
        rules_template="games/rules/quantum_ttt.html",
        renderer="js/play/quantum_ttt.js",
    )
)
