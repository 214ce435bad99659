"""Compiled Ultimate Tic-Tac-Toe, the playouts: ``playout`` with ``random_move`` or Hard's ``informed_move``
(their random numbers from ``games.ai._bits``).

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
    LINES9,
    NTH9,
    POP9,
    RUNNING,
    SIDE,
    play,
    result_code,
)


@njit(cache=True)
def playout(boards: np.ndarray, won: np.ndarray, rng: np.ndarray, informed: bool) -> int:  # noqa: FBT001 (numba: no keyword-only arguments)
    """Moves to the end (in place), ``random_move``'s or Hard's ``informed_move``'s; side 0's reward doubled."""
    while True:
        code = result_code(won)
        if code != RUNNING:
            return code
        play(boards, won, informed_move(boards, won, rng) if informed else random_move(boards, won, rng))


@njit(cache=True)
def random_move(boards: np.ndarray, won: np.ndarray, rng: np.ndarray) -> int:
    """A random move, but a small board that can be won is won."""
    closed = won[CLOSED]
    last = boards[LAST]
    target = last % 9
    if last >= 0 and not (closed >> target) & 1:
        free = FULL9 & ~(boards[target] | boards[9 + target])
        wins = LINES9[boards[9 * boards[SIDE] + target]] & free
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
    return int(index)


@njit(cache=True)
def informed_move(boards: np.ndarray, won: np.ndarray, rng: np.ndarray) -> int:
    """A playout's move that wins a small board where it can, else gives nothing away where it can.

    Nothing given away: the opponent is not sent to a board they win at once, nor to a closed one
    (a free choice). Among the moves left the choice is uniform. Against ``random_move``'s choice
    (which only win boards), these playouts cost a third more and score 57 % rather than 51 %
    against mcthouacbb/uttt (docs/performance.md, issue #42).
    """
    closed = won[CLOSED]
    side = boards[SIDE]
    last = boards[LAST]
    target = last % 9
    # The boards (as the cells that send the opponent there) that would hand the opponent a gift.
    gifts = closed
    for b in range(9):
        if not (closed >> b) & 1 and LINES9[boards[9 * (1 - side) + b]] & ~(boards[b] | boards[9 + b]):
            gifts |= 1 << b
    if last >= 0 and not (closed >> target) & 1:
        free = FULL9 & ~(boards[target] | boards[9 + target])
        wins = LINES9[boards[9 * side + target]] & free
        if wins:
            return int(9 * target + NTH9[wins, random_below(rng, POP9[wins])])
        quiet = free & ~gifts
        pick = quiet if quiet else free
        return int(9 * target + NTH9[pick, random_below(rng, POP9[pick])])
    return _anywhere(boards, closed, side, gifts, rng)


@njit(cache=True)
def _anywhere(boards: np.ndarray, closed: int, side: int, gifts: int, rng: np.ndarray) -> int:
    """A free choice: a cell that wins a board if any, else one that gives nothing away if any, else any."""
    wins_total = 0
    quiet_total = 0
    free_total = 0
    for b in range(9):
        if not (closed >> b) & 1:
            free = FULL9 & ~(boards[b] | boards[9 + b])
            wins_total += POP9[LINES9[boards[9 * side + b]] & free]
            quiet_total += POP9[free & ~gifts]
            free_total += POP9[free]
    kind = 0 if wins_total else 1 if quiet_total else 2
    k = random_below(rng, wins_total if kind == 0 else quiet_total if kind == 1 else free_total)
    for b in range(9):
        if not (closed >> b) & 1:
            free = FULL9 & ~(boards[b] | boards[9 + b])
            pick = LINES9[boards[9 * side + b]] & free if kind == 0 else free & ~gifts if kind == 1 else free
            if k < POP9[pick]:
                return int(9 * b + NTH9[pick, k])
            k -= POP9[pick]
    return -1
