"""Compiled (numba) Ataxx core: move generation, perft and the alpha-beta search of ``games.ai.ataxx``.

The same algorithm as ``games.ai.ataxx.Search._negamax`` (the pure-Python
fallback and reference), plus late move reductions from ``LMR_DEPTH`` plies up, on 49-bit boards in uint64: negamax alpha-beta with a
transposition table (entries tagged with a generation, so each search starts
afresh), the table move first and then moves by material gained, a node one
ply above the horizon scored by its best immediate gain, finished games scored
``WIN - ply``.

``stats``: [nodes, timed out, a line stopped at the horizon, node count of the
next look at the clock].
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numba import njit

from games.ai._bits import LOCK, ONE, U, clock, lowest_index, popcount
from games.engines import ataxx as rules

SIZE = 7
FULL = U(rules.FULL)
NOT_FILE_A = U(rules._NOT_FILE_A)
NOT_FILE_G = U(rules._NOT_FILE_G)
NEIGHBOURS = np.array(rules.NEIGHBOURS, dtype=np.uint64)
JUMP_RING = np.array(rules.JUMP_RING, dtype=np.uint64)

WIN = 100_000
MATE_BOUND = WIN - 1_000
EXACT, LOWER, UPPER = 0, 1, 2
TIME_CHECK = 2048
# Late move reductions (not in the pure-Python search; the tests compare the two below this depth).
LMR_DEPTH = 4
LMR_AFTER = 3
MAX_MOVES = 640


@njit(cache=True)
def dilate(mask: np.uint64) -> np.uint64:
    row = mask | ((mask << ONE) & NOT_FILE_A) | ((mask >> ONE) & NOT_FILE_G)
    return (row | (row << U(SIZE)) | (row >> U(SIZE))) & FULL


@njit("int64(uint64, uint64, int64)", cache=True)
def perft(me, opp, depth):  # type: ignore[no-untyped-def]
    """As ``games.engines.ataxx.perft_bitboards``."""
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
def final(me: np.uint64, opp: np.uint64, ply: int) -> int:
    diff = popcount(me) - popcount(opp)
    if diff > 0:
        return WIN - ply
    if diff < 0:
        return -WIN + ply
    return 0


@njit(cache=True)
def best_gain(me: np.uint64, opp: np.uint64, clones: np.uint64, reach: np.uint64, ply: int) -> int:
    best_clone = -1
    targets = clones
    while targets:
        to = lowest_index(targets)
        targets &= targets - ONE
        best_clone = max(best_clone, popcount(NEIGHBOURS[to] & opp))
    best_jump = -1
    targets = reach & ~clones
    while targets:
        to = lowest_index(targets)
        targets &= targets - ONE
        best_jump = max(best_jump, popcount(NEIGHBOURS[to] & opp))
    enemies = popcount(opp)
    if max(best_clone, best_jump) == enemies:
        return WIN - ply - 1
    return popcount(me) - enemies + max(2 * best_clone + 1, 2 * best_jump)


@njit(cache=True)
def _to_table(value: int, ply: int) -> int:
    if value > MATE_BOUND:
        return value + ply
    if value < -MATE_BOUND:
        return value - ply
    return value


@njit(cache=True)
def _from_table(value: np.int64, ply: int) -> np.int64:
    if value > MATE_BOUND:
        return value - ply
    if value < -MATE_BOUND:
        return value + ply
    return value


@njit(cache=True, inline="always")
def _slot(me, opp, mask):  # type: ignore[no-untyped-def]
    h = me * U(0x9E3779B97F4A7C15) ^ (opp * U(0xC2B2AE3D27D4EB4F))
    h ^= h >> U(29)
    return np.int64(h & mask)


@njit(
    "int64(uint64, uint64, int64, int64, int64, int64, int64[::1], uint64[::1], uint64[::1], int32[:, ::1],"
    " int64, float64, int64[:, ::1], int64[:, ::1])",
    cache=True,
)
def negamax(  # type: ignore[no-untyped-def]
    me, opp, depth, alpha, beta, ply, stats, keys_me, keys_opp, info, generation, deadline, buf_move, buf_key
):
    """Value for the side to move (``me``) searched ``depth`` plies deep."""
    stats[0] += 1
    if stats[0] >= stats[3]:
        stats[3] = stats[0] + TIME_CHECK
        if clock() > deadline:
            stats[1] = 1
    if stats[1]:
        return 0
    occupied = me | opp
    if not (me and opp and occupied != FULL):
        return final(me, opp, ply)
    if depth == 0:
        stats[2] = 1
        return popcount(me) - popcount(opp)
    empty = FULL ^ occupied
    clones = dilate(me) & empty
    reach = dilate(clones | me) & empty
    if not reach:
        return -negamax(
            opp,
            me,
            depth - 1,
            -beta,
            -alpha,
            ply + 1,
            stats,
            keys_me,
            keys_opp,
            info,
            generation,
            deadline,
            buf_move,
            buf_key,
        )
    if depth == 1 and empty & (empty - ONE):
        stats[2] = 1
        return best_gain(me, opp, clones, reach, ply)
    slot = _slot(me, opp, U(keys_me.shape[0] - 1))
    tt_move = -1
    if keys_me[slot] == me and keys_opp[slot] == opp and info[slot, 0] == generation:
        tt_move = info[slot, 4]
        if info[slot, 1] >= depth:
            value = _from_table(np.int64(info[slot, 2]), ply)
            if abs(value) <= MATE_BOUND:
                stats[2] = 1
            bound = info[slot, 3]
            if bound == EXACT:
                return value
            if bound == LOWER and value >= beta:
                return value
            if bound == UPPER and value <= alpha:
                return value
    n = 0
    targets = clones
    while targets:
        to = lowest_index(targets)
        targets &= targets - ONE
        code = to * 64 + to
        buf_move[ply, n] = code
        buf_key[ply, n] = 1000 if code == tt_move else popcount(NEIGHBOURS[to] & opp) * 2 + 1
        n += 1
    pieces = me
    while pieces:
        frm = lowest_index(pieces)
        pieces &= pieces - ONE
        targets = JUMP_RING[frm] & empty
        while targets:
            to = lowest_index(targets)
            targets &= targets - ONE
            code = frm * 64 + to
            buf_move[ply, n] = code
            buf_key[ply, n] = 1000 if code == tt_move else popcount(NEIGHBOURS[to] & opp) * 2
            n += 1
    alpha_start = alpha
    best_value = -WIN - 1
    best_move = -1
    for i in range(n):
        pick = i
        for j in range(i + 1, n):
            if buf_key[ply, j] > buf_key[ply, pick]:
                pick = j
        code = buf_move[ply, pick]
        key = buf_key[ply, pick]
        buf_move[ply, pick] = buf_move[ply, i]
        buf_key[ply, pick] = buf_key[ply, i]
        frm = code >> 6
        to = code & 63
        flips = NEIGHBOURS[to] & opp
        to_bit = ONE << U(to)
        source = me if frm == to else me ^ (ONE << U(frm))  # a jump leaves its square
        mine = source | to_bit | flips
        value = alpha + 1
        if depth >= LMR_DEPTH and i >= LMR_AFTER and key <= 2:
            # Late move reduction: a late jump that takes at most one piece is searched a ply
            # shallower with a null window first, and fully only if it beats alpha.
            value = -negamax(
                opp ^ flips,
                mine,
                depth - 2,
                -alpha - 1,
                -alpha,
                ply + 1,
                stats,
                keys_me,
                keys_opp,
                info,
                generation,
                deadline,
                buf_move,
                buf_key,
            )
        if value > alpha:
            value = -negamax(
                opp ^ flips,
                mine,
                depth - 1,
                -beta,
                -alpha,
                ply + 1,
                stats,
                keys_me,
                keys_opp,
                info,
                generation,
                deadline,
                buf_move,
                buf_key,
            )
        if stats[1]:
            return 0
        if value > best_value:
            best_value = value
            best_move = code
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    keys_me[slot] = me
    keys_opp[slot] = opp
    info[slot, 0] = generation
    info[slot, 1] = depth
    info[slot, 2] = _to_table(best_value, ply)
    info[slot, 3] = LOWER if best_value >= beta else UPPER if best_value <= alpha_start else EXACT
    info[slot, 4] = best_move
    return best_value


class Searcher:
    """One search's view of the process-wide table (a new generation) and its counters."""

    _keys_me: np.ndarray | None = None
    # Set together with ``_keys_me`` by the first search of the process.
    _keys_opp: ClassVar[np.ndarray]
    _info: ClassVar[np.ndarray]
    _buf_move: ClassVar[np.ndarray]
    _buf_key: ClassVar[np.ndarray]
    _generation: ClassVar[int]

    def __init__(self, deadline: float) -> None:
        cls = type(self)
        if cls._keys_me is None:
            size = 1 << 19
            cls._keys_me = np.zeros(size, np.uint64)
            cls._keys_opp = np.zeros(size, np.uint64)
            cls._info = np.zeros((size, 5), np.int32)
            cls._buf_move = np.zeros((128, MAX_MOVES), np.int64)
            cls._buf_key = np.zeros((128, MAX_MOVES), np.int64)
            cls._generation = 0
        with LOCK:
            cls._generation += 1
            if cls._generation >= 2**31 - 1:
                cls._info[:, 0] = 0
                cls._generation = 1
            self.generation = cls._generation
        self.deadline = deadline
        self.stats = np.zeros(4, np.int64)

    def value(
        self, me: int, opp: int, depth: int, alpha: int, beta: int, ply: int
    ) -> tuple[int | None, bool]:
        """(negamax value or None when out of time, whether a line stopped at the horizon)."""
        self.stats[2] = 0
        cls = type(self)
        with LOCK:
            value = negamax(
                U(me),
                U(opp),
                depth,
                alpha,
                beta,
                ply,
                self.stats,
                cls._keys_me,
                cls._keys_opp,
                cls._info,
                self.generation,
                self.deadline,
                cls._buf_move,
                cls._buf_key,
            )
        if self.stats[1]:
            return None, True
        return int(value), bool(self.stats[2])

    @property
    def nodes(self) -> int:
        return int(self.stats[0])
