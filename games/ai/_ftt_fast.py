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

The core is three modules. This one is what ``games.ai.four_tac_toe`` loads
(``load_core("_ftt_fast")``): the conversion of an engine state, the tree
search ``mcts``, its arrays kept per process (``Tree``) and ``search``; it
re-exports what the players, tests and benchmarks use from
``_ftt_fast_moves`` (the tables, ``play``, ``moves``, ``ordered_moves``) and
``_ftt_fast_playout`` (``playout``, ``reward``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import LOCK, clock
from games.ai._ftt_fast_moves import (
    CENTRE,
    DIFF,
    EMPTY,
    FORBIDDEN,
    N_LINES,
    SIDE,
    TWO,
    moves,
    ordered_moves,
    play,
)
from games.ai._ftt_fast_playout import playout, reward
from games.engines import four_tac_toe as rules

__all__ = [
    "EMPTY",
    "FORBIDDEN",
    "LOCK",
    "Tree",
    "mcts",
    "moves",
    "ordered_moves",
    "play",
    "playout",
    "reward",
    "rules",
    "search",
    "state_arrays",
]


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
