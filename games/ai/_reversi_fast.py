"""Compiled (numba) Reversi core: move generation, evaluations, midgame search and endgame solver.

The same algorithms as the pure-Python code in :mod:`games.ai.reversi` (which
stays the fallback and the reference), on uint64 bitboards in nopython mode:

* ``legal(own, opp)`` / ``flips(own, opp, sq)``: as ``games.engines.reversi``'s
  ``legal_mask`` / ``flips``; tests compare them on random games and by perft.
* ``evaluate_pattern``: Hard's learned evaluation, on the weights that
  ``pattern_array()`` reads from the same file as the Python code; a test
  compares the two on random positions.
* ``mid_search``: negamax principal variation search to a fixed depth with a
  transposition table (entries tagged with a generation, so every search starts
  afresh and a seed gives the same move again), the table move first, then
  fastest-first ordering (fewest replies) near the root and square-value
  order near the leaves; with a ``selectivity`` above 0 (Hard's player only),
  ProbCut at null-window nodes.
* ``end_solve``: exact endgame negamax with a transposition table of bounds
  above 10 empties, the table move first, then (from 15 empties) a shallow
  search on the learned evaluation or (below) fastest-first ordering,
  principal variation search, a stability cut-off; from 10 empties down a
  null-window search without the table, and for the last few empties a
  parity-ordered loop. The pure-Python solver is simpler (no stability cut-off,
  no evaluation ordering) and gives the same scores; tests compare them.

Both check the clock every few thousand nodes and give up at ``deadline`` (a
``time.perf_counter()`` value) by setting ``stats[1]``; the caller then throws
the result away. ``stats[0]`` counts nodes; ``stats[2]`` holds the best square
of the outermost call (-1 for a pass or a finished game); ``stats[3]`` is the
node count at which to look at the clock next.

The core is six modules. This one is what ``games.ai.reversi`` loads
(``load_core("_reversi_fast")``): the Python-facing wrappers (``solve``,
``MidSearch``, the tables kept per process, the learned weights as an array),
and the compiled functions the players, tests and benchmarks call, from:

* ``_reversi_fast_moves``: masks, rays, square tables, ``legal``, ``flips``,
  ``perft``, the transposition tables' slot;
* ``_reversi_fast_eval``: the evaluations;
* ``_reversi_fast_mid``: ``mid_search``;
* ``_reversi_fast_shallow``: the endgame's last empties, stable discs, move ordering;
* ``_reversi_fast_end``: ``end_solve``.

numba's cache checks only the file a compiled function is in, not the files of
the functions it calls: ``games.ai.default_numba_cache_dir`` is keyed by the
sources of all the cores, so that an edit to any part compiles afresh.
"""

from __future__ import annotations

import numpy as np

from games.ai import _reversi_tables as _tables
from games.ai._bits import LOCK, U
from games.ai._reversi_fast_end import end_solve
from games.ai._reversi_fast_eval import (
    evaluate,
    evaluate_hard,
    evaluate_medium,
    evaluate_pattern,
    final_score,
    terminal_value,
)
from games.ai._reversi_fast_mid import mid_search
from games.ai._reversi_fast_moves import INF, WIN, flips, legal, neighbours, new_table, perft
from games.ai._reversi_fast_shallow import SHALLOW, _enter_shallow, stable_discs

__all__ = [
    "INF",
    "LOCK",
    "SHALLOW",
    "WIN",
    "MidSearch",
    "Tables",
    "U",
    "end_solve",
    "end_tables",
    "evaluate",
    "evaluate_hard",
    "evaluate_learned",
    "evaluate_medium",
    "evaluate_pattern",
    "final_score",
    "flips",
    "legal",
    "mid_search",
    "mid_tables",
    "neighbours",
    "new_table",
    "pattern_array",
    "perft",
    "popcount_py",
    "solve",
    "stable_discs",
    "terminal_value",
]


# ---------------------------------------------------------------------------
# Python-facing wrappers (one set of tables per process, reused move after move)


