"""Compiled (numba) Four Tac Toe core: the Hard search of ``games.ai.four_tac_toe``.

The same Monte Carlo tree search as ``games.ai.mcts.search`` with
``FourTacToeAdapter`` (the pure-Python fallback and reference): progressive
widening (a node opens ``K0 + visits ** ALPHA`` children, in the order of the
one-move heuristic ``ordered_cells``), UCB1 among the open children, and a
tactical playout to the full board (cash your best threat, else block the
opponent's, else a random cell) rewarded ``0.5 + 0.5 * tanh(diff / 3)``. The
move played is the root child with the most visits. One difference: a share
of the playout moves is random (``noise``), which the many more iterations
need (``games.ai.four_tac_toe.PLAYOUT_NOISE``).

A position is ``owner`` (int8[81]: 0 empty, 1 X, 2 O, 3 the forbidden e5),
``codes`` (int8[232]: per scoring line 0 empty, 1-3 X marks and no O, 4-6 O
marks and no X, 7 dead, as the Python playout), ``gains`` (int16[2, 81]: per
side and empty cell, the lines the side completes by taking it) and ``info``
(int64[2]: side to move, score difference X minus O). ``play`` keeps all of
them up to date, so the move ordering and the playouts read them directly.

The tree lives in flat arrays: a node's children get a block of consecutive
entries when the node is first expanded (all its moves, in heuristic order),
and are opened one by one as its visits grow.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import LOCK, clock
from games.engines import four_tac_toe as rules

N_LINES = len(rules.LINE_CELLS)  # 232 scoring lines
LINE_CELLS = np.array(rules.LINE_CELLS, dtype=np.int64)
MAX_THROUGH = max(len(ids) for ids in rules.CELL_LINES)
# Per cell: how many scoring lines pass through it, and their indexes.
CELL_COUNT = np.array([len(ids) for ids in rules.CELL_LINES], dtype=np.int64)
CELL_LINES = np.array(
    [list(ids) + [0] * (MAX_THROUGH - len(ids)) for ids in rules.CELL_LINES], dtype=np.int64
)
# Line code after a mark of X (row 0) or O (row 1), as ``games.ai.four_tac_toe._AFTER``.
AFTER = np.array([[1, 2, 3, 7, 7, 7, 7, 7], [4, 7, 7, 7, 5, 6, 7, 7]], dtype=np.int8)
TWO = np.array([2, 5], dtype=np.int8)  # two marks of X / of O: the third cell scores
FULL = np.array([3, 6], dtype=np.int8)  # three marks: a point
CENTRE = rules.CENTRE
EMPTY, FORBIDDEN = 0, 3
SIDE, DIFF = 0, 1

# The heuristic's weights (``games.ai.four_tac_toe``), by a line's code and the side looking at it:
# WEIGHT[side, code] is what the line adds to each of its empty cells.
W_COMPLETE, W_BLOCK, W_TWO, W_KILL, W_OPEN = 100, 60, 6, 3, 1
WEIGHT = np.array(
    [
        [W_OPEN, W_TWO, W_COMPLETE, 0, W_KILL, W_BLOCK, 0, 0],  # X to move
        [W_OPEN, W_KILL, W_BLOCK, 0, W_TWO, W_COMPLETE, 0, 0],  # O to move
    ],
    dtype=np.int64,
)


def state_arrays(state: rules.FourTacToeState) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(owner, codes, gains, info) of an engine state."""
    owner = np.zeros(81, np.int8)
    for i in range(81):
        owner[i] = 1 if state.x >> i & 1 else 2 if state.o >> i & 1 else EMPTY
    owner[CENTRE] = FORBIDDEN
    codes = np.zeros(N_LINES, np.int8)
    gains = np.zeros((2, 81), np.int16)
    for k, (a, b, c) in enumerate(rules.LINE_CELLS):
        xs = sum(owner[i] == 1 for i in (a, b, c))
        os = sum(owner[i] == 2 for i in (a, b, c))
        codes[k] = 7 if xs and os else xs if xs else 3 + os if os else 0
        for side in (0, 1):
            if codes[k] == TWO[side]:
                gains[side, next(i for i in (a, b, c) if owner[i] == EMPTY)] += 1
    info = np.array([state.side, state.score_x - state.score_o], np.int64)
    return owner, codes, gains, info


@njit(cache=True)
def play(owner: np.ndarray, codes: np.ndarray, gains: np.ndarray, info: np.ndarray, cell: int) -> None:
    """Mark ``cell`` for the side to move, in place (as ``games.engines.four_tac_toe.play_index``)."""
    side = info[SIDE]
    owner[cell] = side + 1
    two = TWO[side]
    full = FULL[side]
    for j in range(CELL_COUNT[cell]):
        k = CELL_LINES[cell, j]
        code = AFTER[side, codes[k]]
        codes[k] = code
        if code == two:
            # Two marks of the mover and an empty third cell: taking it will score.
            for t in range(3):
                c = LINE_CELLS[k, t]
                if owner[c] == EMPTY:
                    gains[side, c] += 1
        elif code == full:
            info[DIFF] += 1 if side == 0 else -1
    info[SIDE] = 1 - side


