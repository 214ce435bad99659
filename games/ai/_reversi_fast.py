"""Compiled (numba) Reversi core: move generation, evaluations, midgame search and endgame solver.

The same algorithms as the pure-Python code in :mod:`games.ai.reversi` (which
stays the fallback and the reference), on uint64 bitboards in nopython mode:

* ``legal(own, opp)`` / ``flips(own, opp, sq)``: as ``games.engines.reversi``'s
  ``legal_mask`` / ``flips``; tests compare them on random games and by perft.
* ``evaluate_pattern``: Hard's learned evaluation, on the weights that
  ``pattern_array()`` reads from the same file as the Python code; a test
  compares the two on random positions.
* ``mid_search``: negamax principal variation search to a fixed depth with a
  transposition table (entries tagged with a generation, so every search starts
  afresh and a seed gives the same move again), the table move first, then
  fastest-first ordering (fewest replies) near the root and square-value
  order near the leaves.
* ``end_solve``: exact endgame negamax with a transposition table of bounds
  above 10 empties, the table move first, then (from 15 empties) a shallow
  search on the learned evaluation or (below) fastest-first ordering,
  principal variation search, a stability cut-off; from 10 empties down a
  null-window search without the table, and for the last few empties a
  parity-ordered loop. The pure-Python solver is simpler (no stability cut-off,
  no evaluation ordering) and gives the same scores; tests compare them.

Both check the clock every few thousand nodes and give up at ``deadline`` (a
``time.perf_counter()`` value) by setting ``stats[1]``; the caller then throws
the result away. ``stats[0]`` counts nodes; ``stats[2]`` holds the best square
of the outermost call (-1 for a pass or a finished game); ``stats[3]`` is the
node count at which to look at the clock next.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai import _reversi_tables as _tables
from games.ai._bits import LOCK, ONE, ZERO, U, clock, highest_index, lowest_index, popcount

FULL = U(0xFFFFFFFFFFFFFFFF)
NOT_A = U(0xFEFEFEFEFEFEFEFE)
NOT_H = U(0x7F7F7F7F7F7F7F7F)
INNER = U(0x7E7E7E7E7E7E7E7E)
CORNERS = U(0x8100000000000081)
COL_A = U(0x0101010101010101)
COLUMN_MAGIC = U(0x0102040810204080)

WIN = 10_000
INF = 10 * WIN
SHALLOW = 6  # the endgame solver's parity loop takes over at this many empties
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


def _eval_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from games.ai import _reversi_tables as py

    x_table = np.array(py._X_BY_EMPTY_CORNERS, dtype=np.uint64)
    c_table = np.array(py._C_BY_EMPTY_CORNERS, dtype=np.uint64)
    reversed_bytes = np.array(py._REVERSED, dtype=np.int64)
    class_weights = np.array([w for w, _ in py._WEIGHTED_CLASSES], dtype=np.int64)
    class_masks = np.array([m for _, m in py._WEIGHTED_CLASSES], dtype=np.uint64)
    return x_table, c_table, reversed_bytes, class_weights, class_masks


X_BY_EMPTY_CORNERS, C_BY_EMPTY_CORNERS, REVERSED, CLASS_WEIGHTS, CLASS_MASKS = _eval_tables()


def _pattern_layout() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The learned evaluation's 46 pattern instances: table offsets, sizes, squares (padded)."""
    from games.ai import _reversi_tables as py

    instances = py.PATTERN_INSTANCES
    offsets = np.array([offset for offset, _ in instances], dtype=np.int64)
    sizes = np.array([len(squares) for _, squares in instances], dtype=np.int64)
    squares = np.zeros((len(instances), max(sizes)), dtype=np.int64)
    for i, (_, instance) in enumerate(instances):
        squares[i, : len(instance)] = instance
    return offsets, sizes, squares


# The pattern layout is code, frozen into the compiled functions like the tables above; numba's
# cache is keyed on this file only, so a change to the layout in _reversi_tables.py must come
# with a change here (the version in the weights file's name, say). The weights are data and
# reach the compiled code as an argument.
PATTERN_OFFSETS, PATTERN_SIZES, PATTERN_SQUARES = _pattern_layout()
MOBILITY_OWN = _tables.MOBILITY_OWN
MOBILITY_OPP = _tables.MOBILITY_OPP
MOBILITY_CAP = _tables.MOBILITY_CAP
PATTERN_BIAS = _tables.BIAS
EVAL_LIMIT = _tables.EVAL_LIMIT


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
# Evaluations


@njit(cache=True)
def final_score(own: np.uint64, opp: np.uint64) -> int:
    diff = popcount(own) - popcount(opp)
    empties = 64 - popcount(own | opp)
    if diff > 0:
        return diff + empties
    if diff < 0:
        return diff - empties
    return 0


