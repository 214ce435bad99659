"""Compiled (numba) Quantum Tic-Tac-Toe core: the rules and the alpha-beta search of ``games.ai.quantum_ttt``.

The same search as ``games.ai.quantum_ttt.Searcher`` (the pure-Python fallback
and reference): iterative deepening of a principal variation search with a
transposition table whose entries know whether their subtree was solved to the
end of the game, move ordering from the table, a history of cut-off moves and
square weights, one move per symmetry class in symmetric positions, and the
same evaluation. Collapse choices cost no depth and a turn that does not pass
to the opponent is not negated. Left out: the last ply's shortcut (scoring
quiet pairs without playing them), which only saves time in Python.

A position is one int64[32] array:

* ``s[1..9]``: the move number of the classical mark in squares 1..9, or 0;
* ``s[10 + m]``, ``s[20 + m]``: the squares a < b of mark ``m`` while it is
  spooky, else 0;
* ``s[MOVE]``: the number of the next normal move (1..10);
* ``s[PENDING]``: the move number whose collapse waits for the chooser, else 0.

A move is an int: ``10 * a + b`` for the pair ``a-b``, ``100 + n`` for the
collapse choice ``@n``, ``n`` for X's ninth plain move ``n``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai import quantum_ttt as python_ai
from games.ai._bits import LOCK, clock
from games.engines import quantum_ttt as rules
from games.engines.quantum_ttt import QState

A, B, MOVE, PENDING = 10, 20, 30, 31
STATE_SIZE = 32
CHOICE = 100
RUNNING, X_WINS, O_WINS, DRAW = -1, 0, 1, 2

WIN = python_ai.WIN
SOLVED = python_ai.SOLVED
EXACT, LOWER, UPPER = python_ai.EXACT, python_ai.LOWER, python_ai.UPPER
# The evaluation's weights (``games.ai.quantum_ttt.EVAL``).
W_ONE, W_TWO, W_SPOOKY, W_THREAT, W_SQUARE = python_ai.EVAL
WEIGHT = np.array(python_ai.WEIGHT, dtype=np.int64)
LINES = np.array(rules.LINES, dtype=np.int64)
# The seven symmetries of the square other than the identity, as permutations of squares 0..9.
SYMMETRIES = np.array(python_ai.SYMMETRIES, dtype=np.int64)

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
# Conversions


def state_array(state: QState) -> np.ndarray:
    """The int64[32] form of an engine state."""
    s = np.zeros(STATE_SIZE, np.int64)
    for sq in range(1, 10):
        s[sq] = state.classical[sq - 1]
    for m, a, b in state.spooky:
        s[A + m], s[B + m] = a, b
    s[MOVE], s[PENDING] = state.move, state.pending
    return s


def to_state(s: np.ndarray) -> QState:
    """The engine state of an int64[32] position."""
    classical = tuple(int(s[sq]) for sq in range(1, 10))
    spooky = tuple((m, int(s[A + m]), int(s[B + m])) for m in range(1, 10) if s[A + m])
    return QState(classical, spooky, int(s[MOVE]), int(s[PENDING]))


def token(code: int) -> str:
    """The engine's token of a move code."""
    if code >= CHOICE:
        return f"@{code - CHOICE}"
    if code >= 10:
        return f"{code // 10}-{code % 10}"
    return str(code)


def code_of(move: str) -> int:
    """The move code of an engine token."""
    if move.startswith("@"):
        return CHOICE + int(move[1:])
    if "-" in move:
        return 10 * int(move[0]) + int(move[2])
    return int(move)


# ---------------------------------------------------------------------------
# Rules


@njit(cache=True)
def to_move(s: np.ndarray) -> int:
    """The side to move: the owner of the next move number (X the odd ones)."""
    return int((s[MOVE] + 1) % 2)


@njit(cache=True)
def _reach(s: np.ndarray, start: int, skip: int) -> int:
    """Bitmask (bit = square) of the squares linked to ``start`` by spooky marks other than ``skip``."""
    reach = 1 << start
    grown = True
    while grown:
        grown = False
        for m in range(1, 10):
            a = s[A + m]
            if a and m != skip:
                link = (1 << a) | (1 << s[B + m])
                if reach & link and (reach & link) != link:
                    reach |= link
                    grown = True
    return reach


