"""The Monte Carlo games' analysis: the computer player's tree search at a fixed number of
iterations and a fixed seed, on the compiled core when it is loaded.

What differs between those games is a ``MonteCarlo`` (each game's module makes one): which root
moves are worth searching, the compiled search of the root, the pure-Python search, and what
the root table adds of the moves the search left out. ``monte_carlo`` makes the game's
evaluator (``AnalysisHooks.evaluate``) of it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random
from typing import TYPE_CHECKING

from games.ai.analysis.base import (
    LINE_LENGTH,
    ONLY_DROP,
    ROOT_CLIP,
    SEED,
    Evaluator,
    PositionEval,
    Root,
)
from games.ai.analysis.search import RootResult, position, terminal
from games.engines.base import Engine, State

if TYPE_CHECKING:
    import numpy as np  # the compiled searches' arrays (numpy comes with the cores)
    from numpy.typing import NDArray

    from games.ai.mcts import SearchResult  # imported by each game's search when it runs

MCTS_MIN_SHARE = 0.02  # a root move visited less than this share says nothing about its value

# (move index, visits, mean reward for the side to move) per root move, most visited first.
Rows = list[tuple[int, int, float]]


def _keep_root(state: State, root: Root) -> Root:
    return root


@dataclass(frozen=True)
class MonteCarlo:
    """What one Monte Carlo game gives the generic search.

    ``candidates(engine, state)``: (the move indexes worth searching, a move that wins on the
    spot or None, index -> token). ``compiled_root(state, candidates, iterations, seed)``: the
    root's ``Rows`` by the compiled core, None when it is not loaded. ``python_search(state,
    rng, iterations, candidates)``: the computer player's pure-Python search (games.ai.mcts).
    ``left_out(state, root)``: the root table with the moves the candidates left out, valued.
    """

    candidates: Callable[[Engine, State], tuple[list[int], str | None, Callable[[int], str]]]
    compiled_root: Callable[[State, list[int], int, int], Rows | None]
    python_search: Callable[[State, Random, int, list[int]], SearchResult]
    left_out: Callable[[State, Root], Root] = _keep_root


def monte_carlo(game: MonteCarlo) -> Evaluator:
    """The evaluator (``AnalysisHooks.evaluate``) of a Monte Carlo game: ``(engine, state, *, iterations)``."""
    return functools.partial(_mcts, game)


def rows_of(root_moves: Sequence[int], visits: NDArray[np.int64], values: NDArray[np.float64]) -> Rows:
    """A compiled search's root arrays (visits, summed rewards) as ``Rows``, most visited first."""
    rows = [
        (move, int(seen), float(value) / seen if seen else 0.5)
        for move, seen, value in zip(root_moves, visits, values, strict=True)
    ]
    rows.sort(key=lambda row: (-row[1], -row[2]))
    return rows


def mcts_second_best(rows: Rows) -> float | None:
    """The best mean reward among the other root moves visited enough to tell, or None."""
    total = sum(visits for _, visits, _ in rows)
    enough = [mean for _, visits, mean in rows[1:] if visits >= MCTS_MIN_SHARE * total]
    return max(enough) if enough else None


def clipped_logit(chances: float) -> float:
    """A Monte Carlo search's winning chances (2 * mean reward - 1) as its score, the logit of the mean
    reward, clipped at ROOT_CLIP."""
    return 2.0 * math.atanh(max(-ROOT_CLIP, min(ROOT_CLIP, chances)))


def _mcts_best(
    game: MonteCarlo, engine: Engine, state: State, iterations: int
) -> tuple[float, str, bool, Root]:
    """(winning chances for the side to move, best move, only move, root table) by the computer
    player's MCTS; the root table has each visited root move's chances (2 * mean reward - 1) and visits."""
    candidates, winning, token = game.candidates(engine, state)
    if winning is not None:
        return 1.0, winning, False, ()
    if len(candidates) == 1:
        chances, move = _after_only_move(game, engine, state, token(candidates[0]), iterations)
        return chances, move, False, game.left_out(state, ((move, clipped_logit(chances), 0),))
    rows = game.compiled_root(state, candidates, iterations, SEED)
    if rows is not None:
        best, _, mean = rows[0]
        second = mcts_second_best(rows)
        only = second is not None and 2.0 * (mean - second) >= ONLY_DROP
        root = tuple((token(m), clipped_logit(2.0 * r - 1.0), v) for m, v, r in rows if v)
        return 2.0 * mean - 1.0, token(best), only, game.left_out(state, root)
    result = game.python_search(state, Random(SEED), iterations, candidates)
    root = tuple(
        (token(m), clipped_logit(2.0 * result.means[m] - 1.0), v)
        for m, v in sorted(result.visits.items(), key=lambda item: (-item[1], -result.means.get(item[0], 0)))
        if v
    )
    return 2.0 * result.value - 1.0, token(result.move), False, game.left_out(state, root)


def _after_only_move(
    game: MonteCarlo, engine: Engine, state: State, move: str, iterations: int
) -> tuple[float, str]:
    """A single sensible move: the position is worth what the position after it is."""
    child = engine.play(state, move)
    done = terminal(engine, child)
    me = engine.to_move(state)
    if done is not None:
        return (done.chances if me == 0 else -done.chances), move
    value, _, _, _ = _mcts_best(game, engine, child, iterations)
    return (value if engine.to_move(child) == me else -value), move


def _mcts(game: MonteCarlo, engine: Engine, state: State, *, iterations: int) -> PositionEval:
    # A tree search is optimistic for the side it searches for, so a position's
    # value is the mean of the mover's search here and the opponent's search
    # after the best move: the two biases cancel.
    me = engine.to_move(state)
    mover_chances, best, only, root = _mcts_best(game, engine, state, iterations)
    line, probe = [best], engine.play(state, best)
    done = terminal(engine, probe)
    proven: int | None = None
    if done is not None:
        mover_chances = done.chances if me == 0 else -done.chances
        proven = round(mover_chances)
    else:
        reply_chances, _, _, _ = _mcts_best(game, engine, probe, iterations)
        mover_chances = (
            mover_chances + (reply_chances if engine.to_move(probe) == me else -reply_chances)
        ) / 2
    while len(line) < LINE_LENGTH and engine.outcome(probe) is None:  # a cheaper search for the line
        _, reply, _, _ = _mcts_best(game, engine, probe, max(20, iterations // 8))
        line.append(reply)
        probe = engine.play(probe, reply)
    # The score is the logit of the search's mean reward; the fitted scale says how far to trust it.
    # Clipped at 0.95: beyond it (97.5 % and more) the search's means are noise, and a winning
    # move must not look like a loss of score next to another winning move (judge_move's score part).
    score = None if proven is not None else clipped_logit(mover_chances)
    return position(engine, state, RootResult(score, proven, best, tuple(line), only, root=root), engine.slug)
