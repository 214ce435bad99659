"""Pure-Python rules engines for the site's five games.

>>> from games.engines import get
>>> eng = get("reversi")
>>> s = eng.play(eng.initial(), "d3")
>>> eng.to_move(s)
1
"""

from __future__ import annotations

from games.engines.ataxx import AtaxxEngine
from games.engines.base import Engine, IllegalMove, InvalidPosition, Outcome, OutcomeReason, perft, replay
from games.engines.four_tac_toe import FourTacToeEngine
from games.engines.quantum_ttt import QuantumTTTEngine
from games.engines.reversi import ReversiEngine
from games.engines.ultimate_ttt import UltimateTTTEngine

ENGINES: dict[str, Engine] = {
    engine.slug: engine
    for engine in (
        ReversiEngine(),
        AtaxxEngine(),
        UltimateTTTEngine(),
        QuantumTTTEngine(),
        FourTacToeEngine(),
    )
}


def get(slug: str) -> Engine:
    """The engine for ``slug``; KeyError for an unknown game."""
    return ENGINES[slug]


__all__ = [
    "ENGINES",
    "Engine",
    "IllegalMove",
    "InvalidPosition",
    "Outcome",
    "OutcomeReason",
    "get",
    "perft",
    "replay",
]
