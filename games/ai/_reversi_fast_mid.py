"""Compiled Reversi, the midgame search: ``mid_search``, a fixed-depth principal variation search.

Part of the compiled Reversi core: ``games.ai._reversi_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import ONE, U, clock, lowest_index, popcount
from games.ai._reversi_fast_eval import evaluate, terminal_value
from games.ai._reversi_fast_moves import INF, TIME_CHECK, WEIGHTS, WIN, _slot, flips, legal

# ---------------------------------------------------------------------------
# Midgame search

# ProbCut (Buro's Multi-ProbCut, as Logistello and Edax use it): at a null-window node of depth d a
# search of depth PROBCUT_SHALLOW[d] whose value clears beta (or falls short of alpha) by more than
# ``selectivity`` standard deviations of the difference between the two depths' values is taken as
# the deep search's answer. The shallow depth keeps d's parity (Othello's values swing with the side
# that moved last). The deviations are measured on the learned evaluation, in its unit (1/32 disc),
# per depth and per stage of the game, by bench/reversi_probcut_fit.py; they hold for no other
# evaluation, so only Hard searches selectively.
PROBCUT_MIN_DEPTH = 3
PROBCUT_SHALLOW = np.array([2 * (d // 4) + (d & 1) for d in range(61)], dtype=np.int64)
PROBCUT_STAGES = 3  # 60-41, 40-21 and 20-0 empties
PROBCUT_SIGMA = np.array(
    # Depths 0-2 are never cut; 3-10 as measured (1,800 positions of Medium's self-play, searches to
    # depth 10); deeper depths take depth 10's value (its shallow search is 6 plies below, as for 11-13).
    [
        [0.0] * 3 + [184.0, 134.0, 116.0, 165.0, 139.0, 112.0, 97.0] + [121.0] * 51,
        [0.0] * 3 + [182.0, 144.0, 129.0, 174.0, 157.0, 139.0, 128.0] + [152.0] * 51,
        [0.0] * 3 + [164.0, 159.0, 148.0, 213.0, 202.0, 196.0, 172.0] + [233.0] * 51,
    ],
    dtype=np.float64,
)


@njit(
    "int64(uint64, uint64, int64, int64, int64, int64, int16[:, ::1], int64[::1], uint64[::1], uint64[::1],"
    " int32[:, ::1], int64, float64, int64[:, ::1], int64[:, ::1], int64, float64)",
    cache=True,
)
def mid_search(  # type: ignore[no-untyped-def]
    own,
    opp,
    depth,
    alpha,
    beta,
    kind,
    weights,
    stats,
    keys_own,
    keys_opp,
    info,
    generation,
    deadline,
    buf_sq,
    buf_key,
    ply,
    selectivity,
):
    """Negamax value of the position to ``depth`` plies (a forced pass costs none).

    ``selectivity`` 0 searches every move to the full depth; above 0 it is ProbCut's threshold in
    standard deviations (see PROBCUT_SIGMA): the larger, the fewer cut-offs and the safer.
    """
    stats[0] += 1
    if stats[0] >= stats[3]:
        stats[3] = stats[0] + TIME_CHECK
        if clock() > deadline:
            stats[1] = 1
    if stats[1]:
        return 0
    moves = legal(own, opp)
    if not moves:
        if not legal(opp, own):
            return terminal_value(own, opp)
        return -mid_search(
            opp,
            own,
            depth,
            -beta,
            -alpha,
            kind,
            weights,
            stats,
            keys_own,
            keys_opp,
            info,
            generation,
            deadline,
            buf_sq,
            buf_key,
            ply + 1,
            selectivity,
        )
    if depth <= 0:
        return evaluate(kind, own, opp, weights)
    slot = _slot(own, opp, U(keys_own.shape[0] - 1))
    first = -1
    if keys_own[slot] == own and keys_opp[slot] == opp and info[slot, 0] == generation:
        first = info[slot, 4]
        if info[slot, 1] >= depth:
            lower = np.int64(info[slot, 2])
            upper = np.int64(info[slot, 3])
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            alpha = max(alpha, lower)
            beta = min(beta, upper)
    if selectivity > 0.0 and depth >= PROBCUT_MIN_DEPTH and beta == alpha + 1 and -WIN < alpha < WIN:
        n_empty = popcount(~(own | opp))
        stage = min((60 - n_empty) * PROBCUT_STAGES // 60, PROBCUT_STAGES - 1)
        margin = max(np.int64(selectivity * PROBCUT_SIGMA[stage, depth] + 0.5), np.int64(1))
        shallow = PROBCUT_SHALLOW[depth]
        high = beta + margin
        if high < WIN:
            score = mid_search(
                own,
                opp,
                shallow,
                high - 1,
                high,
                kind,
                weights,
                stats,
                keys_own,
                keys_opp,
                info,
                generation,
                deadline,
                buf_sq,
                buf_key,
                ply,
                selectivity,
            )
            if stats[1]:
                return 0
            if score >= high:
                return beta
        low = alpha - margin
        if low > -WIN:
            score = mid_search(
                own,
                opp,
                shallow,
                low,
                low + 1,
                kind,
                weights,
                stats,
                keys_own,
                keys_opp,
                info,
                generation,
                deadline,
                buf_sq,
                buf_key,
                ply,
                selectivity,
            )
            if stats[1]:
                return 0
            if score <= low:
                return alpha
    n = 0
    while moves:
        sq = lowest_index(moves)
        moves &= moves - ONE
        if sq == first:
            key = -(1 << 30)
        elif depth >= 3:
            f = flips(own, opp, sq)
            key = 8 * popcount(legal(opp ^ f, own | f | (ONE << U(sq)))) - WEIGHTS[sq] // 4
        else:
            key = -WEIGHTS[sq]
        buf_sq[ply, n] = sq
        buf_key[ply, n] = key
        n += 1
    original_alpha = alpha
    best_score = -INF
    best_sq = -1
    for i in range(n):
        pick = i
        for j in range(i + 1, n):
            if buf_key[ply, j] < buf_key[ply, pick]:
                pick = j
        sq = buf_sq[ply, pick]
        buf_sq[ply, pick] = buf_sq[ply, i]
        buf_key[ply, pick] = buf_key[ply, i]
        f = flips(own, opp, sq)
        child_own = opp ^ f
        child_opp = own | f | (ONE << U(sq))
        if best_sq < 0:
            score = -mid_search(
                child_own,
                child_opp,
                depth - 1,
                -beta,
                -alpha,
                kind,
                weights,
                stats,
                keys_own,
                keys_opp,
                info,
                generation,
                deadline,
                buf_sq,
                buf_key,
                ply + 1,
                selectivity,
            )
        else:
            score = -mid_search(
                child_own,
                child_opp,
                depth - 1,
                -alpha - 1,
                -alpha,
                kind,
                weights,
                stats,
                keys_own,
                keys_opp,
                info,
                generation,
                deadline,
                buf_sq,
                buf_key,
                ply + 1,
                selectivity,
            )
            if alpha < score < beta:
                score = -mid_search(
                    child_own,
                    child_opp,
                    depth - 1,
                    -beta,
                    -score,
                    kind,
                    weights,
                    stats,
                    keys_own,
                    keys_opp,
                    info,
                    generation,
                    deadline,
                    buf_sq,
                    buf_key,
                    ply + 1,
                    selectivity,
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
    info[slot, 1] = depth
    if best_score <= original_alpha:
        info[slot, 2] = -INF
        info[slot, 3] = best_score
    elif best_score >= beta:
        info[slot, 2] = best_score
        info[slot, 3] = INF
    else:
        info[slot, 2] = best_score
        info[slot, 3] = best_score
    info[slot, 4] = best_sq
    return best_score
