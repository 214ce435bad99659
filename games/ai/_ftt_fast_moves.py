"""Compiled Four Tac Toe, the board: the scoring lines' tables, playing a move, the moves
and their heuristic order.

Part of the compiled Four Tac Toe core: ``games.ai._ftt_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.engines import four_tac_toe as rules

N_LINES = len(rules.LINE_CELLS)  # 232 scoring lines
LINE_CELLS = np.array(rules.LINE_CELLS, dtype=np.int64)
MAX_THROUGH = max(len(ids) for ids in rules.CELL_LINES)
# Per cell: how many scoring lines pass through it, and their indexes.
CELL_COUNT = np.array([len(ids) for ids in rules.CELL_LINES], dtype=np.int64)
CELL_LINES = np.array(
    [list(ids) + [0] * (MAX_THROUGH - len(ids)) for ids in rules.CELL_LINES], dtype=np.int64
)
# Line code after a mark of X (row 0) or O (row 1), as ``games.ai.four_tac_toe_playout._AFTER``.
AFTER = np.array([[1, 2, 3, 7, 7, 7, 7, 7], [4, 7, 7, 7, 5, 6, 7, 7]], dtype=np.int8)
TWO = np.array([2, 5], dtype=np.int8)  # two marks of X / of O: the third cell scores
FULL = np.array([3, 6], dtype=np.int8)  # three marks: a point
CENTRE = rules.CENTRE
EMPTY, FORBIDDEN = 0, 3
SIDE, DIFF = 0, 1

# The heuristic's weights (``games.ai.four_tac_toe``), by a line's code and the side looking at it:
# WEIGHT[side, code] is what the line adds to each of its empty cells.
W_COMPLETE, W_BLOCK, W_TWO, W_KILL, W_OPEN = 100, 60, 6, 3, 1
WEIGHT = np.array(
    [
        [W_OPEN, W_TWO, W_COMPLETE, 0, W_KILL, W_BLOCK, 0, 0],  # X to move
        [W_OPEN, W_KILL, W_BLOCK, 0, W_TWO, W_COMPLETE, 0, 0],  # O to move
    ],
    dtype=np.int64,
)


@njit(cache=True)
def play(owner: np.ndarray, codes: np.ndarray, gains: np.ndarray, info: np.ndarray, cell: int) -> None:
    """Mark ``cell`` for the side to move, in place (as ``games.engines.four_tac_toe.play_index``)."""
    side = info[SIDE]
    owner[cell] = side + 1
    two = TWO[side]
    full = FULL[side]
    for j in range(CELL_COUNT[cell]):
        k = CELL_LINES[cell, j]
        code = AFTER[side, codes[k]]
        codes[k] = code
        if code == two:
            # Two marks of the mover and an empty third cell: taking it will score.
            for t in range(3):
                c = LINE_CELLS[k, t]
                if owner[c] == EMPTY:
                    gains[side, c] += 1
        elif code == full:
            info[DIFF] += 1 if side == 0 else -1
    info[SIDE] = 1 - side


@njit(cache=True)
def moves(owner: np.ndarray, out: np.ndarray) -> int:
    """The empty playable cells into ``out``, by index; how many (0 once the board is full)."""
    n = 0
    for c in range(81):
        if owner[c] == EMPTY:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def ordered_moves(owner: np.ndarray, codes: np.ndarray, side: int, out: np.ndarray) -> int:
    """The empty cells best first by the one-move heuristic, ties by index (``ordered_cells``)."""
    value = np.zeros(81, np.int64)
    for k in range(N_LINES):
        w = WEIGHT[side, codes[k]]
        if w:
            for t in range(3):
                value[LINE_CELLS[k, t]] += w
    n = moves(owner, out)
    # Insertion sort, stable: at most 80 cells and mostly short moves.
    for i in range(1, n):
        cell = out[i]
        v = value[cell]
        j = i - 1
        while j >= 0 and value[out[j]] < v:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = cell
    return n
