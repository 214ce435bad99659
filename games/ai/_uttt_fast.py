"""Compiled (numba) Ultimate Tic-Tac-Toe core: move generation, perft and the UCT search.

The Monte Carlo tree search of ``games.ai.mcts.search`` with ``UTTTAdapter``
(the pure-Python fallback and reference): each iteration descends by UCB1,
tries the untried moves of a node in a shuffled order, one per visit, plays
the rest of the game out and backs the reward up; the move played is the root
child with the most visits. Two things the Python search does not do (issue
#28: against mcthouacbb/uttt's alpha-beta the plain search lost on tactics):

* the playouts win a small board whenever the board they are sent to allows
  it (``rollout``), so a board one move from being won is not given away at
  random in half the playouts; otherwise the moves stay uniformly random;
* an MCTS-Solver (Winands, Björnsson and Saito 2008): a won game marks its
  node proven, a node with a proven-winning child is a proven loss for the
  side that moved into it, and one whose children are all proven losses a
  proven win; selection takes a proven win at once and avoids proven losses,
  and the root plays a proven win or the best move not proven lost.

Hard's search (``informed``, issue #42) adds three more: playouts that also
avoid handing the opponent a board (``informed_rollout``), a heuristic backed
up as minimax beside the playouts' average (``_uttt_fast_eval``), and the tree
kept from one of its moves to the next (``_uttt_fast_tree``).

The tree lives in flat arrays (children of a node in one block); random
numbers come from a xorshift generator seeded by the caller's
``random.Random``, so a search that stops on its iteration count repeats
itself exactly.

A position is ``boards`` (int64[20]: 9-bit X marks of boards 0-8, then O marks
of boards 0-8, then the side to move and the last cell index, -1 at the
start) plus ``won`` (int64[3]: boards won by X, won by O, closed).

The core is five modules. This one is what ``games.ai.ultimate_ttt`` loads
(``load_core("_uttt_fast")``): the conversion of an engine state, the tree
search ``mcts``, its arrays kept per process (``Tree``) and ``search``; it
re-exports what the players, tests and benchmarks use from
``_uttt_fast_moves`` (the tables, ``moves``, ``play``, ``perft``),
``_uttt_fast_playout`` (``rollout``; Hard's ``informed_rollout`` and ``informed_move``),
``_uttt_fast_eval`` (Hard's ``heuristic``) and ``_uttt_fast_tree`` (``reroot``: Hard's
next search starts from the subtree this one grew, two plies on).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import LOCK, clock, random_below
from games.ai._uttt_fast_eval import heuristic
from games.ai._uttt_fast_moves import FULL9, LAST, RUNNING, SIDE, moves, perft, play, result_code
from games.ai._uttt_fast_playout import informed_move, informed_rollout, rollout
from games.ai._uttt_fast_tree import META_INFORMED, META_SIZE, META_USED, META_WON, reroot, two_plies_on
from games.engines import ultimate_ttt as rules

__all__ = [
    "LOCK",
    "RUNNING",
    "Tree",
    "informed_move",
    "informed_rollout",
    "mcts",
    "moves",
    "perft",
    "play",
    "reroot",
    "result_code",
    "rollout",
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


# How far selection moves a child's playout average towards its backed-up heuristic (``informed``).
MINIMAX_WEIGHT = 0.3


@njit(cache=True)
def mcts(  # type: ignore[no-untyped-def]
    root_boards,
    root_won,
    root_moves,
    iterations,
    deadline,
    exploration,
    rng,
    first_child,
    n_children,
    n_tried,
    visits,
    value,
    move,
    mover,
    terminal,
    proven,
    heur,
    meta,
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

    ``informed`` is Hard's search: the playouts are ``informed_rollout``'s, not ``rollout``'s, and
    each node also keeps ``heur``, ``_uttt_fast_eval.heuristic`` backed up as minimax over its
    tried children; selection mixes it into the playouts' average (``MINIMAX_WEIGHT``).
    """
    used = 0
    if reuse:
        used = reroot(
            root_boards,
            root_won,
            first_child,
            n_children,
            n_tried,
            visits,
            value,
            move,
            mover,
            terminal,
            proven,
            heur,
            meta,
            informed,
        )
    if used == 0:
        used = _fresh_root(
            root_boards,
            root_moves,
            rng,
            first_child,
            n_children,
            n_tried,
            visits,
            value,
            move,
            mover,
            terminal,
            proven,
        )
    done = _grow(
        root_boards,
        root_won,
        iterations,
        deadline,
        exploration,
        rng,
        first_child,
        n_children,
        n_tried,
        visits,
        value,
        move,
        mover,
        terminal,
        proven,
        heur,
        used,
        meta,
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
    first_child,
    n_children,
    n_tried,
    visits,
    value,
    move,
    mover,
    terminal,
    proven,
):
    """Node 0 as the root, its children ``root_moves`` in a shuffled order (nodes 1..n); nodes in use."""
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