@njit(cache=True)
def outcome(s: np.ndarray) -> int:
    """RUNNING, X_WINS, O_WINS or DRAW (as ``QuantumTTTEngine.outcome``)."""
    if s[PENDING]:
        return RUNNING
    best_x = 10
    best_o = 10
    for k in range(8):
        p, q, r = s[LINES[k, 0]], s[LINES[k, 1]], s[LINES[k, 2]]
        if p and q and r and (p & 1) == (q & 1) == (r & 1):
            high = max(p, q, r)
            if p & 1:
                best_x = min(best_x, high)
            else:
                best_o = min(best_o, high)
    if best_x < 10 or best_o < 10:
        return X_WINS if best_x < best_o else O_WINS
    for sq in range(1, 10):
        if not s[sq]:
            return RUNNING
    return DRAW


@njit(cache=True)
def moves(s: np.ndarray, out: np.ndarray) -> int:
    """The legal move codes, in the engine's order, into ``out``; how many (0 once the game is over)."""
    if outcome(s) != RUNNING:
        return 0
    p = s[PENDING]
    if p:
        out[0] = CHOICE + s[A + p]
        out[1] = CHOICE + s[B + p]
        return 2
    n = 0
    for a in range(1, 10):
        if not s[a]:
            for b in range(a + 1, 10):
                if not s[b]:
                    out[n] = 10 * a + b
                    n += 1
    if n == 0 and s[MOVE] == 9:
        for sq in range(1, 10):
            if not s[sq]:
                out[0] = sq
                return 1
    return n


@njit(cache=True)
def play(s: np.ndarray, code: int) -> None:
    """Play move ``code`` in place (as ``QuantumTTTEngine.play``, unchecked)."""
    if code >= CHOICE:
        _collapse(s, s[PENDING], code - CHOICE)
        s[PENDING] = 0
    elif code >= 10:
        a, b = code // 10, code % 10
        closes = (_reach(s, a, 0) >> b) & 1
        m = s[MOVE]
        s[A + m], s[B + m] = a, b
        s[MOVE] = m + 1
        s[PENDING] = m if closes else 0
    else:
        s[code] = 9
        s[MOVE] = 10


@njit(cache=True)
def _collapse(s: np.ndarray, newest: int, square: int) -> None:
    """Settle mark ``newest`` in ``square`` and push every connected spooky mark along."""
    s[square] = newest
    s[A + newest] = 0
    s[B + newest] = 0
    frontier = np.empty(10, np.int64)
    frontier[0] = square
    top = 1
    while top:
        top -= 1
        sq = frontier[top]
        for m in range(1, 10):
            a = s[A + m]
            if not a:
                continue
            b = s[B + m]
            if a == sq or b == sq:
                # The mark must go to its other square; it stops being spooky, so it moves once.
                other = b if a == sq else a
                s[other] = m
                s[A + m] = 0
                s[B + m] = 0
                frontier[top] = other
                top += 1


@njit("int64(int64[::1], int64)", cache=True)
def perft(s, depth):  # type: ignore[no-untyped-def]
    """Leaves ``depth`` plies on (collapse choices count as plies; finished games have no children)."""
    out = np.empty(36, np.int64)
    n = moves(s, out)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        child = s.copy()
        play(child, out[i])
        total += perft(child, depth - 1)
    return total


# ---------------------------------------------------------------------------
# Evaluation


@njit(cache=True)
def evaluate(s: np.ndarray, side: int) -> int:
    """Static score of a quiet position for ``side`` (``games.ai.quantum_ttt.evaluate``)."""
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


class Table:
    """The transposition table, allocated once per process (20 MB).

    Half a million entries: a Hard search (0.25 s) visits a few hundred thousand
    positions, and the game is solved from its third move well within that.
    """

    bits = 19
    _arrays: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def arrays(cls) -> tuple[np.ndarray, np.ndarray]:
        if cls._arrays is None:
            cls._arrays = (np.zeros(1 << cls.bits, np.uint64), np.zeros((1 << cls.bits, 4), np.int64))
        return cls._arrays


def search(
    state: QState, order: dict[str, float], max_depth: int, deadline: float
) -> tuple[str, int, int, int]:
    """(move, value, depth reached, nodes) for the side to move; ``order`` ranks move tokens (lower first)."""
    s = state_array(state)
    order_array = np.zeros(110, np.float64)
    for move, key in order.items():
        order_array[code_of(move)] = key
    ctx = np.zeros(CTX_SIZE, np.int64)
    result = np.zeros(3, np.int64)
    with LOCK:
        tt_key, tt_data = Table.arrays()
        tt_key[:] = 0  # a fresh table per search, as the Python one
        deepen(s, max_depth, tt_key, tt_data, ctx, order_array, deadline, result)
    return token(int(result[0])), int(result[1]), int(result[2]), int(ctx[NODES])
