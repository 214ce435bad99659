"""Compiled (numba) Ataxx core: move generation, perft, evaluation and the search of ``games.ai.ataxx``.

Boards are 49-bit masks in uint64 from the mover's point of view, ``(me, opp)``.
A move is coded ``from * 64 + to`` (``from == to`` for a clone).

The search (``search``, one call per move, iterative deepening inside):

* negamax with principal variation search, aspiration windows from the fourth
  iteration on, and a transposition table keyed by both masks (entries tagged
  with a generation, so each search starts afresh);
* move ordering: the table move, then by material gained (each capture counts
  two, a clone one more), killer moves and a history table breaking ties;
* selectivity at nodes off the principal variation (argument ``selective``): null move
  pruning, jumps that capture little are not searched near the horizon (most
  jumps are bad: they leave a hole), late move reductions for the rest;
* the evaluation (``evaluate``): material, plus part of the mover's best
  immediate gain (the tempo), minus pieces next to an empty square (they can be
  taken), plus pieces on the edge (fewer neighbours, harder to take). The
  weights, ``PARAMS``, are first guesses, not tuned yet (one array, so that a
  tuning run can pass others to ``Searcher``).

``search`` with ``selective=False`` is a plain alpha-beta (PVS, table and all)
on the same evaluation: the tests check its values against a pure-Python
minimax, and the move generator against the rules engine.

``stats``: [nodes, timed out, a line stopped at the horizon or was pruned,
node count of the next look at the clock].

The core is three modules. This one is what ``games.ai.ataxx`` loads
(``load_core("_ataxx_fast")``): the root's iterative deepening (``search``)
and ``Searcher``, which keeps the table and scratch arrays per process; it
re-exports what the players, tests and benchmarks use from
``_ataxx_fast_moves`` (the board, ``generate``, ``play``, ``perft``) and
``_ataxx_fast_negamax`` (constants, ``evaluate``, ``negamax``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numba import njit

from games.ai._ataxx_fast_moves import generate, perft, play
from games.ai._ataxx_fast_negamax import (
    ASPIRATION,
    INF,
    MATE_BOUND,
    MAX_MOVES,
    MAX_PLY,
    PARAMS,
    WIN,
    evaluate,
    negamax,
)
from games.ai._bits import LOCK, U, clock

__all__ = [
    "LOCK",
    "MATE_BOUND",
    "MAX_MOVES",
    "MAX_PLY",
    "PARAMS",
    "WIN",
    "Searcher",
    "U",
    "evaluate",
    "generate",
    "negamax",
    "perft",
    "play",
    "search",
]


@njit(
    "void(uint64, uint64, int64[::1], int64, float64, float64, boolean, int64[::1], uint64[::1],"
    " uint64[::1], int32[:, ::1], int64, int64[:, ::1], int64[:, ::1], int64[::1], int64[:, ::1], int64[::1],"
    " int64[::1])",
    cache=True,
)
def search(  # type: ignore[no-untyped-def]
    me,
    opp,
    root,
    max_depth,
    soft_stop,
    deadline,
    selective,
    stats,
    keys_me,
    keys_opp,
    info,
    generation,
    buf_move,
    buf_key,
    history,
    killers,
    params,
    out,
):
    """Iterative deepening over the root moves ``root`` (codes, best-looking first; reordered in place).

    No new iteration starts after ``soft_stop``; the search stops at ``deadline``. An
    iteration cut short still counts as far as it went: its first move (the last best) had
    the full window, a later one that beat it was searched again with the full window.
    Writes ``out`` = [best move, its value, depth completed, exact (1/0)].
    """
    yes = stats[0] >= 0  # see negamax
    n = root.shape[0]
    best = root[0]
    best_value = 0
    out[0] = best
    out[1] = 0
    out[2] = 0
    out[3] = 0
    history[:] = 0  # the same search for the same position, whatever came before
    for ply in range(killers.shape[0]):
        killers[ply, 0] = -1
        killers[ply, 1] = -1
    for depth in range(1, max_depth + 1):
        stats[2] = 0
        window = ASPIRATION if depth >= 4 and abs(best_value) < MATE_BOUND else INF
        lower = max(best_value - window, -INF)
        upper = min(best_value + window, INF)
        completed = False
        while True:
            alpha = lower
            value_here = -INF
            move_here = -1
            for i in range(n):
                code = root[i]
                theirs, mine = play(me, opp, code)
                if i == 0:
                    value = -negamax(
                        theirs, mine, depth - 1, -upper, -alpha, 1, yes, selective, stats, keys_me, keys_opp,
                        info, generation, deadline, buf_move, buf_key, history, killers, params,
                    )  # fmt: skip
                else:
                    value = -negamax(
                        theirs, mine, depth - 1, -alpha - 1, -alpha, 1, yes, selective, stats, keys_me,
                        keys_opp, info, generation, deadline, buf_move, buf_key, history, killers, params,
                    )  # fmt: skip
                    if value > alpha and value < upper and not stats[1]:
                        value = -negamax(
                            theirs, mine, depth - 1, -upper, -alpha, 1, yes, selective, stats, keys_me,
                            keys_opp, info, generation, deadline, buf_move, buf_key, history, killers, params,
                        )  # fmt: skip
                if stats[1]:
                    break
                if value > value_here:
                    value_here = value
                    if value > alpha:
                        move_here = code
                        # Move it to the front: the next search (or the next iteration) starts with it.
                        for j in range(i, 0, -1):
                            root[j] = root[j - 1]
                        root[0] = code
                        if value > lower:
                            # Beat the window's floor with a full search: a real best so far.
                            best = code
                            out[0] = best
                        alpha = value
                        if alpha >= upper:
                            break
            if stats[1]:
                break
            if value_here <= lower and lower > -INF:
                lower = max(value_here - 4 * window, -INF) if value_here > -MATE_BOUND else -INF
                window *= 4
                continue
            if value_here >= upper and upper < INF:
                upper = min(value_here + 4 * window, INF) if value_here < MATE_BOUND else INF
                window *= 4
                continue
            completed = True
            best_value = value_here
            if move_here >= 0:
                best = move_here
            break
        if not completed:
            break
        out[0] = best
        out[1] = best_value
        out[2] = depth
        if not stats[2]:
            out[3] = 1
            break  # exact: every line reached the end of the game, nothing pruned
        if clock() > soft_stop:
            break


class Searcher:
    """One search's view of the process-wide table (a new generation) and its scratch arrays."""

    _keys_me: np.ndarray | None = None
    # Set together with ``_keys_me`` by the first search of the process.
    _keys_opp: ClassVar[np.ndarray]
    _info: ClassVar[np.ndarray]
    _buf_move: ClassVar[np.ndarray]
    _buf_key: ClassVar[np.ndarray]
    _history: ClassVar[np.ndarray]
    _killers: ClassVar[np.ndarray]
    _generation: ClassVar[int]

    def __init__(self, deadline: float, *, selective: bool = True, params: np.ndarray | None = None) -> None:
        cls = type(self)
        if cls._keys_me is None:
            size = 1 << 19
            cls._keys_me = np.zeros(size, np.uint64)
            cls._keys_opp = np.zeros(size, np.uint64)
            cls._info = np.zeros((size, 5), np.int32)
            cls._buf_move = np.zeros((MAX_PLY, MAX_MOVES), np.int64)
            cls._buf_key = np.zeros((MAX_PLY, MAX_MOVES), np.int64)
            cls._history = np.zeros(64 * 64, np.int64)
            cls._killers = np.zeros((MAX_PLY, 2), np.int64)
            cls._generation = 0
        self.deadline = deadline
        self.selective = selective
        self.params = PARAMS if params is None else params
        self.stats = np.zeros(4, np.int64)
        self.depth_reached = 0
        self.exact = False
        self.value = 0

    def best_move(self, me: int, opp: int, codes: list[int], max_depth: int, soft_stop: float) -> int:
        """The chosen move code (``codes`` best-looking first, not empty)."""
        cls = type(self)
        root = np.array(codes, dtype=np.int64)
        out = np.zeros(4, np.int64)
        with LOCK:
            cls._generation += 1
            if cls._generation >= 2**31 - 1:
                cls._info[:, 0] = 0
                cls._generation = 1
            search(
                U(me),
                U(opp),
                root,
                max_depth,
                soft_stop,
                self.deadline,
                self.selective,
                self.stats,
                cls._keys_me,
                cls._keys_opp,
                cls._info,
                cls._generation,
                cls._buf_move,
                cls._buf_key,
                cls._history,
                cls._killers,
                self.params,
                out,
            )
        self.depth_reached = int(out[2])
        self.value = int(out[1])
        self.exact = bool(out[3])
        return int(out[0])

    @property
    def nodes(self) -> int:
        return int(self.stats[0])
