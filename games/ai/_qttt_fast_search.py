"""Compiled Quantum Tic-Tac-Toe, the search: the evaluation, the position key, symmetries,
move ordering, the principal variation search and its iterative deepening (``deepen``).

Part of the compiled Quantum Tic-Tac-Toe core: ``games.ai._qttt_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai import quantum_ttt_eval, quantum_ttt_search
from games.ai._bits import clock
from games.ai._qttt_fast_moves import (
    DRAW,
    LINES,
    PENDING,
    RUNNING,
    STATE_SIZE,
    A,
    B,
    moves,
    outcome,
    play,
    to_move,
)

WIN = quantum_ttt_search.WIN
SOLVED = quantum_ttt_search.SOLVED
EXACT, LOWER, UPPER = quantum_ttt_search.EXACT, quantum_ttt_search.LOWER, quantum_ttt_search.UPPER
# The evaluation's weights (``games.ai.quantum_ttt_eval.EVAL``).
W_ONE, W_TWO, W_SPOOKY, W_THREAT, W_SQUARE = quantum_ttt_eval.EVAL
WEIGHT = np.array(quantum_ttt_eval.WEIGHT, dtype=np.int64)
# The seven symmetries of the square other than the identity, as permutations of squares 0..9.
SYMMETRIES = np.array(quantum_ttt_search.SYMMETRIES, dtype=np.int64)

# Search context (``ctx``): counters, then the history of cut-off moves by move code.
NODES, HORIZON, TIMEOUT, HISTORY = 0, 1, 2, 8
CTX_SIZE = HISTORY + 110
# Transposition table entry fields (``tt_data`` columns).
T_DEPTH, T_FLAG, T_VALUE, T_MOVE = 0, 1, 2, 3

_zobrist = np.random.default_rng(20261130).integers(1, 2**63 - 1, size=(2, 10, 100), dtype=np.int64)
# Z_CLASSICAL[square, move number] and Z_SPOOKY[move number, 10 * a + b]; Z_PENDING for a pending collapse.
Z_CLASSICAL = _zobrist[0, :, :10].astype(np.uint64).copy()
Z_SPOOKY = _zobrist[1].astype(np.uint64).copy()
Z_PENDING = np.uint64(0x5BD1E9955BD1E995)
Z_BASE = np.uint64(0x9E3779B97F4A7C15)  # so that no position (the empty board included) hashes to 0


# ---------------------------------------------------------------------------
# Evaluation


@njit(cache=True)
def evaluate(s: np.ndarray, side: int) -> int:
    """Static score of a quiet position for ``side`` (``games.ai.quantum_ttt_eval.evaluate``)."""
    own_x = 0
    own_o = 0
    for sq in range(1, 10):
        if s[sq]:
            if s[sq] & 1:
                own_x |= 1 << sq
            else:
                own_o |= 1 << sq
    value = 0
    per_x = np.zeros(10, np.int64)
    per_o = np.zeros(10, np.int64)
    for k in range(8):
        line = (1 << LINES[k, 0]) | (1 << LINES[k, 1]) | (1 << LINES[k, 2])
        for side_ in range(2):
            mine_mask, theirs_mask = (own_x, own_o) if side_ == 0 else (own_o, own_x)
            if theirs_mask & line:
                continue  # the opponent already holds a square of it: dead for this side
            mine = 0
            for t in range(3):
                mine += (mine_mask >> LINES[k, t]) & 1
            worth = W_ONE if mine == 1 else W_TWO if mine == 2 else 0
            value += worth if side_ == 0 else -worth
            bonus = W_SPOOKY + (W_THREAT if mine == 2 else 0)
            for t in range(3):
                sq = LINES[k, t]
                if not s[sq]:
                    if side_ == 0:
                        per_x[sq] += bonus
                    else:
                        per_o[sq] += bonus
    for sq in range(1, 10):
        if s[sq]:
            value += W_SQUARE * WEIGHT[sq] if s[sq] & 1 else -W_SQUARE * WEIGHT[sq]
    for m in range(1, 10):
        a = s[A + m]
        if a:
            b = s[B + m]
            if m & 1:
                value += per_x[a] + per_x[b]
            else:
                value -= per_o[a] + per_o[b]
    return value if side == 0 else -value


# ---------------------------------------------------------------------------
# Search


@njit(cache=True)
def position_key(s: np.ndarray) -> np.uint64:
    """Zobrist key of a position (classical marks, spooky marks, pending collapse)."""
    key = Z_BASE
    for sq in range(1, 10):
        if s[sq]:
            key ^= Z_CLASSICAL[sq, s[sq]]
    for m in range(1, 10):
        if s[A + m]:
            key ^= Z_SPOOKY[m, 10 * s[A + m] + s[B + m]]
    if s[PENDING]:
        key ^= Z_PENDING
    return key


@njit(cache=True)
def _maps_to_itself(s: np.ndarray, g: np.ndarray) -> bool:
    for sq in range(1, 10):
        if s[g[sq]] != s[sq]:
            return False
    for m in range(1, 10):
        a = s[A + m]
        if a:
            # Mark m's image must be mark m itself: a move number labels one pair only.
            x, y = g[a], g[s[B + m]]
            if a != min(x, y) or s[B + m] != max(x, y):
                return False
    return True


@njit(cache=True)
def _distinct(s: np.ndarray, out: np.ndarray, n: int) -> int:
    """Keep one move per class of moves a symmetry of the position maps onto each other."""
    if s[PENDING] or n < 2:
        return n
    syms = np.empty(7, np.int64)
    n_syms = 0
    for i in range(SYMMETRIES.shape[0]):
        if _maps_to_itself(s, SYMMETRIES[i]):
            syms[n_syms] = i
            n_syms += 1
    if not n_syms:
        return n
    seen = np.zeros(100, np.bool_)
    kept = 0
    for i in range(n):
        code = out[i]
        if seen[code]:
            continue
        out[kept] = code
        kept += 1
        if code >= 10:
            a, b = code // 10, code % 10
            for j in range(n_syms):
                g = SYMMETRIES[syms[j]]
                x, y = g[a], g[b]
                seen[10 * min(x, y) + max(x, y)] = True
    return kept


@njit(cache=True)
def _order(s: np.ndarray, out: np.ndarray, n: int, first: int, ctx: np.ndarray, order: np.ndarray) -> None:
    """Best first: ``first`` (the table's move), then by square weights and the cut-off history."""
    if not s[PENDING]:
        keys = np.empty(n, np.float64)
        for i in range(n):
            keys[i] = order[out[i]] - ctx[HISTORY + out[i]]
        # Insertion sort, stable (Python's sort): at most 36 moves.
        for i in range(1, n):
            code, key = out[i], keys[i]
            j = i - 1
            while j >= 0 and keys[j] > key:
                out[j + 1] = out[j]
                keys[j + 1] = keys[j]
                j -= 1
            out[j + 1] = code
            keys[j + 1] = key
    if first > 0:
        for i in range(n):
            if out[i] == first:
                for j in range(i, 0, -1):
                    out[j] = out[j - 1]
                out[0] = first
                break


@njit(
    "int64(int64[::1], int64, int64, int64, int64, uint64[::1], int64[:, ::1], int64[::1], float64[::1], float64)",
    cache=True,
)
def negamax(s, depth, alpha, beta, ply, tt_key, tt_data, ctx, order, deadline):  # type: ignore[no-untyped-def]
    """The value of ``s`` for its side to move (``Searcher._negamax``); 0 with ctx[TIMEOUT] set on time out."""
    ctx[NODES] += 1
    if (ctx[NODES] & 1023) == 0 and clock() > deadline:
        ctx[TIMEOUT] = 1
    if ctx[TIMEOUT]:
        return 0
    result = outcome(s)
    me = to_move(s)
    if result != RUNNING:
        if result == DRAW:
            return 0
        return WIN - ply if result == me else ply - WIN
    pending = s[PENDING]
    if depth <= 0 and not pending:
        ctx[HORIZON] += 1
        return evaluate(s, me)
    key = position_key(s)
    slot = np.int64(key & np.uint64(tt_key.shape[0] - 1))
    tt_move = 0
    if tt_key[slot] == key:
        e_depth, flag, value = tt_data[slot, T_DEPTH], tt_data[slot, T_FLAG], tt_data[slot, T_VALUE]
        tt_move = tt_data[slot, T_MOVE]
        cut = flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha)
        if e_depth >= depth and cut:
            if e_depth != SOLVED:
                ctx[HORIZON] += 1  # a value from a horizon: the subtree above is not solved
            return value
    alpha0 = alpha
    horizon0 = ctx[HORIZON]
    child_depth = depth if pending else depth - 1
    out = np.empty(36, np.int64)
    n = moves(s, out)
    if depth >= 2:
        n = _distinct(s, out, n)
    _order(s, out, n, tt_move, ctx, order)
    best_value = -WIN - 1
    best_move = 0
    child = np.empty(STATE_SIZE, np.int64)
    for i in range(n):
        code = out[i]
        child[:] = s
        play(child, code)
        same = to_move(child) == me
        if best_move and beta - alpha > 1:
            # Principal variation search: prove the move is no better with a null window first.
            if same:
                value = negamax(
                    child, child_depth, alpha, alpha + 1, ply + 1, tt_key, tt_data, ctx, order, deadline
                )
            else:
                value = -negamax(
                    child, child_depth, -alpha - 1, -alpha, ply + 1, tt_key, tt_data, ctx, order, deadline
                )
            if alpha < value < beta:
                best_value = max(best_value, value)
                if same:
                    value = negamax(
                        child, child_depth, value, beta, ply + 1, tt_key, tt_data, ctx, order, deadline
                    )
                else:
                    value = -negamax(
                        child, child_depth, -beta, -value, ply + 1, tt_key, tt_data, ctx, order, deadline
                    )
        elif same:
            value = negamax(child, child_depth, alpha, beta, ply + 1, tt_key, tt_data, ctx, order, deadline)
        else:
            value = -negamax(
                child, child_depth, -beta, -alpha, ply + 1, tt_key, tt_data, ctx, order, deadline
            )
        if ctx[TIMEOUT]:
            return 0
        if value > best_value or not best_move:
            best_value, best_move = value, code
        if value > alpha:
            alpha = value
            if alpha >= beta:
                ctx[HISTORY + code] += depth * depth
                break
    flag = UPPER if best_value <= alpha0 else LOWER if best_value >= beta else EXACT
    tt_key[slot] = key
    tt_data[slot, T_DEPTH] = SOLVED if ctx[HORIZON] == horizon0 else depth
    tt_data[slot, T_FLAG] = flag
    tt_data[slot, T_VALUE] = best_value
    tt_data[slot, T_MOVE] = best_move
    return best_value


