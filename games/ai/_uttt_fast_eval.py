"""Compiled Ultimate Tic-Tac-Toe, Hard's static guess at a position: ``heuristic``.

Part of the compiled Ultimate Tic-Tac-Toe core: ``games.ai._uttt_fast`` loads it
and has the map of the parts.

Hard's tree keeps, beside each node's playout average, this guess backed up as
minimax over the children tried (Lanctot, Winands, Pepels and Sturtevant,
"Monte Carlo Tree Search with Heuristic Evaluations using Implicit Minimax
Backups", 2014), and selection mixes the two. The guess is the classic one of
tic-tac-toe, a square is worth the lines through it (the centre 4, a corner 3,
an edge 2), on both levels: boards won, by their place on the big board; marks
in open boards, by their place and their board's, at a twentieth; and two won
boards in a line whose third board is still open. Nothing in it was fitted: the
weights are round numbers, and the mix was measured as a whole (docs/performance.md,
issue #42).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._uttt_fast_moves import CLOSED, WON_O, WON_X

# Lines through each square of a 3x3 board, cells 0-8 in reading order.
LINES_THROUGH = np.array([3, 2, 3, 2, 4, 2, 3, 2, 3], np.float64)
# The eight lines of the big board as masks of boards.
BIG_LINES = np.array([0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124], np.int64)
MARK_WEIGHT = 0.05  # a mark in an open board, against a board won
THREAT = 2.0  # two boards won in a line whose third is open
SCALE = 0.25  # the logistic's slope: a centre board won is worth about 73 %


@njit(cache=True)
def heuristic(boards: np.ndarray, won: np.ndarray, side: int) -> float:
    """A guess in (0, 1) that ``side`` wins a running game."""
    score = 0.0
    for b in range(9):
        if (won[WON_X] >> b) & 1:
            score += LINES_THROUGH[b]
        elif (won[WON_O] >> b) & 1:
            score -= LINES_THROUGH[b]
        elif not (won[CLOSED] >> b) & 1:
            marks = 0.0
            for c in range(9):
                if (boards[b] >> c) & 1:
                    marks += LINES_THROUGH[c]
                elif (boards[9 + b] >> c) & 1:
                    marks -= LINES_THROUGH[c]
            score += MARK_WEIGHT * LINES_THROUGH[b] * marks
    for k in range(8):
        line = BIG_LINES[k]
        for owner in range(2):
            mine = won[owner] & line
            if mine & (mine - 1) and not (won[CLOSED] & line & ~mine):
                score += THREAT if owner == 0 else -THREAT
    if side == 1:
        score = -score
    return float(1.0 / (1.0 + np.exp(-SCALE * score)))
