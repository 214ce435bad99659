"""Compiled (numba) Ataxx core: move generation, perft, evaluation and the search of ``games.ai.ataxx``.

Boards are 49-bit masks in uint64 from the mover's point of view, ``(me, opp)``.
A move is coded ``from * 64 + to`` (``from == to`` for a clone).

The search (``search``, one call per move, iterative deepening inside):

* negamax with principal variation search, aspiration windows from the fourth
  iteration on, and a transposition table keyed by both masks (entries tagged
  with a generation, so each search starts afresh);
* move ordering: the table move, then by material gained (each capture counts
  two, a clone one more), killer moves and a history table breaking ties;
* selectivity at nodes off the principal variation (argument ``selective``): null move
  pruning, jumps that capture little are not searched near the horizon (most
  jumps are bad: they leave a hole), late move reductions for the rest;
* the evaluation (``evaluate``): material, plus part of the mover's best
  immediate gain (the tempo), minus pieces next to an empty square (they can be
  taken), plus pieces on the edge (fewer neighbours, harder to take). The
  weights, ``PARAMS``, are first guesses, not tuned yet (one array, so that a
  tuning run can pass others to ``Searcher``).

``search`` with ``selective=False`` is a plain alpha-beta (PVS, table and all)
on the same evaluation: the tests check its values against a pure-Python
minimax, and the move generator against the rules engine.

``stats``: [nodes, timed out, a line stopped at the horizon or was pruned,
node count of the next look at the clock].
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
EDGE = U(sum(1 << sq for sq in range(49) if sq % 7 in (0, 6) or sq // 7 in (0, 6)))

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


@njit(
    "void(uint64, uint64, int64[::1], int64, float64, float64, boolean, int64[::1], uint64[::1],"
    " uint64[::1], int32[:, ::1], int64, int64[:, ::1], int64[:, ::1], int64[::1], int64[:, ::1], int64[::1],"
    " int64[::1])",
    cache=True,
)
def search(  # type: ignore[no-untyped-def]
    me,
    opp,
    root,
    max_depth,
    soft_stop,
    deadline,
    selective,
    stats,
    keys_me,
    keys_opp,
    info,
    generation,
    buf_move,
    buf_key,
    history,
    killers,
    params,
    out,
):
    """Iterative deepening over the root moves ``root`` (codes, best-looking first; reordered in place).

    No new iteration starts after ``soft_stop``; the search stops at ``deadline``. An
    iteration cut short still counts as far as it went: its first move (the last best) had
    the full window, a later one that beat it was searched again with the full window.
    Writes ``out`` = [best move, its value, depth completed, exact (1/0)].
    """
    yes = stats[0] >= 0  # see negamax
    n = root.shape[0]
    best = root[0]
    best_value = 0
    out[0] = best
    out[1] = 0
    out[2] = 0
    out[3] = 0
    history[:] = 0  # the same search for the same position, whatever came before
    for ply in range(killers.shape[0]):
        killers[ply, 0] = -1
        killers[ply, 1] = -1
    for depth in range(1, max_depth + 1):
        stats[2] = 0
        window = ASPIRATION if depth >= 4 and abs(best_value) < MATE_BOUND else INF
        lower = max(best_value - window, -INF)
        upper = min(best_value + window, INF)
        completed = False
        while True:
            alpha = lower
            value_here = -INF
            move_here = -1
            for i in range(n):
                code = root[i]
                theirs, mine = play(me, opp, code)
                if i == 0:
                    value = -negamax(
                        theirs, mine, depth - 1, -upper, -alpha, 1, yes, selective, stats, keys_me, keys_opp,
                        info, generation, deadline, buf_move, buf_key, history, killers, params,
                    )  # fmt: skip
                else:
                    value = -negamax(
                        theirs, mine, depth - 1, -alpha - 1, -alpha, 1, yes, selective, stats, keys_me,
                        keys_opp, info, generation, deadline, buf_move, buf_key, history, killers, params,
                    )  # fmt: skip
                    if value > alpha and value < upper and not stats[1]:
                        value = -negamax(
                            theirs, mine, depth - 1, -upper, -alpha, 1, yes, selective, stats, keys_me,
                            keys_opp, info, generation, deadline, buf_move, buf_key, history, killers, params,
                        )  # fmt: skip
                if stats[1]:
                    break
                if value > value_here:
                    value_here = value
                    if value > alpha:
                        move_here = code
                        # Move it to the front: the next search (or the next iteration) starts with it.
                        for j in range(i, 0, -1):
                            root[j] = root[j - 1]
                        root[0] = code
                        if value > lower:
                            # Beat the window's floor with a full search: a real best so far.
                            best = code
                            out[0] = best
                        alpha = value
                        if alpha >= upper:
                            break
            if stats[1]:
                break
            if value_here <= lower and lower > -INF:
                lower = max(value_here - 4 * window, -INF) if value_here > -MATE_BOUND else -INF
                window *= 4
                continue
            if value_here >= upper and upper < INF:
                upper = min(value_here + 4 * window, INF) if value_here < MATE_BOUND else INF
                window *= 4
                continue
            completed = True
            best_value = value_here
            if move_here >= 0:
                best = move_here
            break
        if not completed:
            break
        out[0] = best
        out[1] = best_value
        out[2] = depth
        if not stats[2]:
            out[3] = 1
            break  # exact: every line reached the end of the game, nothing pruned
        if clock() > soft_stop:
            break


class Searcher:
    """One search's view of the process-wide table (a new generation) and its scratch arrays."""

    _keys_me: np.ndarray | None = None
    # Set together with ``_keys_me`` by the first search of the process.
    _keys_opp: ClassVar[np.ndarray]
    _info: ClassVar[np.ndarray]
    _buf_move: ClassVar[np.ndarray]
    _buf_key: ClassVar[np.ndarray]
    _history: ClassVar[np.ndarray]
    _killers: ClassVar[np.ndarray]
    _generation: ClassVar[int]

    def __init__(self, deadline: float, *, selective: bool = True, params: np.ndarray | None = None) -> None:
        cls = type(self)
        if cls._keys_me is None:
            size = 1 << 19
            cls._keys_me = np.zeros(size, np.uint64)
            cls._keys_opp = np.zeros(size, np.uint64)
            cls._info = np.zeros((size, 5), np.int32)
            cls._buf_move = np.zeros((MAX_PLY, MAX_MOVES), np.int64)
            cls._buf_key = np.zeros((MAX_PLY, MAX_MOVES), np.int64)
            cls._history = np.zeros(64 * 64, np.int64)
            cls._killers = np.zeros((MAX_PLY, 2), np.int64)
            cls._generation = 0
        self.deadline = deadline
        self.selective = selective
        self.params = PARAMS if params is None else params
        self.stats = np.zeros(4, np.int64)
        self.depth_reached = 0
        self.exact = False
        self.value = 0

    def best_move(self, me: int, opp: int, codes: list[int], max_depth: int, soft_stop: float) -> int:
        """The chosen move code (``codes`` best-looking first, not empty)."""
        cls = type(self)
        root = np.array(codes, dtype=np.int64)
        out = np.zeros(4, np.int64)
        with LOCK:
            cls._generation += 1
            if cls._generation >= 2**31 - 1:
                cls._info[:, 0] = 0
                cls._generation = 1
            search(
                U(me),
                U(opp),
                root,
                max_depth,
                soft_stop,
                self.deadline,
                self.selective,
                self.stats,
                cls._keys_me,
                cls._keys_opp,
                cls._info,
                cls._generation,
                cls._buf_move,
                cls._buf_key,
                cls._history,
                cls._killers,
                self.params,
                out,
            )
        self.depth_reached = int(out[2])
        self.value = int(out[1])
        self.exact = bool(out[3])
        return int(out[0])

    @property
    def nodes(self) -> int:
        return int(self.stats[0])