@njit(cache=True)
def moves(owner: np.ndarray, out: np.ndarray) -> int:
    """The empty playable cells into ``out``, by index; how many (0 once the board is full)."""
    n = 0
    for c in range(81):
        if owner[c] == EMPTY:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def ordered_moves(owner: np.ndarray, codes: np.ndarray, side: int, out: np.ndarray) -> int:
    """The empty cells best first by the one-move heuristic, ties by index (``ordered_cells``)."""
    value = np.zeros(81, np.int64)
    for k in range(N_LINES):
        w = WEIGHT[side, codes[k]]
        if w:
            for t in range(3):
                value[LINE_CELLS[k, t]] += w
    n = moves(owner, out)
    # Insertion sort, stable: at most 80 cells and mostly short moves.
    for i in range(1, n):
        cell = out[i]
        v = value[cell]
        j = i - 1
        while j >= 0 and value[out[j]] < v:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = cell
    return n


@njit(cache=True)
def _next_random(rng: np.ndarray) -> np.uint64:
    """xorshift64*: the next 64 random bits (state in ``rng[0]``)."""
    x: np.uint64 = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True)
def _below(rng: np.ndarray, n: int) -> int | np.int64:
    return np.int64((_next_random(rng) >> np.uint64(33)) % np.uint64(n))


@njit(cache=True)
def _best_threat(
    gains: np.ndarray, owner: np.ndarray, side: int, cells: np.ndarray, count: np.ndarray
) -> int:
    """The empty cell where ``side`` scores most (first of equals), or -1; drops filled cells from its list."""
    best = -1
    best_gain = 0
    kept = 0
    for i in range(count[side]):
        c = cells[side, i]
        if owner[c] != EMPTY:
            continue
        cells[side, kept] = c
        kept += 1
        if gains[side, c] > best_gain:
            best, best_gain = c, gains[side, c]
    count[side] = kept
    return best


@njit(cache=True)
def playout(
    owner: np.ndarray, codes: np.ndarray, gains: np.ndarray, info: np.ndarray, rng: np.ndarray, noise: int = 0
) -> int:
    """Tactical playout to the full board, in place; the final score difference (X minus O).

    Each side cashes its best threat, else blocks the opponent's best, else takes
    a random empty cell (``FourTacToeAdapter.playout``). ``noise`` (out of 1024)
    is the share of moves made at random regardless: tactical playouts are
    nearly deterministic, and without some noise a longer search found no better
    moves (see ``games.ai.four_tac_toe.PLAYOUT_NOISE``).
    """
    free = np.empty(81, np.int64)
    where = np.zeros(81, np.int64)
    n = moves(owner, free)
    for i in range(n):
        where[free[i]] = i
    # Per side, the empty cells where it would score (a superset: filled cells are dropped lazily).
    threats = np.empty((2, 81), np.int64)
    count = np.zeros(2, np.int64)
    for side in range(2):
        for i in range(n):
            if gains[side, free[i]]:
                threats[side, count[side]] = free[i]
                count[side] += 1
    while n:
        side = info[SIDE]
        cell = -1
        if noise == 0 or _below(rng, 1024) >= noise:
            cell = _best_threat(gains, owner, side, threats, count)
            if cell < 0:
                cell = _best_threat(gains, owner, 1 - side, threats, count)
        if cell < 0:
            cell = free[_below(rng, n)]
        # Swap-remove the cell from the free list.
        i = where[cell]
        n -= 1
        last = free[n]
        free[i] = last
        where[last] = i
        _play_tracking(owner, codes, gains, info, cell, threats, count)
    return int(info[DIFF])


@njit(cache=True)
def _play_tracking(
    owner: np.ndarray,
    codes: np.ndarray,
    gains: np.ndarray,
    info: np.ndarray,
    cell: int,
    threats: np.ndarray,
    count: np.ndarray,
) -> None:
    """``play``, also adding the mover's newly threatened cells to its threat list."""
    side = info[SIDE]
    owner[cell] = side + 1
    two = TWO[side]
    full = FULL[side]
    for j in range(CELL_COUNT[cell]):
        k = CELL_LINES[cell, j]
        code = AFTER[side, codes[k]]
        codes[k] = code
        if code == two:
            for t in range(3):
                c = LINE_CELLS[k, t]
                if owner[c] == EMPTY:
                    if gains[side, c] == 0:
                        threats[side, count[side]] = c
                        count[side] += 1
                    gains[side, c] += 1
        elif code == full:
            info[DIFF] += 1 if side == 0 else -1
    info[SIDE] = 1 - side


@njit(cache=True)
def reward(diff: int, scale: float) -> float:
    """Side 0's reward for a final score difference: mostly the result, a little the margin."""
    return float(0.5 + 0.5 * np.tanh(diff / scale))


