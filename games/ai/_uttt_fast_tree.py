"""Compiled Ultimate Tic-Tac-Toe, the tree kept between moves: ``reroot``.

Part of the compiled Ultimate Tic-Tac-Toe core: ``games.ai._uttt_fast`` loads it
and has the map of the parts.

After Hard's search the game goes on by two plies, its own move and the reply,
and the search before already grew the subtree of that position: against its own
kind some 40 % of the playouts on average (from 1 % to all of them, by how sure
both moves were). ``reroot`` finds that node and moves its subtree to the front
of the arrays, in place, so that the next search starts from its counts rather
than from nothing.

The arrays are the search's (``_uttt_fast.mcts``): the children of a node are one
block, ``first_child[node]`` to ``first_child[node] + n_children[node]``, and a
block always lies after the node that owns it (it was allocated when that node
was first visited). So the blocks of a subtree, taken in the order of their old
positions, each move to a position no later than their own: copying them in that
order overwrites only what has already been copied or is not kept.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai._uttt_fast_moves import RUNNING, SIDE, play

# meta: the root the arrays were grown from (its 20 board words and 3 won words), how many nodes are
# in use, and whether the search was Hard's (``informed``: its nodes hold heuristic values).
META_WON, META_USED, META_INFORMED, META_SIZE = 20, 23, 24, 25


@njit(cache=True)
def two_plies_on(meta: np.ndarray, boards: np.ndarray, won: np.ndarray) -> tuple[int, int]:
    """The two moves that lead from the tree's root (``meta``) to ``boards``; (-1, -1) if none do."""
    if meta[META_USED] <= 1:
        return -1, -1
    first_side = meta[SIDE]
    first = -1
    second = -1
    for side in range(2):
        for b in range(9):
            before = meta[9 * side + b]
            now = boards[9 * side + b]
            if before & ~now:
                return -1, -1
            added = now & ~before
            while added:
                cell = 0
                while not (added >> cell) & 1:
                    cell += 1
                added &= added - 1
                if side == first_side:
                    if first >= 0:
                        return -1, -1
                    first = 9 * b + cell
                else:
                    if second >= 0:
                        return -1, -1
                    second = 9 * b + cell
    if first < 0 or second < 0:
        return -1, -1
    # The marks match; so must the order (the board each move was sent to) and the result.
    check = meta[:20].copy()
    check_won = meta[META_WON:META_USED].copy()
    play(check, check_won, first)
    play(check, check_won, second)
    for k in range(20):
        if check[k] != boards[k]:
            return -1, -1
    for k in range(3):
        if check_won[k] != won[k]:
            return -1, -1
    return first, second


@njit(cache=True)
def _child(node: int, cell: int, first_child, n_children, n_tried, move) -> int:  # type: ignore[no-untyped-def]
    """The tried child of ``node`` that plays ``cell``, or -1."""
    if n_children[node] <= 0:
        return -1
    for child in range(first_child[node], first_child[node] + n_tried[node]):
        if move[child] == cell:
            return child
    return -1


@njit(cache=True)
def reroot(  # type: ignore[no-untyped-def]
    boards,
    won,
    tree,
    informed,
):
    """Makes the node of ``boards`` two plies below the root the new root (node 0), keeping its subtree.

    Returns how many nodes are in use, or 0 where there is nothing to keep: another position,
    a reply the search never tried, a node not yet expanded or already solved, a tree grown by
    the other kind of search (``informed``). ``tree`` is ``_uttt_fast.Tree.arrays()``.
    """
    first_child, n_children, n_tried, visits, value, move, mover, terminal, proven, heur, meta = tree
    if meta[META_INFORMED] != informed:
        return 0
    first, second = two_plies_on(meta, boards, won)
    if first < 0:
        return 0
    middle = _child(0, first, first_child, n_children, n_tried, move)
    if middle < 0:
        return 0
    root = _child(middle, second, first_child, n_children, n_tried, move)
    if root < 0 or n_children[root] <= 0 or proven[root] != 0:
        return 0
    # The blocks of the subtree, each with the block holding its parent (-1: the new root): at most
    # one a node with children.
    most = 0
    for node in range(meta[META_USED]):
        if n_children[node] > 0:
            most += 1
    block_start = np.empty(most, np.int64)
    block_size = np.empty(most, np.int64)
    block_parent = np.empty(most, np.int64)
    parent_block = np.empty(most, np.int64)
    block_start[0] = first_child[root]
    block_size[0] = n_children[root]
    block_parent[0] = root
    parent_block[0] = -1
    blocks = 1
    scan = 0
    while scan < blocks:
        for node in range(block_start[scan], block_start[scan] + block_size[scan]):
            if n_children[node] > 0:
                block_start[blocks] = first_child[node]
                block_size[blocks] = n_children[node]
                block_parent[blocks] = node
                parent_block[blocks] = scan
                blocks += 1
        scan += 1
    _move_node(root, 0, tree)
    order = np.argsort(block_start[:blocks], kind="mergesort")
    new_start = np.empty(blocks, np.int64)
    free = 1
    for i in range(blocks):
        b = order[i]
        start = block_start[b]
        for k in range(block_size[b]):
            _move_node(start + k, free + k, tree)
        new_start[b] = free
        owner = parent_block[b]
        # The owner's block began earlier, so it has already moved.
        new_parent = 0 if owner < 0 else new_start[owner] + block_parent[b] - block_start[owner]
        first_child[new_parent] = free
        free += block_size[b]
    # A running node left without children because the arrays were full gets them when next visited.
    for node in range(free):
        if n_children[node] == 0 and terminal[node] == RUNNING:
            n_children[node] = -1
    return free


@njit(cache=True)
def _move_node(source, target, tree):  # type: ignore[no-untyped-def]
    first_child, n_children, n_tried, visits, value, move, mover, terminal, proven, heur, _ = tree
    first_child[target] = first_child[source]
    n_children[target] = n_children[source]
    n_tried[target] = n_tried[source]
    visits[target] = visits[source]
    value[target] = value[source]
    move[target] = move[source]
    mover[target] = mover[source]
    terminal[target] = terminal[source]
    proven[target] = proven[source]
    heur[target] = heur[source]
