"""Compiled Reversi, the endgame solver's lower layers and the pieces its upper ones share.

The last empties (``_last_move``, ``_two``, the parity loop ``_shallow`` up to ``SHALLOW``
empties), the stability cut-off (``stable_discs``) and fastest-first move ordering. The
layers are described in ``games.ai._reversi_fast_end``, which holds the upper ones.

Part of the compiled Reversi core: ``games.ai._reversi_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import ONE, ZERO, U, highest_index, lowest_index, popcount
from games.ai._reversi_fast_eval import final_score
from games.ai._reversi_fast_moves import (
    COL_A,
    CORNERS,
    NEIGHBOURS,
    NO,
    NOT_A,
    NOT_H,
    QUADRANT_OF,
    QUADRANTS,
    WEIGHTS,
    YES,
    flips,
    legal,
    neighbours,
)

SHALLOW = 6  # the endgame solver's parity loop takes over at this many empties


def _diagonal_lines() -> tuple[np.ndarray, np.ndarray]:
    """The 15 a1-h8-direction diagonals and the 15 h1-a8-direction ones, as masks."""
    rising = [sum(1 << (r * 8 + c) for r in range(8) for c in range(8) if c - r == k) for k in range(-7, 8)]
    falling = [sum(1 << (r * 8 + c) for r in range(8) for c in range(8) if c + r == k) for k in range(15)]
    return np.array(rising, dtype=np.uint64), np.array(falling, dtype=np.uint64)


DIAGONALS_9, DIAGONALS_7 = _diagonal_lines()
COL_H = U(0x8080808080808080)
ROW_1 = U(0x00000000000000FF)
ROW_8 = U(0xFF00000000000000)
BORDER = COL_A | COL_H | ROW_1 | ROW_8
# Computing stable discs costs about as much as a few nodes, so it is only done when the cut-off
# is possible: the opponent would need (64 - alpha) / 2 stable discs, which with many empties
# only happens when alpha is high (Edax's thresholds, by number of empties).
STABILITY_THRESHOLD = np.array(
    [99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46]
    + [48, 48, 50, 50, 52, 52, 54, 54, 56, 56, 58, 58, 60, 60, 62, 62]
    + [64] * 25,
    dtype=np.int64,
)


@njit(cache=True)
def _full_lines(occupied: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Squares whose row, column, rising diagonal and falling diagonal are full (no move can
    ever be played on a full line, so nothing on it flips along it)."""
    rows = ZERO
    for r in range(8):
        row = ROW_1 << U(8 * r)
        if occupied & row == row:
            rows |= row
    b = occupied & (occupied >> U(32))
    b &= b >> U(16)
    b &= b >> U(8)
    columns = (b & ROW_1) * COL_A
    rising = ZERO
    falling = ZERO
    for i in range(15):
        line = DIAGONALS_9[i]
        if occupied & line == line:
            rising |= line
        line = DIAGONALS_7[i]
        if occupied & line == line:
            falling |= line
    return rows, columns, rising, falling


@njit(cache=True)
def stable_discs(own: np.uint64, opp: np.uint64) -> np.uint64:
    """Some of ``own``'s discs that no sequence of moves can flip (a subset of the stable ones).

    A disc is safe along a line when the line is full, or when its neighbour on that line is
    the board's edge or a safe disc of its own colour (a run through that neighbour cannot be
    bracketed without flipping it). Safe along all four lines is stable. Grown from nothing,
    so every disc added is justified by discs added before it.
    """
    rows, columns, rising, falling = _full_lines(own | opp)
    rows |= COL_A | COL_H
    columns |= ROW_1 | ROW_8
    rising |= BORDER
    falling |= BORDER
    stable = ZERO
    while True:
        h = rows | ((stable << ONE) & NOT_A) | ((stable >> ONE) & NOT_H)
        v = columns | (stable << U(8)) | (stable >> U(8))
        d9 = rising | ((stable << U(9)) & NOT_A) | ((stable >> U(9)) & NOT_H)
        d7 = falling | ((stable << U(7)) & NOT_H) | ((stable >> U(7)) & NOT_A)
        grown = own & h & v & d9 & d7
        if grown == stable:
            return stable
        stable = grown


@njit(cache=True, inline="always")
def _stability_bound(own, opp, alpha, n_empty):  # type: ignore[no-untyped-def]
    """An upper bound on the score from the opponent's stable discs, or 65 when not worth computing."""
    if alpha < STABILITY_THRESHOLD[n_empty]:
        return 65
    return 64 - 2 * popcount(stable_discs(opp, own))


