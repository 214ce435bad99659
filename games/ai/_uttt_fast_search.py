"""Compiled Ultimate Tic-Tac-Toe, the search's iterations: ``grow`` (and Hard's guesses in the tree).

Part of the compiled Ultimate Tic-Tac-Toe core: ``games.ai._uttt_fast`` loads it
and has the map of the parts (the search as a whole is described there).
``_uttt_fast.mcts`` sets the root up, fresh or kept (``_uttt_fast_tree``), and
calls ``grow`` for the iterations until the deadline or the count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._bits import clock, random_below
from games.ai._uttt_fast_eval import heuristic
from games.ai._uttt_fast_moves import RUNNING, SIDE, moves, play, result_code
from games.ai._uttt_fast_playout import playout
from games.ai._uttt_fast_tree import META_INFORMED, META_USED, META_WON

# How far selection moves a child's playout average towards its backed-up heuristic (``informed``).
MINIMAX_WEIGHT = 0.3


@njit(cache=True)
def grow(  # type: ignore[no-untyped-def]
    root_boards,
    root_won,
    iterations,
    deadline,
    exploration,
    rng,
    tree,
    used,
    informed,
):
    """The iterations from node 0 (``used`` nodes already in use); records the root, the nodes in use and
    ``informed`` in ``meta`` (the last of ``tree``, ``_uttt_fast.Tree.arrays()``)."""
    first_child, n_children, n_tried, visits, value, move, mover, terminal, proven, heur, meta = tree
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
            reward = playout(boards, won, rng, informed)
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
