"""Compiled (numba) Ultimate Tic-Tac-Toe core: move generation, perft and the UCT search.

The Monte Carlo tree search of ``games.ai.mcts.search`` with ``UTTTAdapter``
(the pure-Python fallback and reference): each iteration descends by UCB1,
tries the untried moves of a node in a shuffled order, one per visit, plays
the rest of the game out and backs the reward up; the move played is the root
child with the most visits. Two things the Python search does not do (issue
#28: against mcthouacbb/uttt's alpha-beta the plain search lost on tactics):

* the playouts win a small board whenever the board they are sent to allows
  it (``random_move``), so a board one move from being won is not given away at
  random in half the playouts; otherwise the moves stay uniformly random;
* an MCTS-Solver (Winands, Björnsson and Saito 2008): a won game marks its
  node proven, a node with a proven-winning child is a proven loss for the
  side that moved into it, and one whose children are all proven losses a
  proven win; selection takes a proven win at once and avoids proven losses,
  and the root plays a proven win or the best move not proven lost.

Hard's search (``informed``, issue #42) adds three more: playouts that also
avoid handing the opponent a board (``informed_move``), a heuristic backed
up as minimax beside the playouts' average (``_uttt_fast_eval``), and the tree
kept from one of its moves to the next (``_uttt_fast_tree``).

The tree lives in flat arrays (children of a node in one block); random
numbers come from a xorshift generator seeded by the caller's
``random.Random``, so a search that stops on its iteration count repeats
itself exactly.

A position is ``boards`` (int64[20]: 9-bit X marks of boards 0-8, then O marks
of boards 0-8, then the side to move and the last cell index, -1 at the
start) plus ``won`` (int64[3]: boards won by X, won by O, closed).

The core is six modules. This one is what ``games.ai.ultimate_ttt`` loads
(``load_core("_uttt_fast")``): the conversion of an engine state, the tree
search ``mcts`` (its iterations are ``_uttt_fast_search.grow``), its arrays kept
per process (``Tree``) and ``search``; it
re-exports what the players, tests and benchmarks use from
``_uttt_fast_moves`` (the tables, ``moves``, ``play``, ``perft``),
``_uttt_fast_playout`` (``playout`` with ``random_move`` or Hard's ``informed_move``),
``_uttt_fast_eval`` (Hard's ``heuristic``) and ``_uttt_fast_tree`` (``reroot``: Hard's
next search starts from the subtree this one grew, two plies on).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import LOCK, random_below
from games.ai._uttt_fast_eval import heuristic
from games.ai._uttt_fast_moves import FULL9, LAST, RUNNING, SIDE, moves, perft, play, result_code
from games.ai._uttt_fast_playout import informed_move, playout, random_move
from games.ai._uttt_fast_search import MINIMAX_WEIGHT, grow
from games.ai._uttt_fast_tree import META_SIZE, META_USED, reroot, two_plies_on
from games.engines import ultimate_ttt as rules

__all__ = [
    "LOCK",
    "META_USED",
    "MINIMAX_WEIGHT",
    "RUNNING",
    "Tree",
    "heuristic",
    "informed_move",
    "mcts",
    "moves",
    "perft",
    "play",
    "playout",
    "random_move",
    "reroot",
    "result_code",
    "search",
    "state_arrays",
    "two_plies_on",
]


def state_arrays(state: rules.UltimateTTTState) -> tuple[np.ndarray, np.ndarray]:
    boards = np.zeros(20, np.int64)
    for b in range(9):
        boards[b] = (state.x >> 9 * b) & FULL9
        boards[9 + b] = (state.o >> 9 * b) & FULL9
    boards[SIDE] = state.side
    boards[LAST] = state.last
    won = np.array([state.won_x, state.won_o, state.closed], np.int64)
    return boards, won


@njit(cache=True)
def mcts(  # type: ignore[no-untyped-def]
    root_boards,
    root_won,
    root_moves,
    iterations,
    deadline,
    exploration,
    rng,
    tree,
    root_visits,
    root_value,
    root_proven,
    reuse,
    informed,
):
    """UCT from the root over ``root_moves``; per root move its visits, value and proof. Returns iterations done.

    ``proven[node]``: 1 when the side that moved into ``node`` wins from it with best play, -1 when it
    loses, 0 while unknown (a proven draw stays 0: the averages handle those well enough).

    ``meta`` records the root the arrays hold (``_uttt_fast_tree``). With ``reuse`` a root two plies
    below the last one starts from the subtree the last search grew there; its children are then
    every legal move, and the counts are read for ``root_moves`` only.

    ``informed`` is Hard's search: the playouts' moves are ``informed_move``'s, not ``random_move``'s, and
    each node also keeps ``heur``, ``_uttt_fast_eval.heuristic`` backed up as minimax over its
    tried children; selection mixes it into the playouts' average (``MINIMAX_WEIGHT``).

    ``tree`` is ``Tree.arrays()``: the nodes' arrays, then ``meta``.
    """
    first_child, _, n_tried, visits, value, move, _, _, proven, _, _ = tree
    used = 0
    if reuse:
        used = reroot(root_boards, root_won, tree, informed)
    if used == 0:
        used = _fresh_root(root_boards, root_moves, rng, tree)
    done = grow(
        root_boards,
        root_won,
        iterations,
        deadline,
        exploration,
        rng,
        tree,
        used,
        informed,
    )
    for i in range(root_moves.shape[0]):
        root_visits[i] = 0
        root_value[i] = 0.0
        root_proven[i] = 0
    for node in range(first_child[0], first_child[0] + n_tried[0]):
        for j in range(root_moves.shape[0]):
            if root_moves[j] == move[node]:
                root_visits[j] = visits[node]
                root_value[j] = value[node]
                root_proven[j] = proven[node]
    return done


@njit(cache=True)
def _fresh_root(  # type: ignore[no-untyped-def]
    root_boards,
    root_moves,
    rng,
    tree,
):
    """Node 0 as the root, its children ``root_moves`` in a shuffled order (nodes 1..n); nodes in use."""
    first_child, n_children, n_tried, visits, value, move, mover, terminal, proven, _, _ = tree
    n_root = root_moves.shape[0]
    order = root_moves.copy()
    for i in range(n_root - 1, 0, -1):
        j = random_below(rng, i + 1)
        order[i], order[j] = order[j], order[i]
    root_mover = 1 - root_boards[SIDE]
    terminal[0] = RUNNING
    proven[0] = 0
    first_child[0] = 1
    n_children[0] = n_root
    n_tried[0] = 0
    visits[0] = 0
    value[0] = 0.0
    mover[0] = root_mover
    for i in range(n_root):
        node = 1 + i
        move[node] = order[i]
        n_children[node] = -1
        mover[node] = 1 - root_mover
        visits[node] = 0
        value[node] = 0.0
        proven[node] = 0
    return 1 + n_root


# first child, children, tried, visits, value, move, mover, terminal, proven, heur, meta: ``mcts`` and
# the modules below it take them as one tuple, ``tree``
TreeArrays = tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
]


class Tree:
    """The flat tree arrays, allocated once per process, and the root they were last grown from (``meta``)."""

    capacity = 1 << 21
    _arrays: TreeArrays | None = None

    @classmethod
    def arrays(cls) -> TreeArrays:
        if cls._arrays is None:
            size = cls.capacity
            cls._arrays = (
                np.zeros(size, np.int32),  # first child
                np.zeros(size, np.int32),  # children
                np.zeros(size, np.int32),  # tried
                np.zeros(size, np.int32),  # visits
                np.zeros(size, np.float64),  # value
                np.zeros(size, np.int8),  # move
                np.zeros(size, np.int8),  # mover
                np.zeros(size, np.int8),  # terminal
                np.zeros(size, np.int8),  # proven
                np.zeros(size, np.float64),  # heur: the heuristic backed up as minimax (Hard)
                np.zeros(META_SIZE, np.int64),  # meta: the root, nodes in use (none yet)
            )
        return cls._arrays


def search(
    state: rules.UltimateTTTState,
    root_moves: list[int],
    seed: int,
    *,
    deadline: float,
    iterations: int | None,
    exploration: float = 1.0,
    reuse: bool = False,
    informed: bool = False,
) -> tuple[int, int, dict[int, int]]:
    """(best move, iterations done, visits per root move).

    The best move is a proven win if there is one, else the most visited move not proven lost.
    ``reuse`` starts from what the last search in this process learnt of this position, when it
    was two plies before it: the visits then count those playouts too. A search that stops on its
    iteration count repeats itself only without it. ``informed``: Hard's search (see ``mcts``).
    """
    boards, won = state_arrays(state)
    candidates = np.array(root_moves, np.int64)
    rng = np.array([seed | 1], np.uint64)
    root_visits = np.zeros(len(root_moves), np.int64)
    root_value = np.zeros(len(root_moves), np.float64)
    root_proven = np.zeros(len(root_moves), np.int8)
    with LOCK:
        done = mcts(
            boards,
            won,
            candidates,
            2**62 if iterations is None else iterations,
            deadline,
            exploration,
            rng,
            Tree.arrays(),
            root_visits,
            root_value,
            root_proven,
            reuse=reuse,
            informed=informed,
        )
    if not root_visits.any():
        return root_moves[0], 0, {}
    best = max(range(len(root_moves)), key=lambda i: (int(root_proven[i]), root_visits[i], root_value[i]))
    return root_moves[best], int(done), {m: int(v) for m, v in zip(root_moves, root_visits, strict=True)}
