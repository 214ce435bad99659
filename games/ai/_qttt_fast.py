"""Compiled (numba) Quantum Tic-Tac-Toe core: the rules and the alpha-beta search of ``games.ai.quantum_ttt``.

The same search as ``games.ai.quantum_ttt_search.Searcher`` (the pure-Python fallback
and reference): iterative deepening of a principal variation search with a
transposition table whose entries know whether their subtree was solved to the
end of the game, move ordering from the table, a history of cut-off moves and
square weights, one move per symmetry class in symmetric positions, and the
same evaluation. Collapse choices cost no depth and a turn that does not pass
to the opponent is not negated. Left out: the last ply's shortcut (scoring
quiet pairs without playing them), which only saves time in Python.

A position is one int64[32] array:

* ``s[1..9]``: the move number of the classical mark in squares 1..9, or 0;
* ``s[10 + m]``, ``s[20 + m]``: the squares a < b of mark ``m`` while it is
  spooky, else 0;
* ``s[MOVE]``: the number of the next normal move (1..10);
* ``s[PENDING]``: the move number whose collapse waits for the chooser, else 0.

A move is an int: ``10 * a + b`` for the pair ``a-b``, ``100 + n`` for the
collapse choice ``@n``, ``n`` for X's ninth plain move ``n``.

The core is three modules. This one is what ``games.ai.quantum_ttt`` loads
(``load_core("_qttt_fast")``): the conversions between engine states and
arrays, the table kept per process and ``search``; it re-exports what the
players, tests and benchmarks use from ``_qttt_fast_moves`` (the layout, the
rules, ``perft``) and ``_qttt_fast_search`` (``evaluate``, ``negamax``,
``deepen``).
"""

from __future__ import annotations

import numpy as np

from games.ai._bits import LOCK
from games.ai._qttt_fast_moves import (
    CHOICE,
    DRAW,
    MOVE,
    O_WINS,
    PENDING,
    RUNNING,
    STATE_SIZE,
    X_WINS,
    A,
    B,
    moves,
    outcome,
    perft,
    play,
    to_move,
)
from games.ai._qttt_fast_search import CTX_SIZE, NODES, WIN, deepen, evaluate, negamax, position_key
from games.engines.quantum_ttt import QState

__all__ = [
    "DRAW",
    "LOCK",
    "O_WINS",
    "RUNNING",
    "WIN",
    "X_WINS",
    "Table",
    "code_of",
    "deepen",
    "evaluate",
    "moves",
    "negamax",
    "outcome",
    "perft",
    "play",
    "position_key",
    "search",
    "state_array",
    "to_move",
    "to_state",
    "token",
]


# ---------------------------------------------------------------------------
# Conversions


def state_array(state: QState) -> np.ndarray:
    """The int64[32] form of an engine state."""
    s = np.zeros(STATE_SIZE, np.int64)
    for sq in range(1, 10):
        s[sq] = state.classical[sq - 1]
    for m, a, b in state.spooky:
        s[A + m], s[B + m] = a, b
    s[MOVE], s[PENDING] = state.move, state.pending
    return s


def to_state(s: np.ndarray) -> QState:
    """The engine state of an int64[32] position."""
    classical = tuple(int(s[sq]) for sq in range(1, 10))
    spooky = tuple((m, int(s[A + m]), int(s[B + m])) for m in range(1, 10) if s[A + m])
    return QState(classical, spooky, int(s[MOVE]), int(s[PENDING]))


def token(code: int) -> str:
    """The engine's token of a move code."""
    if code >= CHOICE:
        return f"@{code - CHOICE}"
    if code >= 10:
        return f"{code // 10}-{code % 10}"
    return str(code)


def code_of(move: str) -> int:
    """The move code of an engine token."""
    if move.startswith("@"):
        return CHOICE + int(move[1:])
    if "-" in move:
        return 10 * int(move[0]) + int(move[2])
    return int(move)


class Table:
    """The transposition table, allocated once per process (20 MB).

    Half a million entries: a Hard search (0.25 s) visits a few hundred thousand
    positions, and the game is solved from its third move well within that.
    """

    bits = 19
    _arrays: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def arrays(cls) -> tuple[np.ndarray, np.ndarray]:
        if cls._arrays is None:
            cls._arrays = (np.zeros(1 << cls.bits, np.uint64), np.zeros((1 << cls.bits, 4), np.int64))
        return cls._arrays


def search(
    state: QState, order: dict[str, float], max_depth: int, deadline: float
) -> tuple[str, int, int, int]:
    """(move, value, depth reached, nodes) for the side to move; ``order`` ranks move tokens (lower first)."""
    s = state_array(state)
    order_array = np.zeros(110, np.float64)
    for move, key in order.items():
        order_array[code_of(move)] = key
    ctx = np.zeros(CTX_SIZE, np.int64)
    result = np.zeros(3, np.int64)
    with LOCK:
        tt_key, tt_data = Table.arrays()
        tt_key[:] = 0  # a fresh table per search, as the Python one
        deepen(s, max_depth, tt_key, tt_data, ctx, order_array, deadline, result)
    return token(int(result[0])), int(result[1]), int(result[2]), int(ctx[NODES])