@njit(cache=True)
def _root(s, depth, first, tt_key, tt_data, ctx, order, deadline, result):  # type: ignore[no-untyped-def]
    """One iteration at the root (``Searcher._root``): best move and value into ``result``; False on time out."""
    me = to_move(s)
    alpha, beta = -WIN - 1, WIN + 1
    best, best_value = first, -WIN - 1
    child_depth = depth if s[PENDING] else depth - 1
    out = np.empty(36, np.int64)
    n = _distinct(s, out, moves(s, out))
    _order(s, out, n, first, ctx, order)
    child = np.empty(STATE_SIZE, np.int64)
    for i in range(n):
        code = out[i]
        child[:] = s
        play(child, code)
        same = to_move(child) == me
        if i:  # null window first: most moves only need proving worse than the best
            if same:
                value = negamax(
                    child, child_depth, alpha, alpha + 1, 1, tt_key, tt_data, ctx, order, deadline
                )
            else:
                value = -negamax(
                    child, child_depth, -alpha - 1, -alpha, 1, tt_key, tt_data, ctx, order, deadline
                )
            if ctx[TIMEOUT]:
                return False
            if value <= alpha:
                continue
        if same:
            value = negamax(child, child_depth, alpha, beta, 1, tt_key, tt_data, ctx, order, deadline)
        else:
            value = -negamax(child, child_depth, -beta, -alpha, 1, tt_key, tt_data, ctx, order, deadline)
        if ctx[TIMEOUT]:
            return False
        if value > best_value:
            best, best_value = code, value
            alpha = max(alpha, value)
    result[0], result[1] = best, best_value
    return True


@njit(cache=True)
def deepen(s, max_depth, tt_key, tt_data, ctx, order, deadline, result):  # type: ignore[no-untyped-def]
    """Iterative deepening (``Searcher._deepen``): (move, value, depth reached) into ``result``."""
    out = np.empty(36, np.int64)
    n = moves(s, out)
    _order(s, out, n, 0, ctx, order)
    result[0], result[1], result[2] = out[0], 0, 0
    step = np.zeros(2, np.int64)
    for depth in range(1, max_depth + 1):
        before = ctx[HORIZON]
        if not _root(s, depth, result[0], tt_key, tt_data, ctx, order, deadline, step):
            break
        result[0], result[1], result[2] = step[0], step[1], depth
        if ctx[HORIZON] == before or abs(step[1]) >= WIN - 100:
            break  # solved to the end of the game (or a forced result found)
