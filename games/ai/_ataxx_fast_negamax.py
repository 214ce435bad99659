"""Compiled Ataxx, below the root: the search's constants and weights, the evaluation, ``negamax``.

Part of the compiled Ataxx core: ``games.ai._ataxx_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._ataxx_fast_moves import EDGE, FULL, JUMP_RING, NEIGHBOURS, dilate
from games.ai._bits import ONE, U, clock, lowest_index, popcount

WIN = 100_000
MATE_BOUND = WIN - 1_000
INF = WIN + 1
EXACT, LOWER, UPPER = 0, 1, 2
TIME_CHECK = 1024
MAX_PLY = 128
MAX_MOVES = 640
# Evaluation weights (centipieces): piece, share of the mover's best immediate gain (per 100),
# piece next to an empty square, piece on the edge.
PIECE, GAIN_SHARE, EXPOSED, EDGE_BONUS = 0, 1, 2, 3
PARAMS = np.array([100, 50, 6, 4], dtype=np.int64)
# Selectivity (off the principal variation only).
NULL_MIN_DEPTH = 3
NULL_MIN_EMPTY = 8  # near the end a pass can be the best move: no null move then
JUMP_PRUNE_DEPTH = 3  # at this depth and below, a jump taking fewer than ...
JUMP_PRUNE_CAPTURES = 2  # ... this many pieces is not searched
LMR_MIN_DEPTH = 3
LMR_AFTER = 2
ASPIRATION = 40


@njit(cache=True)
def best_gain(me: np.uint64, opp: np.uint64) -> int:
    """The mover's best immediate change in piece difference (2 a capture, 1 a clone); 0 without a move."""
    empty = FULL ^ (me | opp)
    near = dilate(me)
    clones = near & empty
    best = 1 if clones else 0
    targets = dilate(opp) & empty & dilate(near)
    while targets:
        to = lowest_index(targets)
        targets &= targets - ONE
        gain = 2 * popcount(NEIGHBOURS[to] & opp)
        if (clones >> U(to)) & ONE:
            gain += 1
        if gain > best:
            best = gain
    return best


@njit(cache=True)
def evaluate(me: np.uint64, opp: np.uint64, params: np.ndarray) -> int:
    """Static value for the mover of a position that is not over (see the module docstring)."""
    empty = FULL ^ (me | opp)
    exposed = dilate(empty)
    value: int = params[PIECE] * (popcount(me) - popcount(opp))
    value -= params[EXPOSED] * (popcount(me & exposed) - popcount(opp & exposed))
    value += params[EDGE_BONUS] * (popcount(me & EDGE) - popcount(opp & EDGE))
    if params[GAIN_SHARE]:
        value += params[GAIN_SHARE] * best_gain(me, opp) * params[PIECE] // 100
    return value


