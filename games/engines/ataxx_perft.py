"""Ataxx's move tree straight on bitboards (plain ints, no strings), on ``games.engines.ataxx``'s tables.

``generate(me, opp)`` lists a side's moves as (from, to) square pairs in ``legal_moves``' order;
``perft_bitboards`` counts the leaves as ``base.perft`` does, without building states. They are
the reference the compiled core (``games.ai._ataxx_fast``) is checked against, and the fast
path through the published perft suite. This module has no ``ENGINE``: ``games.engines`` lists
only the modules that have one.
"""

from __future__ import annotations

from games.engines.ataxx import FULL, JUMP_RING, NEIGHBOURS, dilate
from games.engines.grid import bits


def generate(me: int, opp: int) -> list[tuple[int, int]]:
    """Moves of the side owning ``me`` as (from, to) pairs, from == to for a clone.

    Same order as ``legal_moves``; an empty list means "no move" (the caller
    decides between pass and game over).
    """
    empty = FULL ^ (me | opp)
    moves = [(to, to) for to in bits(dilate(me) & empty)]
    for frm in bits(me):
        moves.extend((frm, to) for to in bits(JUMP_RING[frm] & empty))
    return moves


def perft_bitboards(me: int, opp: int, depth: int) -> int:
    """Perft straight on bitboards (same counting as ``base.perft``), for speed."""
    empty = FULL ^ (me | opp)
    if not (empty and me and opp):
        return 0
    clones = dilate(me) & empty
    if depth == 1:
        count = clones.bit_count()
        for frm in bits(me):
            count += (JUMP_RING[frm] & empty).bit_count()
        return count or 1  # no move: the forced pass is the one leaf
    total = 0
    moved = False
    for to in bits(clones):
        moved = True
        flips = NEIGHBOURS[to] & opp
        total += perft_bitboards(opp ^ flips, me | 1 << to | flips, depth - 1)
    for frm in bits(me):
        base = me ^ (1 << frm)
        for to in bits(JUMP_RING[frm] & empty):
            moved = True
            flips = NEIGHBOURS[to] & opp
            total += perft_bitboards(opp ^ flips, base | 1 << to | flips, depth - 1)
    if not moved:
        total = perft_bitboards(opp, me, depth - 1)
    return total