class Tables:
    """The scratch arrays and tables one search uses; ``next_generation`` empties a table in O(1)."""

    def __init__(self, bits: int) -> None:
        self.keys_own, self.keys_opp, self.info = new_table(bits)
        self.generation = 0
        self.buf_sq = np.zeros((130, 40), np.int64)
        self.buf_key = np.zeros((130, 40), np.int64)
        self.buf_flip = np.zeros((130, 40), np.uint64)

    def next_generation(self) -> int:
        with LOCK:
            self.generation += 1
            if self.generation >= 2**31 - 1:
                self.info[:, 0] = 0
                self.generation = 1
            return self.generation


_MID_TABLES: Tables | None = None
_END_TABLES: Tables | None = None


def mid_tables() -> Tables:
    global _MID_TABLES
    if _MID_TABLES is None:
        _MID_TABLES = Tables(19)
    return _MID_TABLES


def end_tables() -> Tables:
    global _END_TABLES
    if _END_TABLES is None:
        _END_TABLES = Tables(20)
    return _END_TABLES


def solve(own: int, opp: int, alpha: int, beta: int, deadline: float) -> tuple[int, int, int, bool]:
    """(score, best square or -1, nodes, timed out) for the side to move; a fresh table each call."""
    tables = end_tables()
    generation = tables.next_generation()
    stats = np.zeros(4, np.int64)
    own_u, opp_u = U(own), U(opp)
    n_empty = 64 - popcount_py(own | opp)
    with LOCK:
        score = end_solve(
            own_u,
            opp_u,
            alpha,
            beta,
            n_empty,
            stats,
            tables.keys_own,
            tables.keys_opp,
            tables.info,
            generation,
            deadline,
            tables.buf_sq,
            tables.buf_key,
            tables.buf_flip,
            pattern_array(),
        )
    best = int(stats[2])
    if n_empty <= SHALLOW:
        best = _shallow_root_move(own_u, opp_u, int(score))
    return int(score), best, int(stats[0]), bool(stats[1])


def _shallow_root_move(own: np.uint64, opp: np.uint64, score: int) -> int:
    """With very few empties the parity loop names no move: find one that reaches ``score``."""
    moves = int(legal(own, opp))
    stats = np.zeros(4, np.int64)
    n_empty = 64 - popcount_py(int(own | opp))
    while moves:
        bit = moves & -moves
        moves ^= bit
        sq = bit.bit_length() - 1
        f = flips(own, opp, sq)
        child = -_enter_shallow(opp ^ f, own | f | U(bit), -65, 65, n_empty - 1, stats)
        if child == score:
            return sq
    return -1


_PATTERN_ARRAY: np.ndarray | None = None


def pattern_array() -> np.ndarray:
    """The committed weights file's tables as one int16 array (phases x slots), read once."""
    global _PATTERN_ARRAY
    if _PATTERN_ARRAY is None:
        _PATTERN_ARRAY = np.array(_tables.pattern_weights().tables, dtype=np.int16)
    return _PATTERN_ARRAY


def evaluate_learned(own: int, opp: int) -> int:
    """Hard's learned evaluation on the committed weights (for tests and the training script)."""
    return int(evaluate_pattern(U(own), U(opp), pattern_array()))


def popcount_py(x: int) -> int:
    return int(x).bit_count()


class MidSearch:
    """Fixed-depth searches sharing one table generation (one iterative deepening run)."""

    def __init__(self, kind: int, deadline: float, selectivity: float = 0.0) -> None:
        self.tables = mid_tables()
        self.selectivity = selectivity
        self.generation = self.tables.next_generation()
        self.kind = kind
        self.weights = pattern_array()
        self.deadline = deadline
        self.stats = np.zeros(4, np.int64)

    @property
    def nodes(self) -> int:
        return int(self.stats[0])

    def value(self, own: int, opp: int, depth: int, alpha: int, beta: int) -> int | None:
        """Negamax value, or None when the deadline passed first."""
        t = self.tables
        with LOCK:
            score = mid_search(
                U(own),
                U(opp),
                depth,
                alpha,
                beta,
                self.kind,
                self.weights,
                self.stats,
                t.keys_own,
                t.keys_opp,
                t.info,
                self.generation,
                self.deadline,
                t.buf_sq,
                t.buf_key,
                0,
                self.selectivity,
            )
        if self.stats[1]:
            return None
        return int(score)
