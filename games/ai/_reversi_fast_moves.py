"""Compiled Reversi, the board: bitboard masks, rays and square tables, move generation, perft,
and the slot function of the searches' transposition tables.

Part of the compiled Reversi core: ``games.ai._reversi_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import ONE, ZERO, U, highest_index, lowest_index, popcount

FULL = U(0xFFFFFFFFFFFFFFFF)
NOT_A = U(0xFEFEFEFEFEFEFEFE)
NOT_H = U(0x7F7F7F7F7F7F7F7F)
INNER = U(0x7E7E7E7E7E7E7E7E)
CORNERS = U(0x8100000000000081)
COL_A = U(0x0101010101010101)
COLUMN_MAGIC = U(0x0102040810204080)


WIN = 10_000
INF = 10 * WIN
TIME_CHECK = 4096  # look at the clock every 4096 nodes (and at the first)
# The recursive functions have explicit signatures: a recursive call whose argument types differ
# from the outer call's (a literal 0 against an int64) would compile a second version, and numba's
# on-disk cache then loads a broken one (numba issue #6713: a segfault on the second run).
NO = np.int64(0)
YES = np.int64(1)


def _rays() -> tuple[np.ndarray, np.ndarray]:
    """Per square, the masks of its 4 rays of rising and its 4 of falling bit index (0 when empty)."""
    up = np.zeros((64, 4), dtype=np.uint64)
    down = np.zeros((64, 4), dtype=np.uint64)
    for sq in range(64):
        col, row = sq % 8, sq // 8
        n_up = n_down = 0
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1)):
            mask, c, r = 0, col + dc, row + dr
            while 0 <= c < 8 and 0 <= r < 8:
                mask |= 1 << (r * 8 + c)
                c, r = c + dc, r + dr
            if dr * 8 + dc > 0:
                up[sq, n_up] = mask
                n_up += 1
            else:
                down[sq, n_down] = mask
                n_down += 1
    return up, down


RAYS_UP, RAYS_DOWN = _rays()


def _square_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from games.ai import _reversi_tables as py

    weights = np.array(py.SQUARE_WEIGHTS, dtype=np.int64)
    neighbours = np.array([py._NEIGHBOURS[sq] for sq in range(64)], dtype=np.uint64)
    quadrant = np.array([py._QUADRANT_OF[sq] for sq in range(64)], dtype=np.uint64)
    quadrants = np.array(py._QUADRANT_MASKS, dtype=np.uint64)
    return weights, neighbours, quadrant, quadrants


WEIGHTS, NEIGHBOURS, QUADRANT_OF, QUADRANTS = _square_tables()


# ---------------------------------------------------------------------------
# Move generation


@njit(cache=True, inline="always")
def _direction(own, mask, shift):  # type: ignore[no-untyped-def]
    """Squares beyond runs of ``mask`` discs that start next to ``own``, one way along ``shift``."""
    t = mask & (own << shift)
    t |= mask & (t << shift)
    pre = mask & (mask << shift)
    double = shift + shift
    t |= pre & (t << double)
    t |= pre & (t << double)
    return t << shift


@njit(cache=True, inline="always")
def _direction_down(own, mask, shift):  # type: ignore[no-untyped-def]
    t = mask & (own >> shift)
    t |= mask & (t >> shift)
    pre = mask & (mask >> shift)
    double = shift + shift
    t |= pre & (t >> double)
    t |= pre & (t >> double)
    return t >> shift


@njit(cache=True)
def legal(own: np.uint64, opp: np.uint64) -> np.uint64:
    """Mask of the empty squares where ``own`` may place a disc."""
    empty = ~(own | opp)
    inner = opp & INNER
    moves: np.uint64 = _direction(own, inner, U(1)) | _direction_down(own, inner, U(1))
    moves |= _direction(own, opp, U(8)) | _direction_down(own, opp, U(8))
    moves |= _direction(own, inner, U(9)) | _direction_down(own, inner, U(9))
    moves |= _direction(own, inner, U(7)) | _direction_down(own, inner, U(7))
    return moves & empty


@njit(cache=True)
def flips(own: np.uint64, opp: np.uint64, sq: int) -> np.uint64:
    """Opponent discs turned over by a disc of ``own`` on the empty square ``sq``."""
    result = ZERO
    not_opp = ~opp
    for d in range(4):
        ray = RAYS_UP[sq, d]
        stop = ray & not_opp
        bit = stop & (~stop + ONE)
        if bit & own:
            result |= ray & (bit - ONE)
        ray = RAYS_DOWN[sq, d]
        stop = ray & not_opp
        if stop:
            bit = ONE << U(highest_index(stop))
            if bit & own:
                result |= ray & ~((bit << ONE) - ONE)
    return result


@njit(cache=True)
def neighbours(mask: np.uint64) -> np.uint64:
    horizontal = ((mask << ONE) & NOT_A) | ((mask >> ONE) & NOT_H)
    row = mask | horizontal
    return horizontal | (row << U(8)) | (row >> U(8))


@njit("int64(uint64, uint64, int64, int64)", cache=True)
def perft(own: np.uint64, opp: np.uint64, depth: int, passed: int | np.int64) -> int:
    """Leaves at ``depth`` plies (a forced pass is a ply), as ``games.engines.reversi.perft_bits``."""
    moves = legal(own, opp)
    if not moves:
        if passed:
            return 0
        if depth == 1:
            return 1
        return perft(opp, own, depth - 1, YES)
    if depth == 1:
        return popcount(moves)
    total = 0
    while moves:
        sq = lowest_index(moves)
        moves &= moves - ONE
        f = flips(own, opp, sq)
        total += perft(opp ^ f, own | f | (ONE << U(sq)), depth - 1, NO)
    return total


# ---------------------------------------------------------------------------
# Transposition tables (open addressing, one slot per key, always replace)


@njit(cache=True, inline="always")
def _slot(own, opp, mask):  # type: ignore[no-untyped-def]
    h = own * U(0x9E3779B97F4A7C15) ^ (opp * U(0xC2B2AE3D27D4EB4F))
    h ^= h >> U(31)
    return np.int64(h & mask)


def new_table(bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keys (own, opp) and info rows (generation, depth, lower, upper, best square)."""
    size = 1 << bits
    return np.zeros(size, np.uint64), np.zeros(size, np.uint64), np.zeros((size, 5), np.int32)