@njit(cache=True)
def final(me: np.uint64, opp: np.uint64, ply: int) -> int:
    diff = popcount(me) - popcount(opp)
    if diff > 0:
        return WIN - ply
    if diff < 0:
        return -WIN + ply
    return 0


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
    "int64(uint64, uint64, int64, int64, int64, int64, boolean, boolean, int64[::1], uint64[::1], uint64[::1],"
    " int32[:, ::1], int64, float64, int64[:, ::1], int64[:, ::1], int64[::1], int64[:, ::1], int64[::1])",
    cache=True,
)
def negamax(  # type: ignore[no-untyped-def]
    me,
    opp,
    depth,
    alpha,
    beta,
    ply,
    null_ok,
    selective,
    stats,
    keys_me,
    keys_opp,
    info,
    generation,
    deadline,
    buf_move,
    buf_key,
    history,
    killers,
    params,
):
    """Value for the side to move (``me``) searched ``depth`` plies deep (fail-soft)."""
    # Booleans known only at run time: a literal True/False argument in a recursive call
    # breaks numba's on-disk cache of this function ("symbol not found" when loading it).
    yes = stats[0] >= 0
    no = not yes
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
    if depth <= 0 or ply >= MAX_PLY - 1:
        stats[2] = 1
        return evaluate(me, opp, params)
    empty = FULL ^ occupied
    near = dilate(me)
    clones = near & empty
    if not (dilate(near) & empty):
        # A forced pass (the opponent can always move then).
        return -negamax(
            opp, me, depth - 1, -beta, -alpha, ply + 1, yes, selective, stats, keys_me, keys_opp, info,
            generation, deadline, buf_move, buf_key, history, killers, params,
        )  # fmt: skip
    pv_node = beta - alpha > 1
    slot = _slot(me, opp, U(keys_me.shape[0] - 1))
    tt_move = -1
    if keys_me[slot] == me and keys_opp[slot] == opp and info[slot, 0] == generation:
        tt_move = info[slot, 4]
        if info[slot, 1] >= depth and not pv_node:
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
    empties = popcount(empty)
    if (
        selective
        and not pv_node
        and null_ok
        and depth >= NULL_MIN_DEPTH
        and empties >= NULL_MIN_EMPTY
        and abs(beta) < MATE_BOUND
        and evaluate(me, opp, params) >= beta
    ):
        stats[2] = 1
        reduce = 3 + depth // 4
        value = -negamax(
            opp, me, depth - reduce, -beta, -beta + 1, ply + 1, no, selective, stats, keys_me, keys_opp,
            info, generation, deadline, buf_move, buf_key, history, killers, params,
        )  # fmt: skip
        if stats[1]:
            return 0
        if value >= beta:
            return value if value < MATE_BOUND else beta
    killer0 = killers[ply, 0]
    killer1 = killers[ply, 1]
    n = 0
    targets = clones
    while targets:
        to = lowest_index(targets)
        targets &= targets - ONE
        code = to * 64 + to
        buf_move[ply, n] = code
        if code == tt_move:
            key = 1 << 40
        else:
            key = (popcount(NEIGHBOURS[to] & opp) * 2 + 1) << 24
            if code in (killer0, killer1):
                key += 1 << 23
            key += history[code]
        buf_key[ply, n] = key
        n += 1
    prune_jumps = selective and not pv_node and depth <= JUMP_PRUNE_DEPTH and n > 0
    pieces = me
    while pieces:
        frm = lowest_index(pieces)
        pieces &= pieces - ONE
        targets = JUMP_RING[frm] & empty
        while targets:
            to = lowest_index(targets)
            targets &= targets - ONE
            code = frm * 64 + to
            captures = popcount(NEIGHBOURS[to] & opp)
            if code == tt_move:
                key = 1 << 40
            else:
                if prune_jumps and captures < JUMP_PRUNE_CAPTURES:
                    stats[2] = 1
                    continue
                key = (captures * 2) << 24
                if code in (killer0, killer1):
                    key += 1 << 23
                key += history[code]
            buf_move[ply, n] = code
            buf_key[ply, n] = key
            n += 1
    alpha_start = alpha
    best_value = -INF
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
        source = me if frm == to else me ^ (ONE << U(frm))
        mine = source | (ONE << U(to)) | flips
        theirs = opp ^ flips
        if i == 0:
            value = -negamax(
                theirs, mine, depth - 1, -beta, -alpha, ply + 1, yes, selective, stats, keys_me, keys_opp,
                info, generation, deadline, buf_move, buf_key, history, killers, params,
            )  # fmt: skip
        else:
            reduce = 0
            if selective and depth >= LMR_MIN_DEPTH and i >= LMR_AFTER and key < (1 << 40):
                # Late moves are searched shallower first (more so the later, and jumps that take
                # little), again at full depth only if they beat alpha.
                if i < 6:
                    reduce = 1
                elif i < 12:
                    reduce = depth // 3
                else:
                    reduce = depth // 2
                if frm != to and key < (3 << 24):
                    reduce += 1
                if pv_node and reduce > 1:
                    reduce -= 1
                if reduce > depth - 1:
                    reduce = depth - 1
                stats[2] = 1
            value = -negamax(
                theirs, mine, depth - 1 - reduce, -alpha - 1, -alpha, ply + 1, yes, selective, stats,
                keys_me, keys_opp, info, generation, deadline, buf_move, buf_key, history, killers, params,
            )  # fmt: skip
            if value > alpha and reduce > 0:
                value = -negamax(
                    theirs, mine, depth - 1, -alpha - 1, -alpha, ply + 1, yes, selective, stats, keys_me,
                    keys_opp, info, generation, deadline, buf_move, buf_key, history, killers, params,
                )  # fmt: skip
            if value > alpha and value < beta:
                value = -negamax(
                    theirs, mine, depth - 1, -beta, -alpha, ply + 1, yes, selective, stats, keys_me, keys_opp,
                    info, generation, deadline, buf_move, buf_key, history, killers, params,
                )  # fmt: skip
        if stats[1]:
            return 0
        if value > best_value:
            best_value = value
            best_move = code
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    if key < (1 << 40) and code != killer0:
                        killers[ply, 1] = killer0
                        killers[ply, 0] = code
                    history[code] = min(history[code] + depth * depth, (1 << 23) - 1)
                    break
    if best_move < 0:
        # Every move was pruned (cannot happen: a clone is never pruned); keep a sane value.
        return evaluate(me, opp, params)
    keys_me[slot] = me
    keys_opp[slot] = opp
    info[slot, 0] = generation
    info[slot, 1] = depth
    info[slot, 2] = _to_table(best_value, ply)
    info[slot, 3] = LOWER if best_value >= beta else UPPER if best_value <= alpha_start else EXACT
    info[slot, 4] = best_move
    return best_value
