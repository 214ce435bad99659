"""Compiled Ultimate Tic-Tac-Toe, the rules: the small boards' tables, the result, the moves,
playing one, perft.

Part of the compiled Ultimate Tic-Tac-Toe core: ``games.ai._uttt_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.engines import ultimate_ttt as rules

WIN = np.array(rules.WIN, dtype=np.uint8)
# For every 9-bit mask: how many cells it has and the k-th of them.
POP9 = np.array([bin(m).count("1") for m in range(512)], dtype=np.int64)
NTH9 = np.array(
    [[c for c in range(9) if m >> c & 1] + [0] * (9 - bin(m).count("1")) for m in range(512)], np.int64
)
FULL9 = 511


# LINES9[mine]: the cells that complete a line of ``mine`` (a 9-bit mask of one side's marks on a small
# board); ``LINES9[mine] & free`` are the cells where that side wins the board now.
LINES9 = np.array(
    [sum(1 << c for c in range(9) if not m >> c & 1 and rules.WIN[m | 1 << c]) for m in range(512)], np.int64
)
SIDE, LAST = 18, 19
WON_X, WON_O, CLOSED = 0, 1, 2
RUNNING = -1


@njit(cache=True)
def result_code(won: np.ndarray) -> int:
    """-1 while the game runs, else side 0's reward doubled (2 X wins, 1 draw, 0 O wins)."""
    if WIN[won[WON_X]]:
        return 2
    if WIN[won[WON_O]]:
        return 0
    if won[CLOSED] == FULL9:
        return 1
    return RUNNING


@njit(cache=True)
def moves(boards: np.ndarray, won: np.ndarray, out: np.ndarray) -> int:
    """Legal cell indexes (9 * board + cell) into ``out``; how many (0 once the game is over)."""
    if result_code(won) != RUNNING:
        return 0
    open_mask = FULL9 & ~won[CLOSED]
    last = boards[LAST]
    if last >= 0 and (open_mask >> (last % 9)) & 1:
        open_mask = 1 << (last % 9)
    n = 0
    for b in range(9):
        if (open_mask >> b) & 1:
            free = FULL9 & ~(boards[b] | boards[9 + b])
            for c in range(9):
                if (free >> c) & 1:
                    out[n] = 9 * b + c
                    n += 1
    return n


@njit(cache=True)
def play(boards: np.ndarray, won: np.ndarray, index: int) -> None:
    """Mark ``index`` for the side to move, in place (as ``games.engines.ultimate_ttt.play_index``)."""
    b = index // 9
    bit = 1 << (index % 9)
    side = boards[SIDE]
    mine = boards[9 * side + b] | bit
    boards[9 * side + b] = mine
    if WIN[mine]:
        won[side] |= 1 << b
        won[CLOSED] |= 1 << b
    elif (boards[b] | boards[9 + b]) == FULL9:
        won[CLOSED] |= 1 << b
    boards[SIDE] = 1 - side
    boards[LAST] = index


@njit("int64(int64[::1], int64[::1], int64, int64[:, ::1])", cache=True)
def perft(boards, won, depth, scratch):  # type: ignore[no-untyped-def]
    """Leaves ``depth`` plies on (finished games have no children)."""
    n = moves(boards, won, scratch[depth])
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        child = boards.copy()
        child_won = won.copy()
        play(child, child_won, scratch[depth, i])
        total += perft(child, child_won, depth - 1, scratch)
    return total