@njit(cache=True, inline="always")
def _take_best(buf_sq, buf_key, buf_flip, row, i, n):  # type: ignore[no-untyped-def]
    """Selection sort's step: the move of lowest key among ``i..n-1`` of ``row`` swapped to ``i``;
    returns its square and flips (the endgame buffers hold each move's flips, computed once)."""
    pick = i
    for j in range(i + 1, n):
        if buf_key[row, j] < buf_key[row, pick]:
            pick = j
    sq = buf_sq[row, pick]
    f = buf_flip[row, pick]
    buf_sq[row, pick] = buf_sq[row, i]
    buf_key[row, pick] = buf_key[row, i]
    buf_flip[row, pick] = buf_flip[row, i]
    return sq, f


@njit(cache=True, inline="always")
def _order_key(own, opp, sq, f):  # type: ignore[no-untyped-def]
    """Fastest first: the move leaving the opponent the fewest replies (corners counted twice),
    then the fewest of our discs next to empty squares, then the better square; lowest first."""
    new_own = own | f | (ONE << U(sq))
    new_opp = opp ^ f
    replies = legal(new_opp, new_own)
    return (
        16 * popcount(replies)
        + 16 * popcount(replies & CORNERS)
        + popcount(new_own & neighbours(~(new_own | new_opp)))
        - WEIGHTS[sq] // 10
    )


@njit(cache=True)
def _last_move(own: np.uint64, opp: np.uint64, sq: int) -> int:
    discs = popcount(own)
    if NEIGHBOURS[sq] & opp:
        n = popcount(flips(own, opp, sq))
        if n:
            return 2 * (discs + n + 1) - 64
    if NEIGHBOURS[sq] & own:
        n = popcount(flips(opp, own, sq))
        if n:
            return 2 * (discs - n) - 64
    diff = 2 * discs - 63
    return diff + 1 if diff > 0 else diff - 1


@njit(cache=True)
def _two(own: np.uint64, opp: np.uint64, alpha: int, beta: int, empty: np.uint64) -> int:
    sq_a = lowest_index(empty)
    sq_b = highest_index(empty)
    bit_a = ONE << U(sq_a)
    bit_b = ONE << U(sq_b)
    best = -65
    if NEIGHBOURS[sq_a] & opp:
        f = flips(own, opp, sq_a)
        if f:
            best = -_last_move(opp ^ f, own | f | bit_a, sq_b)
            if best >= beta:
                return best
    if NEIGHBOURS[sq_b] & opp:
        f = flips(own, opp, sq_b)
        if f:
            score = -_last_move(opp ^ f, own | f | bit_b, sq_a)
            if score > best:
                best = score
    if best > -65:
        return best
    if NEIGHBOURS[sq_a] & own:
        f = flips(opp, own, sq_a)
        if f:
            best = -_last_move(own ^ f, opp | f | bit_a, sq_b)
            if best >= -alpha:
                return -best
    if NEIGHBOURS[sq_b] & own:
        f = flips(opp, own, sq_b)
        if f:
            score = -_last_move(own ^ f, opp | f | bit_b, sq_a)
            if score > best:
                best = score
    if best > -65:
        return -best
    return final_score(own, opp)


@njit("int64(uint64, uint64, int64, int64, int64, uint64, int64, int64[::1])", cache=True)
def _shallow(own, opp, alpha, beta, n_empty, odd, passed, stats):  # type: ignore[no-untyped-def]
    """Few empties: the empty squares directly, odd quadrants first, no table."""
    stats[0] += 1
    empty = ~(own | opp)
    if n_empty == 2:
        return _two(own, opp, alpha, beta, empty)
    if n_empty == 1:
        return _last_move(own, opp, lowest_index(empty))
    best = -65
    for pass_number in range(2):
        group = empty & odd if pass_number == 0 else empty & ~odd
        while group:
            sq = lowest_index(group)
            group &= group - ONE
            if not NEIGHBOURS[sq] & opp:
                continue
            f = flips(own, opp, sq)
            if not f:
                continue
            score = -_shallow(
                opp ^ f,
                own | f | (ONE << U(sq)),
                -beta,
                -alpha,
                n_empty - 1,
                odd ^ QUADRANT_OF[sq],
                NO,
                stats,
            )
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        return best
    if best > -65:
        return best
    if passed:
        return final_score(own, opp)
    return -_shallow(opp, own, -beta, -alpha, n_empty, odd, YES, stats)


@njit(cache=True)
def _enter_shallow(own, opp, alpha, beta, n_empty, stats):  # type: ignore[no-untyped-def]
    empty = ~(own | opp)
    odd = ZERO
    for q in range(4):
        if popcount(empty & QUADRANTS[q]) & 1:
            odd |= QUADRANTS[q]
    return _shallow(own, opp, alpha, beta, n_empty, odd, NO, stats)
