"""Compiled Four Tac Toe, the playouts: the tactical playout and its reward (random numbers from ``games.ai._bits``).

Part of the compiled Four Tac Toe core: ``games.ai._ftt_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import random_below
from games.ai._ftt_fast_moves import (
    AFTER,
    CELL_COUNT,
    CELL_LINES,
    DIFF,
    EMPTY,
    FULL,
    LINE_CELLS,
    SIDE,
    TWO,
    moves,
)


@njit(cache=True)
def _best_threat(
    gains: np.ndarray, owner: np.ndarray, side: int, cells: np.ndarray, count: np.ndarray
) -> int:
    """The empty cell where ``side`` scores most (first of equals), or -1; drops filled cells from its list."""
    best = -1
    best_gain = 0
    kept = 0
    for i in range(count[side]):
        c = cells[side, i]
        if owner[c] != EMPTY:
            continue
        cells[side, kept] = c
        kept += 1
        if gains[side, c] > best_gain:
            best, best_gain = c, gains[side, c]
    count[side] = kept
    return best


@njit(cache=True)
def playout(
    owner: np.ndarray, codes: np.ndarray, gains: np.ndarray, info: np.ndarray, rng: np.ndarray, noise: int = 0
) -> int:
    """Tactical playout to the full board, in place; the final score difference (X minus O).

    Each side cashes its best threat, else blocks the opponent's best, else takes
    a random empty cell (``FourTacToeAdapter.playout``). ``noise`` (out of 1024)
    is the share of moves made at random regardless: tactical playouts are
    nearly deterministic, and without some noise a longer search found no better
    moves (see ``games.ai.four_tac_toe.PLAYOUT_NOISE``).
    """
    free = np.empty(81, np.int64)
    where = np.zeros(81, np.int64)
    n = moves(owner, free)
    for i in range(n):
        where[free[i]] = i
    # Per side, the empty cells where it would score (a superset: filled cells are dropped lazily).
    threats = np.empty((2, 81), np.int64)
    count = np.zeros(2, np.int64)
    for side in range(2):
        for i in range(n):
            if gains[side, free[i]]:
                threats[side, count[side]] = free[i]
                count[side] += 1
    while n:
        side = info[SIDE]
        cell = -1
        if noise == 0 or random_below(rng, 1024) >= noise:
            cell = _best_threat(gains, owner, side, threats, count)
            if cell < 0:
                cell = _best_threat(gains, owner, 1 - side, threats, count)
        if cell < 0:
            cell = free[random_below(rng, n)]
        # Swap-remove the cell from the free list.
        i = where[cell]
        n -= 1
        last = free[n]
        free[i] = last
        where[last] = i
        _play_tracking(owner, codes, gains, info, cell, threats, count)
    return int(info[DIFF])


@njit(cache=True)
def _play_tracking(
    owner: np.ndarray,
    codes: np.ndarray,
    gains: np.ndarray,
    info: np.ndarray,
    cell: int,
    threats: np.ndarray,
    count: np.ndarray,
) -> None:
    """``play``, also adding the mover's newly threatened cells to its threat list."""
    side = info[SIDE]
    owner[cell] = side + 1
    two = TWO[side]
    full = FULL[side]
    for j in range(CELL_COUNT[cell]):
        k = CELL_LINES[cell, j]
        code = AFTER[side, codes[k]]
        codes[k] = code
        if code == two:
            for t in range(3):
                c = LINE_CELLS[k, t]
                if owner[c] == EMPTY:
                    if gains[side, c] == 0:
                        threats[side, count[side]] = c
                        count[side] += 1
                    gains[side, c] += 1
        elif code == full:
            info[DIFF] += 1 if side == 0 else -1
    info[SIDE] = 1 - side


@njit(cache=True)
def reward(diff: int, scale: float) -> float:
    """Side 0's reward for a final score difference: mostly the result, a little the margin."""
    return float(0.5 + 0.5 * np.tanh(diff / scale))
