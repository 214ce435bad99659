"""A generic Monte Carlo tree search (UCT) that any game can plug into.

The search never touches move tokens or engine states directly: a small
adapter (see ``Adapter``) exposes the game's fast internals, with moves as
plain ints. Rewards are always from side 0's point of view, in 0..1 (1 = side 0
wins, 0.5 = draw); each node stores the total reward of the side that made the
move leading to it, so selection simply maximises the child's mean.

Two knobs beyond plain UCT:

* ``widening``: progressive widening for games with many moves. A node may
  only have ``k0 + visits ** alpha`` children, and new children are taken in
  the order the adapter's ``moves`` lists them (best-first by the game's own
  heuristic), so the search spends its few iterations on plausible moves.
  Without widening, every move of a node is tried once (in random order) before
  UCB selection starts, as in textbook UCT.
* ``root_moves``: restrict the root to a subset (a tactical filter's survivors).

The search is deterministic for a given ``rng`` seed when it stops on
``iterations`` rather than on the clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Protocol


class Adapter(Protocol):
    """What the search needs from a game (moves are ints, states opaque)."""

    def moves(self, state: Any) -> Sequence[int]:
        """Legal moves of the side to move; empty exactly when the game is over."""

    def play(self, state: Any, move: int) -> Any:
        """The state after ``move`` (the input stays unchanged)."""

    def to_move(self, state: Any) -> int:
        """0 or 1."""

    def result(self, state: Any) -> float | None:
        """None while the game runs, else side 0's reward (1 win, 0.5 draw, 0 loss)."""

    def rollout(self, state: Any, rng: Random) -> float:
        """Side 0's reward after finishing the game fast from ``state`` (not over)."""


class _Node:
    # No parent link: the path is kept during each iteration instead, so the tree
    # has no reference cycles and is freed at once when the search returns
    # (rather than by a cyclic garbage collection in the middle of a later move).
    __slots__ = ("state", "move", "mover", "children", "untried", "visits", "value", "terminal")

    def __init__(self, state: Any, move: int, mover: int, terminal: float | None) -> None:
        self.state = state
        self.move = move
        self.mover = mover  # side that played `move` (its reward is stored in `value`)
        self.children: list[_Node] = []
        self.untried: list[int] | None = None  # filled on first visit
        self.visits = 0
        self.value = 0.0
        self.terminal = terminal


@dataclass(frozen=True)
class SearchResult:
    move: int
    iterations: int
    visits: dict[int, int]  # root move -> visits
    value: float  # mean reward of the chosen move for the side to move at the root
    # every visited root move's mean reward for the side to move (the analysis judges a move against
    # the other root moves of the same search)
    means: dict[int, float] = field(default_factory=dict)


def search(
    adapter: Adapter,
    state: Any,
    rng: Random,
    *,
    deadline: float | None = None,
    iterations: int | None = None,
    exploration: float = 1.0,
    widening: tuple[float, float] | None = None,
    root_moves: Sequence[int] | None = None,
) -> SearchResult:
    """Run UCT from ``state`` until ``iterations`` are done or ``deadline`` passes.

    ``deadline`` is a ``time.perf_counter()`` value; at least one iteration per
    root move is not guaranteed, so callers keep a sensible budget. The move
    returned is the root child with the most visits.
    """
    if deadline is None and iterations is None:
        raise ValueError("give the search a deadline, an iteration count or both")
    moves = list(adapter.moves(state) if root_moves is None else root_moves)
    if not moves:
        raise ValueError("no move to search: the game is over")
    root = _Node(state, -1, 1 - adapter.to_move(state), None)
    root.untried = list(moves) if widening else _shuffled(list(moves), rng)
    if len(moves) == 1:
        return SearchResult(moves[0], 0, {moves[0]: 0}, 0.5)
    clock = time.perf_counter
    log = math.log
    sqrt = math.sqrt
    done = 0
    while (iterations is None or done < iterations) and (deadline is None or clock() < deadline):
        node = root
        path = [root]
        # Selection: descend while the node is fully expanded (or widened to its limit).
        while True:
            untried = node.untried
            if untried is None:  # first visit of a leaf: list its moves
                untried = node.untried = (
                    []
                    if node.terminal is not None
                    else list(adapter.moves(node.state))
                    if widening
                    else _shuffled(list(adapter.moves(node.state)), rng)
                )
            if untried and (
                widening is None or len(node.children) < widening[0] + node.visits ** widening[1]
            ):
                move = untried.pop(0) if widening else untried.pop()
                child_state = adapter.play(node.state, move)
                child = _Node(child_state, move, adapter.to_move(node.state), adapter.result(child_state))
                node.children.append(child)
                node = child
                path.append(child)
                break
            if not node.children:
                break  # terminal
            log_n = log(node.visits)
            best, best_score = node.children[0], -1.0
            for child in node.children:
                score = child.value / child.visits + exploration * sqrt(log_n / child.visits)
                if score > best_score:
                    best, best_score = child, score
            node = best
            path.append(best)
        # Simulation.
        reward = node.terminal if node.terminal is not None else adapter.rollout(node.state, rng)
        # Back-propagation: each node keeps the reward of the side that moved into it.
        for node in path:
            node.visits += 1
            node.value += reward if node.mover == 0 else 1.0 - reward
        done += 1
    if not root.children:  # no time for a single iteration: take the first candidate
        return SearchResult(moves[0], done, {}, 0.5)
    best = max(root.children, key=lambda c: (c.visits, c.value))
    return SearchResult(
        best.move,
        done,
        {c.move: c.visits for c in root.children},
        best.value / best.visits if best.visits else 0.5,
        {c.move: c.value / c.visits for c in root.children if c.visits},
    )


def _shuffled(moves: list[int], rng: Random) -> list[int]:
    rng.shuffle(moves)
    return moves