@njit(cache=True)
def terminal_value(own: np.uint64, opp: np.uint64) -> int:
    score = final_score(own, opp)
    if score > 0:
        return WIN + score
    if score < 0:
        return -WIN + score
    return 0


@njit(cache=True)
def _anchored(edge: int | np.int64) -> int:
    low = ((edge ^ (edge + 1)) >> 1) & edge
    if low == 0xFF:
        return 8
    rev = REVERSED[edge]
    high = ((rev ^ (rev + 1)) >> 1) & rev
    return popcount(U(low)) + popcount(U(high))


@njit(cache=True)
def _column_byte(mask: np.uint64, col: int) -> np.int64:
    return np.int64(((mask >> U(col)) & COL_A) * COLUMN_MAGIC >> U(56))


@njit(cache=True)
def _edge_anchors(own: np.uint64) -> int:
    if not own & CORNERS:
        return 0
    return (
        _anchored(np.int64(own & U(0xFF)))
        + _anchored(np.int64(own >> U(56)))
        + _anchored(_column_byte(own, 0))
        + _anchored(_column_byte(own, 7))
    )


@njit(cache=True)
def evaluate_hard(own: np.uint64, opp: np.uint64) -> int:
    """The same function as ``games.ai.reversi.evaluate_hard``."""
    empty = ~(own | opp)
    n_empty = popcount(empty)
    own_moves = popcount(legal(own, opp))
    opp_moves = popcount(legal(opp, own))
    score = (60 * (own_moves - opp_moves)) // (own_moves + opp_moves + 2)
    score += 30 * (popcount(own & CORNERS) - popcount(opp & CORNERS))
    corners = empty & CORNERS
    index = np.int64(
        (corners & ONE) | (corners >> U(6) & U(2)) | (corners >> U(54) & U(4)) | (corners >> U(60) & U(8))
    )
    x_sq = X_BY_EMPTY_CORNERS[index]
    c_sq = C_BY_EMPTY_CORNERS[index]
    score -= 15 * (popcount(own & x_sq) - popcount(opp & x_sq))
    score -= 5 * (popcount(own & c_sq) - popcount(opp & c_sq))
    frontier = neighbours(empty)
    score -= 2 * (popcount(own & frontier) - popcount(opp & frontier))
    score += 6 * (_edge_anchors(own) - _edge_anchors(opp))
    if n_empty <= 16:
        score += (16 - n_empty) * (popcount(own) - popcount(opp)) // 4
    return score


@njit(cache=True)
def evaluate_medium(own: np.uint64, opp: np.uint64) -> int:
    """The same function as ``games.ai.reversi.evaluate_medium``."""
    score = 0
    for i in range(CLASS_WEIGHTS.shape[0]):
        squares = CLASS_MASKS[i]
        score += CLASS_WEIGHTS[i] * (popcount(own & squares) - popcount(opp & squares))
    score += 5 * (popcount(legal(own, opp)) - popcount(legal(opp, own)))
    return score