@njit(cache=True)
def mcts(  # type: ignore[no-untyped-def]
    root_owner,
    root_codes,
    root_gains,
    root_info,
    root_moves,
    iterations,
    deadline,
    exploration,
    widen_base,
    widen_power,
    scale,
    noise,
    rng,
    first_child,
    n_moves,
    n_open,
    visits,
    value,
    move,
    mover,
    root_visits,
    root_value,
):
    """UCT with progressive widening from the root over ``root_moves`` (in that order).

    Fills each root move's visits and value; returns the iterations done.
    """
    capacity = first_child.shape[0]
    scratch = np.zeros(81, np.int64)
    path = np.zeros(90, np.int64)
    owner = root_owner.copy()
    codes = root_codes.copy()
    gains = root_gains.copy()
    info = root_info.copy()
    n_root = root_moves.shape[0]
    root_mover = 1 - root_info[SIDE]
    first_child[0] = 1
    n_moves[0] = n_root
    n_open[0] = 0
    visits[0] = 0
    value[0] = 0.0
    mover[0] = root_mover
    for i in range(n_root):
        node = 1 + i
        move[node] = root_moves[i]
        n_moves[node] = -1
        mover[node] = 1 - root_mover
    used = 1 + n_root
    empties = 0
    for c in range(81):
        empties += root_owner[c] == EMPTY
    done = 0
    while done < iterations:
        if (done & 15) == 0 and clock() > deadline:
            break
        owner[:] = root_owner
        codes[:] = root_codes
        gains[:] = root_gains
        info[:] = root_info
        left = empties
        node = 0
        depth = 0
        path[0] = 0
        while True:
            if n_moves[node] < 0:
                # Second visit of a node: list its moves, best first, as a block of unopened children.
                n = ordered_moves(owner, codes, info[SIDE], scratch) if left else 0
                if n and used + n <= capacity:
                    first_child[node] = used
                    for i in range(n):
                        child = used + i
                        move[child] = scratch[i]
                        n_moves[child] = -1
                        mover[child] = info[SIDE]
                    used += n
                    n_moves[node] = n
                else:
                    n_moves[node] = 0  # the board is full, or the tree is: play out from here
                n_open[node] = 0
            if n_moves[node] == 0:
                break
            if n_open[node] < n_moves[node] and n_open[node] < widen_base + visits[node] ** widen_power:
                child = first_child[node] + n_open[node]
                n_open[node] += 1
                visits[child] = 0
                value[child] = 0.0
                play(owner, codes, gains, info, move[child])
                left -= 1
                depth += 1
                path[depth] = child
                break
            log_n = np.log(visits[node])
            best = first_child[node]
            best_score = -1.0
            for child in range(first_child[node], first_child[node] + n_open[node]):
                score = value[child] / visits[child] + exploration * np.sqrt(log_n / visits[child])
                if score > best_score:
                    best = child
                    best_score = score
            play(owner, codes, gains, info, move[best])
            left -= 1
            depth += 1
            path[depth] = best
            node = best
        diff = playout(owner, codes, gains, info, rng, noise) if left else info[DIFF]
        r = reward(diff, scale)
        for k in range(depth + 1):
            n = path[k]
            visits[n] += 1
            value[n] += r if mover[n] == 0 else 1.0 - r
        done += 1
    for i in range(n_root):
        root_visits[i] = visits[1 + i] if i < n_open[0] else 0
        root_value[i] = value[1 + i] if i < n_open[0] else 0.0
    return done


# first child, moves, open, visits, value, move, mover (``mcts`` takes them in order)
TreeArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class Tree:
    """The flat tree arrays, allocated once per process (about 40 MB)."""

    capacity = 1 << 21
    _arrays: TreeArrays | None = None

    @classmethod
    def arrays(cls) -> TreeArrays:
        if cls._arrays is None:
            size = cls.capacity
            cls._arrays = (
                np.zeros(size, np.int32),  # first child
                np.zeros(size, np.int32),  # moves (-1: not listed yet)
                np.zeros(size, np.int32),  # children opened
                np.zeros(size, np.int32),  # visits
                np.zeros(size, np.float64),  # value
                np.zeros(size, np.int8),  # move
                np.zeros(size, np.int8),  # mover
            )
        return cls._arrays


def search(
    state: rules.FourTacToeState,
    root_moves: list[int],
    seed: int,
    *,
    deadline: float,
    iterations: int | None,
    exploration: float,
    widening: tuple[float, float],
    scale: float,
    noise: int = 0,
) -> tuple[int, int, dict[int, int]]:
    """(best move, iterations done, visits per root move); ``root_moves`` best first."""
    owner, codes, gains, info = state_arrays(state)
    rng = np.array([seed | 1], np.uint64)
    root_visits = np.zeros(len(root_moves), np.int64)
    root_value = np.zeros(len(root_moves), np.float64)
    with LOCK:
        done = mcts(
            owner,
            codes,
            gains,
            info,
            np.array(root_moves, np.int64),
            2**62 if iterations is None else iterations,
            deadline,
            exploration,
            widening[0],
            widening[1],
            scale,
            noise,
            rng,
            *Tree.arrays(),
            root_visits,
            root_value,
        )
    if done == 0:
        return root_moves[0], 0, {}
    best = max(range(len(root_moves)), key=lambda i: (root_visits[i], root_value[i]))
    visited = {m: int(v) for m, v in zip(root_moves, root_visits, strict=True) if v}
    return root_moves[best], int(done), visited