@njit(cache=True)
def _grow(  # type: ignore[no-untyped-def]
    root_boards,
    root_won,
    iterations,
    deadline,
    exploration,
    rng,
    first_child,
    n_children,
    n_tried,
    visits,
    value,
    move,
    mover,
    terminal,
    proven,
    heur,
    used,
    meta,
    informed,
):
    """The iterations from node 0 (``used`` nodes already in use); records the root, the nodes in use and
    ``informed`` in ``meta``."""
    capacity = first_child.shape[0]
    scratch = np.zeros(81, np.int64)
    path = np.zeros(100, np.int64)
    boards = root_boards.copy()
    won = root_won.copy()
    done = 0
    while done < iterations:
        if (done & 63) == 0 and clock() > deadline:
            break
        if proven[0] != 0:
            break  # the root is solved: more iterations change nothing
        for k in range(20):
            boards[k] = root_boards[k]
        for k in range(3):
            won[k] = root_won[k]
        node = 0
        depth = 0
        path[0] = 0
        reward = -1
        while True:
            if node != 0 and proven[node] != 0:
                # A solved node: its result is the playout's.
                winner = mover[node] if proven[node] > 0 else 1 - mover[node]
                reward = 2 if winner == 0 else 0
                break
            if n_children[node] < 0:
                # First visit of a leaf: list its moves (shuffled) as a block of untried children.
                code = result_code(won)
                terminal[node] = code
                proven[node] = _proof_of(code, mover[node])
                n = 0 if code != RUNNING else moves(boards, won, scratch)
                if n and used + n <= capacity:
                    for i in range(n - 1, 0, -1):
                        j = random_below(rng, i + 1)
                        scratch[i], scratch[j] = scratch[j], scratch[i]
                    first_child[node] = used
                    for i in range(n):
                        child = used + i
                        move[child] = scratch[i]
                        n_children[child] = -1
                        mover[child] = boards[SIDE]
                        visits[child] = 0
                        value[child] = 0.0
                        proven[child] = 0
                    used += n
                    n_children[node] = n
                else:
                    n_children[node] = 0
                n_tried[node] = 0
            if terminal[node] != RUNNING:
                reward = terminal[node]
                break
            if n_children[node] == 0:
                break  # the tree is full: play on from here
            if n_tried[node] < n_children[node]:
                child = first_child[node] + n_tried[node]
                n_tried[node] += 1
                play(boards, won, move[child])
                depth += 1
                path[depth] = child
                node = child
                code = result_code(won)
                terminal[node] = code
                proven[node] = _proof_of(code, mover[node])
                if code != RUNNING:
                    reward = code
                if informed:
                    heur[node] = _guess(boards, won, code, mover[node])
                break
            log_n = np.log(visits[node])
            best = first_child[node]
            best_score = -1e9
            for child in range(first_child[node], first_child[node] + n_children[node]):
                if proven[child] > 0:
                    best = child  # a winning move for the side to move here: nothing else matters
                    break
                mean = value[child] / visits[child]
                if informed:
                    mean += MINIMAX_WEIGHT * (heur[child] - mean)
                score = mean + exploration * np.sqrt(log_n / visits[child])
                if proven[child] < 0:
                    score -= 1e6  # chosen only when every move loses
                if score > best_score:
                    best = child
                    best_score = score
            play(boards, won, move[best])
            depth += 1
            path[depth] = best
            node = best
        if reward < 0:
            reward = (
                informed_rollout(boards, won, rng, scratch)
                if informed
                else rollout(boards, won, rng, scratch)
            )
        half = reward * 0.5
        for k in range(depth + 1):
            n = path[k]
            visits[n] += 1
            value[n] += half if mover[n] == 0 else 1.0 - half
        if informed:
            _back_up_guesses(path, depth, first_child, n_children, n_tried, heur)
        # Carry a new proof up the path, as far as it decides the parents.
        for k in range(depth, 0, -1):
            child = path[k]
            parent = path[k - 1]
            if proven[parent] != 0:
                break
            if proven[child] > 0:
                proven[parent] = -1
            elif proven[child] < 0 and n_tried[parent] == n_children[parent]:
                all_lost = True
                for c in range(first_child[parent], first_child[parent] + n_children[parent]):
                    if proven[c] >= 0:
                        all_lost = False
                        break
                if not all_lost:
                    break
                proven[parent] = 1
            else:
                break
        done += 1
    meta[:20] = root_boards
    meta[META_WON:META_USED] = root_won
    meta[META_USED] = used
    meta[META_INFORMED] = informed
    return done


@njit(cache=True)
def _guess(boards: np.ndarray, won: np.ndarray, code: int, mover: int) -> float:
    """A new node's ``heur``: its result if the game is over, else the heuristic, for ``mover``."""
    if code == RUNNING:
        return heuristic(boards, won, mover)
    if code == 1:
        return 0.5
    return 1.0 if (code == 2) == (mover == 0) else 0.0


@njit(cache=True)
def _back_up_guesses(path, depth, first_child, n_children, n_tried, heur):  # type: ignore[no-untyped-def]
    """Each node on the path above the new one gets the minimax of its tried children's guesses."""
    for k in range(depth - 1, -1, -1):
        node = path[k]
        if n_children[node] <= 0:
            continue
        best = 0.0
        for child in range(first_child[node], first_child[node] + n_tried[node]):
            if heur[child] > best:
                best = heur[child]
        heur[node] = 1.0 - best


@njit(cache=True)
def _proof_of(code: int, mover: int) -> int:
    """A node's proof from its game result: 1 when ``mover`` (who moved into it) has just won the game."""
    if code == 2:
        return 1 if mover == 0 else -1
    if code == 0:
        return 1 if mover == 1 else -1
    return 0


# first child, children, tried, visits, value, move, mover, terminal, proven, heur, meta (``mcts`` takes
# them in order)
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
            *Tree.arrays(),
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