@njit(cache=True)
def evaluate_pattern(own: np.uint64, opp: np.uint64, weights: np.ndarray) -> int:
    """The same function as ``games.ai.reversi.evaluate_learned``, on ``weights`` (phases x table slots).

    The weights come in as an argument, not as a global: numba would freeze a global array into
    the cached machine code, which then would not see a new weights file.
    """
    n_empty = popcount(~(own | opp))
    n_phases = weights.shape[0]
    phase = min(max((60 - n_empty) * n_phases // 60, 0), n_phases - 1)
    score = np.int64(weights[phase, PATTERN_BIAS])
    for i in range(PATTERN_SQUARES.shape[0]):
        index = np.int64(0)
        for j in range(PATTERN_SIZES[i]):
            sq = U(PATTERN_SQUARES[i, j])
            index = index * 3 + np.int64((own >> sq) & ONE) + 2 * np.int64((opp >> sq) & ONE)
        score += weights[phase, PATTERN_OFFSETS[i] + index]
    score += weights[phase, MOBILITY_OWN + min(popcount(legal(own, opp)), MOBILITY_CAP)]
    score += weights[phase, MOBILITY_OPP + min(popcount(legal(opp, own)), MOBILITY_CAP)]
    return int(max(-EVAL_LIMIT, min(EVAL_LIMIT, score)))


@njit(cache=True)
def evaluate(kind: int, own: np.uint64, opp: np.uint64, weights: np.ndarray) -> int:
    if kind == 0:
        return evaluate_medium(own, opp)
    if kind == 1:
        return evaluate_hard(own, opp)
    return evaluate_pattern(own, opp, weights)


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


# ---------------------------------------------------------------------------
# Midgame search


@njit(
    "int64(uint64, uint64, int64, int64, int64, int64, int16[:, ::1], int64[::1], uint64[::1], uint64[::1],"
    " int32[:, ::1], int64, float64, int64[:, ::1], int64[:, ::1], int64)",
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
):
    """Negamax value of the position to ``depth`` plies (a forced pass costs none)."""
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


# ---------------------------------------------------------------------------
# Python-facing wrappers (one set of tables per process, reused move after move)


class Tables:
    """The scratch arrays and tables one search uses; ``next_generation`` empties a table in O(1)."""

    def __init__(self, bits: int) -> None:
        self.keys_own, self.keys_opp, self.info = new_table(bits)
        self.generation = 0
        self.buf_sq = np.zeros((130, 40), np.int64)
        self.buf_key = np.zeros((130, 40), np.int64)
        self.buf_flip = np.zeros((130, 40), np.uint64)

    def next_generation(self) -> int:
        with LOCK:
            self.generation += 1
            if self.generation >= 2**31 - 1:
                self.info[:, 0] = 0
                self.generation = 1
            return self.generation


_MID_TABLES: Tables | None = None
_END_TABLES: Tables | None = None


def mid_tables() -> Tables:
    global _MID_TABLES
    if _MID_TABLES is None:
        _MID_TABLES = Tables(19)
    return _MID_TABLES


def end_tables() -> Tables:
    global _END_TABLES
    if _END_TABLES is None:
        _END_TABLES = Tables(20)
    return _END_TABLES


def solve(own: int, opp: int, alpha: int, beta: int, deadline: float) -> tuple[int, int, int, bool]:
    """(score, best square or -1, nodes, timed out) for the side to move; a fresh table each call."""
    tables = end_tables()
    generation = tables.next_generation()
    stats = np.zeros(4, np.int64)
    own_u, opp_u = U(own), U(opp)
    n_empty = 64 - popcount_py(own | opp)
    with LOCK:
        score = end_solve(
            own_u,
            opp_u,
            alpha,
            beta,
            n_empty,
            stats,
            tables.keys_own,
            tables.keys_opp,
            tables.info,
            generation,
            deadline,
            tables.buf_sq,
            tables.buf_key,
            tables.buf_flip,
            pattern_array(),
        )
    best = int(stats[2])
    if n_empty <= SHALLOW:
        best = _shallow_root_move(own_u, opp_u, int(score))
    return int(score), best, int(stats[0]), bool(stats[1])


def _shallow_root_move(own: np.uint64, opp: np.uint64, score: int) -> int:
    """With very few empties the parity loop names no move: find one that reaches ``score``."""
    moves = int(legal(own, opp))
    stats = np.zeros(4, np.int64)
    n_empty = 64 - popcount_py(int(own | opp))
    while moves:
        bit = moves & -moves
        moves ^= bit
        sq = bit.bit_length() - 1
        f = flips(own, opp, sq)
        child = -_enter_shallow(opp ^ f, own | f | U(bit), -65, 65, n_empty - 1, stats)
        if child == score:
            return sq
    return -1


_PATTERN_ARRAY: np.ndarray | None = None


def pattern_array() -> np.ndarray:
    """The committed weights file's tables as one int16 array (phases x slots), read once."""
    global _PATTERN_ARRAY
    if _PATTERN_ARRAY is None:
        _PATTERN_ARRAY = np.array(_tables.pattern_weights().tables, dtype=np.int16)
    return _PATTERN_ARRAY


def evaluate_learned(own: int, opp: int) -> int:
    """Hard's learned evaluation on the committed weights (for tests and the training script)."""
    return int(evaluate_pattern(U(own), U(opp), pattern_array()))


def popcount_py(x: int) -> int:
    return int(x).bit_count()


class MidSearch:
    """Fixed-depth searches sharing one table generation (one iterative deepening run)."""

    def __init__(self, kind: int, deadline: float) -> None:
        self.tables = mid_tables()
        self.generation = self.tables.next_generation()
        self.kind = kind
        self.weights = pattern_array()
        self.deadline = deadline
        self.stats = np.zeros(4, np.int64)

    @property
    def nodes(self) -> int:
        return int(self.stats[0])

    def value(self, own: int, opp: int, depth: int, alpha: int, beta: int) -> int | None:
        """Negamax value, or None when the deadline passed first."""
        t = self.tables
        with LOCK:
            score = mid_search(
                U(own),
                U(opp),
                depth,
                alpha,
                beta,
                self.kind,
                self.weights,
                self.stats,
                t.keys_own,
                t.keys_opp,
                t.info,
                self.generation,
                self.deadline,
                t.buf_sq,
                t.buf_key,
                0,
            )
        if self.stats[1]:
            return None
        return int(score)
