"""Compiled Ultimate Tic-Tac-Toe, the playouts: ``rollout`` (its random numbers from ``games.ai._bits``).

Part of the compiled Ultimate Tic-Tac-Toe core: ``games.ai._uttt_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import random_below
from games.ai._uttt_fast_moves import (
    CLOSED,
    FULL9,
    LAST,
    NTH9,
    POP9,
    RUNNING,
    SIDE,
    WINNING9,
    play,
    result_code,
)


@njit(cache=True)
def rollout(boards: np.ndarray, won: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """Random moves to the end (in place), but a small board that can be won is won; side 0's reward doubled."""
    while True:
        code = result_code(won)
        if code != RUNNING:
            return code
        closed = won[CLOSED]
        last = boards[LAST]
        target = last % 9
        if last >= 0 and not (closed >> target) & 1:
            free = FULL9 & ~(boards[target] | boards[9 + target])
            wins = WINNING9[boards[9 * boards[SIDE] + target], free]
            if wins:
                index = 9 * target + NTH9[wins, random_below(rng, POP9[wins])]
            else:
                index = 9 * target + NTH9[free, random_below(rng, POP9[free])]
        else:
            total = 0
            for b in range(9):
                if not (closed >> b) & 1:
                    total += POP9[FULL9 & ~(boards[b] | boards[9 + b])]
            k = random_below(rng, total)
            index = -1
            for b in range(9):
                if not (closed >> b) & 1:
                    free = FULL9 & ~(boards[b] | boards[9 + b])
                    if k < POP9[free]:
                        index = 9 * b + NTH9[free, k]
                        break
                    k -= POP9[free]
        play(boards, won, index)
