"""Compiled Reversi, the endgame solver: ``end_solve`` and its null-window layer ``_fastest``.

Part of the compiled Reversi core: ``games.ai._reversi_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import ONE, U, clock, lowest_index
from games.ai._reversi_fast_eval import evaluate_pattern, final_score
from games.ai._reversi_fast_moves import INF, TIME_CHECK, _slot, flips, legal
from games.ai._reversi_fast_shallow import (
    SHALLOW,
    _enter_shallow,
    _order_key,
    _stability_bound,
    _take_best,
)

# ---------------------------------------------------------------------------
# Endgame solver
#
# Layers, from the leaves up; each trick is there because it paid in measurement
# (docs/performance.md, "Othello endgame solver (session 10)"):
# * ``_last_move`` / ``_two``: one and two empties, no move generation at all.
# * ``_shallow`` (3 to SHALLOW empties): the empty squares tried directly, odd
#   quadrants first (parity), no table and no ordering: at this size either costs
#   more than it saves.
# * ``_fastest`` (SHALLOW + 1 to HASH_EMPTIES empties): null window only,
#   fastest-first order, stability cut-off, no table: a probe and a store there
#   cost more than the few transpositions they find.
# * ``end_solve`` (above HASH_EMPTIES, every window wider than one, the root): a
#   transposition table of bounds with the best move, fastest-first order,
#   stability cut-off, principal variation search.

HASH_EMPTIES = 10  # end_solve's table is used above this many empties only


EVAL_SORT_EMPTIES = 15  # from this many empties end_solve orders its moves by a shallow search


@njit("int64(uint64, uint64, int64, int64, int64, int16[:, ::1])", cache=True)
def _order_value(own, opp, depth, alpha, beta, weights):  # type: ignore[no-untyped-def]
    """A ``depth``-ply alpha-beta value on the learned evaluation (1/32 disc), for move ordering.

    Far from the leaves a wrong first move costs a whole subtree, so there a few hundred
    evaluations per node to find the likely best move first pay for themselves; fewest replies
    alone (fastest first) guesses worse there.
    """
    if depth == 0:
        return evaluate_pattern(own, opp, weights)
    moves = legal(own, opp)
    if not moves:
        if not legal(opp, own):
            return 32 * final_score(own, opp)
        return -_order_value(opp, own, depth - 1, -beta, -alpha, weights)
    best = -INF
    while moves:
        sq = lowest_index(moves)
        moves &= moves - ONE
        f = flips(own, opp, sq)
        score = -_order_value(opp ^ f, own | f | (ONE << U(sq)), depth - 1, -beta, -alpha, weights)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best


@njit(cache=True, inline="always")
def _tick(stats, deadline):  # type: ignore[no-untyped-def]
    """Count a node and look at the clock every TIME_CHECK nodes; True once past the deadline."""
    stats[0] += 1
    if stats[0] >= stats[3]:
        stats[3] = stats[0] + TIME_CHECK
        if clock() > deadline:
            stats[1] = 1
    return stats[1] != 0


@njit(
    "int64(uint64, uint64, int64, int64, int64[::1], float64, int64[:, ::1], int64[:, ::1], uint64[:, ::1])",
    cache=True,
)
def _fastest(own, opp, alpha, n_empty, stats, deadline, buf_sq, buf_key, buf_flip):  # type: ignore[no-untyped-def]
    """Null window (alpha, alpha + 1), fail-soft, for SHALLOW + 1 to HASH_EMPTIES empties."""
    if _tick(stats, deadline):
        return 0
    bound = _stability_bound(own, opp, alpha, n_empty)
    if bound <= alpha:
        return bound
    moves = legal(own, opp)
    if not moves:
        if not legal(opp, own):
            return final_score(own, opp)
        return -_fastest(opp, own, -alpha - 1, n_empty, stats, deadline, buf_sq, buf_key, buf_flip)
    n = 0
    single = not moves & (moves - ONE)
    while moves:
        sq = lowest_index(moves)
        moves &= moves - ONE
        f = flips(own, opp, sq)
        buf_sq[n_empty, n] = sq
        buf_flip[n_empty, n] = f
        # A single move needs no ordering (a forced move is common this close to the end).
        buf_key[n_empty, n] = 0 if single else _order_key(own, opp, sq, f)
        n += 1
    best = -65
    for i in range(n):
        sq, f = _take_best(buf_sq, buf_key, buf_flip, n_empty, i, n)
        child_own = opp ^ f
        child_opp = own | f | (ONE << U(sq))
        if n_empty - 1 <= SHALLOW:
            score = -_enter_shallow(child_own, child_opp, -alpha - 1, -alpha, n_empty - 1, stats)
        else:
            score = -_fastest(
                child_own, child_opp, -alpha - 1, n_empty - 1, stats, deadline, buf_sq, buf_key, buf_flip
            )
        if stats[1]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                return best
    return best


@njit(
    "int64(uint64, uint64, int64, int64, int64, int64[::1], uint64[::1], uint64[::1], int32[:, ::1], int64,"
    " float64, int64[:, ::1], int64[:, ::1], uint64[:, ::1], int16[:, ::1])",
    cache=True,
)
def end_solve(  # type: ignore[no-untyped-def]
    own,
    opp,
    alpha,
    beta,
    n_empty,
    stats,
    keys_own,
    keys_opp,
    info,
    generation,
    deadline,
    buf_sq,
    buf_key,
    buf_flip,
    weights,
):
    """Exact final disc difference within (alpha, beta), else a bound; best square in ``stats[2]``."""
    if n_empty <= SHALLOW:
        stats[2] = -1
        score = _enter_shallow(own, opp, alpha, beta, n_empty, stats)
        return score
    if _tick(stats, deadline):
        return 0
    moves = legal(own, opp)
    if not moves:
        if not legal(opp, own):
            stats[2] = -1
            return final_score(own, opp)
        score = -end_solve(
            opp,
            own,
            -beta,
            -alpha,
            n_empty,
            stats,
            keys_own,
            keys_opp,
            info,
            generation,
            deadline,
            buf_sq,
            buf_key,
            buf_flip,
            weights,
        )
        stats[2] = -1
        return score
    bound = _stability_bound(own, opp, alpha, n_empty)
    if bound <= alpha:
        stats[2] = lowest_index(moves)
        return bound
    slot = _slot(own, opp, U(keys_own.shape[0] - 1))
    first = -1
    if keys_own[slot] == own and keys_opp[slot] == opp and info[slot, 0] == generation:
        first = info[slot, 4]
        lower = np.int64(info[slot, 2])
        upper = np.int64(info[slot, 3])
        if lower >= beta:
            stats[2] = first
            return lower
        if upper <= alpha:
            stats[2] = first
            return upper
        alpha = max(alpha, lower)
        beta = min(beta, upper)
    n = 0
    while moves:
        sq = lowest_index(moves)
        moves &= moves - ONE
        f = flips(own, opp, sq)
        buf_sq[n_empty, n] = sq
        buf_flip[n_empty, n] = f
        if sq == first:
            key = -(1 << 30)
        elif n_empty >= EVAL_SORT_EMPTIES:
            # The opponent's value after the move, deeper further from the end.
            depth = 1 if n_empty < 19 else (2 if n_empty < 22 else 3)
            # plus fastest first (about a disc a reply), which still finds wipe-outs best.
            key = _order_value(opp ^ f, own | f | (ONE << U(sq)), depth, -INF, INF, weights)
            key += 2 * _order_key(own, opp, sq, f)
        else:
            key = _order_key(own, opp, sq, f)
        buf_key[n_empty, n] = key
        n += 1
    original_alpha = alpha
    best_score = -65
    best_sq = -1
    for i in range(n):
        sq, f = _take_best(buf_sq, buf_key, buf_flip, n_empty, i, n)
        child_own = opp ^ f
        child_opp = own | f | (ONE << U(sq))
        if best_sq < 0 and beta - alpha > 1:
            score = -end_solve(
                child_own,
                child_opp,
                -beta,
                -alpha,
                n_empty - 1,
                stats,
                keys_own,
                keys_opp,
                info,
                generation,
                deadline,
                buf_sq,
                buf_key,
                buf_flip,
                weights,
            )
        else:
            # Null window: the table only where it pays, then the cheaper layers.
            if n_empty - 1 > HASH_EMPTIES:
                score = -end_solve(
                    child_own,
                    child_opp,
                    -alpha - 1,
                    -alpha,
                    n_empty - 1,
                    stats,
                    keys_own,
                    keys_opp,
                    info,
                    generation,
                    deadline,
                    buf_sq,
                    buf_key,
                    buf_flip,
                    weights,
                )
            elif n_empty - 1 > SHALLOW:
                score = -_fastest(
                    child_own, child_opp, -alpha - 1, n_empty - 1, stats, deadline, buf_sq, buf_key, buf_flip
                )
            else:
                score = -_enter_shallow(child_own, child_opp, -alpha - 1, -alpha, n_empty - 1, stats)
            if alpha < score < beta:
                score = -end_solve(
                    child_own,
                    child_opp,
                    -beta,
                    -score,
                    n_empty - 1,
                    stats,
                    keys_own,
                    keys_opp,
                    info,
                    generation,
                    deadline,
                    buf_sq,
                    buf_key,
                    buf_flip,
                    weights,
                )
        if stats[1]:
            return 0
        if score > best_score:
            best_score = score
            best_sq = sq
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    keys_own[slot] = own
    keys_opp[slot] = opp
    info[slot, 0] = generation
    info[slot, 1] = n_empty
    if best_score <= original_alpha:
        info[slot, 2] = -64
        info[slot, 3] = best_score
    elif best_score >= beta:
        info[slot, 2] = best_score
        info[slot, 3] = 64
    else:
        info[slot, 2] = best_score
        info[slot, 3] = best_score
    info[slot, 4] = best_sq
    stats[2] = best_sq
    return best_score
