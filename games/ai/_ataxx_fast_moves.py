"""Compiled Ataxx, the board: masks from the rules engine, move generation, playing a move, perft.

Part of the compiled Ataxx core: ``games.ai._ataxx_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import ONE, U, lowest_index, popcount
from games.engines import ataxx as rules

SIZE = 7
FULL = U(rules.FULL)
NOT_FILE_A = U(rules._NOT_FILE_A)
NOT_FILE_G = U(rules._NOT_FILE_G)
NEIGHBOURS = np.array(rules.NEIGHBOURS, dtype=np.uint64)
JUMP_RING = np.array(rules.JUMP_RING, dtype=np.uint64)
EDGE = U(sum(1 << sq for sq in range(49) if sq % 7 in (0, 6) or sq // 7 in (0, 6)))


@njit(cache=True)
def dilate(mask: np.uint64) -> np.uint64:
    row = mask | ((mask << ONE) & NOT_FILE_A) | ((mask >> ONE) & NOT_FILE_G)
    return (row | (row << U(SIZE)) | (row >> U(SIZE))) & FULL


@njit("int64(uint64, uint64, int64)", cache=True)
def perft(me, opp, depth):  # type: ignore[no-untyped-def]
    """As ``games.engines.ataxx_perft.perft_bitboards``."""
    empty = FULL ^ (me | opp)
    if not (empty and me and opp):
        return 0
    clones = dilate(me) & empty
    if depth == 1:
        count = popcount(clones)
        pieces = me
        while pieces:
            frm = lowest_index(pieces)
            pieces &= pieces - ONE
            count += popcount(JUMP_RING[frm] & empty)
        return count if count else 1
    total = 0
    moved = False
    targets = clones
    while targets:
        to = lowest_index(targets)
        targets &= targets - ONE
        moved = True
        flips = NEIGHBOURS[to] & opp
        total += perft(opp ^ flips, me | (ONE << U(to)) | flips, depth - 1)
    pieces = me
    while pieces:
        frm = lowest_index(pieces)
        pieces &= pieces - ONE
        base = me ^ (ONE << U(frm))
        targets = JUMP_RING[frm] & empty
        while targets:
            to = lowest_index(targets)
            targets &= targets - ONE
            moved = True
            flips = NEIGHBOURS[to] & opp
            total += perft(opp ^ flips, base | (ONE << U(to)) | flips, depth - 1)
    if not moved:
        total = perft(opp, me, depth - 1)
    return total


@njit(cache=True)
def generate(me: np.uint64, opp: np.uint64, out: np.ndarray) -> int:
    """Writes the move codes into ``out`` (clones by destination, then jumps by source); their number."""
    empty = FULL ^ (me | opp)
    n = 0
    targets = dilate(me) & empty
    while targets:
        to = lowest_index(targets)
        targets &= targets - ONE
        out[n] = to * 64 + to
        n += 1
    pieces = me
    while pieces:
        frm = lowest_index(pieces)
        pieces &= pieces - ONE
        targets = JUMP_RING[frm] & empty
        while targets:
            to = lowest_index(targets)
            targets &= targets - ONE
            out[n] = frm * 64 + to
            n += 1
    return n


@njit(cache=True, inline="always")
def play(me: np.uint64, opp: np.uint64, code: int) -> tuple[np.uint64, np.uint64]:
    """(opp, me) after move ``code``: the next mover first."""
    frm = code >> 6
    to = code & 63
    flips = NEIGHBOURS[to] & opp
    source = me if frm == to else me ^ (ONE << U(frm))  # a jump leaves its square
    return opp ^ flips, source | (ONE << U(to)) | flips
