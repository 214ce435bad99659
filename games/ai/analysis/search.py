"""What every game's search shares: its result (``RootResult``), a finished position's
evaluation, the conversion of a search's result to a ``PositionEval``, and the pure-Python
fixed-depth alpha-beta search over the engine contract (the fallback of the games searched
to a depth while their compiled core is not loaded).

A compiled search (each game's module) has a fixed depth or a fixed number of iterations
and no deadline (``NO_DEADLINE``), so the same position always gets the same answer; it
returns None when its game's core is not loaded (``games.ai._cores.load_core``: numba
missing, turned off, or a worker whose loader has not got there yet), and the analysis
then runs its pure-Python search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from games.ai.analysis.base import (
    LINE_LENGTH,
    ONLY_DROP,
    WIN,
    PositionEval,
    chances_from_score,
    scale_of,
    score_from_chances,
)
from games.engines.base import Engine, Outcome, State

NO_DEADLINE = math.inf


@dataclass(frozen=True)
class RootResult:
    """One position's search, from the side to move's point of view.

    ``score``: the search's value in the game's calibration units (None when proven).
    ``proven``: +1, 0 or -1 when the search reached the end of the game on every line.
    ``best``: the best move's token; ``line``: the moves that follow it (``best`` first).
    ``only``: every other move scores at or below the ``floor`` the caller gave.
    ``exact``: Reversi's final disc difference with perfect play (solver phase only).
    ``root``, ``deep``, ``shallow``: what the search said of the root moves (``PositionEval``).
    ``mate``: a proof's distance in plies to the end (Quantum TTT only, ``PositionEval.mate``).
    """

    score: float | None
    proven: int | None
    best: str
    line: tuple[str, ...]
    only: bool
    exact: int | None = None
    root: tuple[tuple[str, float, int], ...] = ()
    deep: float | None = None
    shallow: float | None = None
    mate: int | None = None


def proof(value: float, bound: int) -> int | None:
    """A compiled search's value as a proven result for the side to move (+1, -1), or None."""
    if value >= bound:
        return 1
    if value <= -bound:
        return -1
    return None


def as_score(value: float, bound: int, per_unit: int) -> float:
    """A search value in calibration units; a proven result as plus or minus infinity."""
    if value >= bound:
        return math.inf
    if value <= -bound:
        return -math.inf
    return value / per_unit


def terminal(
    engine: Engine, state: State, final_exact: Callable[[Outcome], int | None] | None = None
) -> PositionEval | None:
    """A finished position's evaluation (its result, and ``final_exact``'s value of it), or None."""
    outcome = engine.outcome(state)
    if outcome is None:
        return None
    chances = 0.0 if outcome.winner is None else (1.0 if outcome.winner == 0 else -1.0)
    exact = None if final_exact is None else final_exact(outcome)
    return PositionEval(chances, None, (), exact, mate=0)


def position(
    engine: Engine, state: State, result: RootResult, slug: str, exact: int | None = None
) -> PositionEval:
    """A search's result (side to move's view) as a PositionEval (side 0's view)."""
    sign = 1 if engine.to_move(state) == 0 else -1
    if result.proven is not None:
        mover_chances = float(result.proven)
    else:
        assert result.score is not None
        mover_chances = chances_from_score(result.score, scale_of(slug))
    return PositionEval(
        sign * mover_chances,
        result.best,
        result.line[:LINE_LENGTH],
        None if exact is None else sign * exact,
        result.score,
        bool(result.only),  # a compiled core's answer may be numpy's bool, which JSON refuses
        tuple((str(m), float(c), int(v)) for m, c, v in result.root),
        None if result.deep is None else float(result.deep),
        None if result.shallow is None else float(result.shallow),
        result.mate if result.proven is not None else None,
    )


def floor_of(slug: str) -> Callable[[float], float]:
    """For a best score, the score below which another move would drop ONLY_DROP or more."""
    scale = scale_of(slug)

    def floor(score: float) -> float:
        if math.isinf(score):
            return score if score < 0 else score_from_chances(1.0 - ONLY_DROP, scale)
        return score_from_chances(chances_from_score(score, scale) - ONLY_DROP, scale)

    return floor


class Negamax:
    """A fixed-depth alpha-beta search over the engine contract (the pure-Python fallback).

    ``static(state)`` scores a position for its side to move; ``free(move)``
    says a move costs no depth (passes, Quantum TTT's collapses). A move after
    which the same side moves again keeps the score's sign.
    """

    def __init__(self, engine: Engine, static: Callable[[State], float], free: Callable[[str], bool]) -> None:
        self.engine = engine
        self.static = static
        self.free = free
        self.nodes = 0

    def _ordered(self, state: State, moves: list[str], me: int) -> list[str]:
        """Most promising first (by the static score after the move), so alpha-beta cuts early."""
        engine, keyed = self.engine, []
        for index, move in enumerate(moves):
            child = engine.play(state, move)
            done = engine.outcome(child)
            if done is not None:
                key = -WIN if done.winner == me else WIN if done.winner is not None else 0.0
            else:
                key = self.static(child) * (1 if engine.to_move(child) != me else -1)
            keyed.append((key, index, move))
        keyed.sort()
        return [move for _, _, move in keyed]

    def _child(
        self, state: State, move: str, depth: int, alpha: float, beta: float, ply: int
    ) -> tuple[float, list[str]]:
        """The value of playing ``move`` for the side to move of ``state``."""
        engine = self.engine
        me = engine.to_move(state)
        child = engine.play(state, move)
        cost = 0 if self.free(move) else 1
        done = engine.outcome(child)
        if done is not None:  # scored here: a finished game's side to move means nothing
            return (0.0 if done.winner is None else WIN - ply - 1 if done.winner == me else ply + 1 - WIN), []
        if engine.to_move(child) == me:
            return self.search(child, depth - cost, alpha, beta, ply + 1)
        value, line = self.search(child, depth - cost, -beta, -alpha, ply + 1)
        return -value, line

    def search(
        self, state: State, depth: int, alpha: float, beta: float, ply: int
    ) -> tuple[float, list[str]]:
        self.nodes += 1
        engine = self.engine
        me = engine.to_move(state)
        moves = engine.legal_moves(state)
        if depth <= 0 and not (len(moves) == 1 and self.free(moves[0])):
            return self.static(state), []
        if depth >= 2 and len(moves) > 1:
            moves = self._ordered(state, moves, me)
        best_value, best_line = -math.inf, []
        for move in moves:
            value, line = self._child(state, move, depth, alpha, beta, ply)
            if value > best_value:
                best_value, best_line = value, [move, *line]
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best_value, best_line

    def root(
        self, state: State, depth: int, floor_of: Callable[[float], float]
    ) -> tuple[float, list[str], bool]:
        """(value, line, only): the best value and line, and whether every other move is at or below
        ``floor_of(value)`` (a null-window test each)."""
        value, line = self.search(state, depth, -math.inf, math.inf, 0)
        moves = self.engine.legal_moves(state)
        if len(moves) < 2 or not line:
            return value, line, False
        floor = floor_of(_mate_as_inf(value))
        if floor == math.inf:
            return value, line, False
        bound = _inf_as_mate(floor)
        for move in moves:
            if move == line[0]:
                continue
            other, _ = self._child(state, move, depth, bound, bound + 1e-6, 0)
            if other > bound:
                return value, line, False
        return value, line, True


def _mate_as_inf(value: float) -> float:
    if value >= WIN - 1_000:
        return math.inf
    if value <= 1_000 - WIN:
        return -math.inf
    return value


def _inf_as_mate(value: float) -> float:
    return max(1_000 - WIN, min(WIN - 1_000, value))


def unbiased(deep: float, shallow: float, win: float) -> float:
    """The mean of the values at the full depth and one ply less (unless one is a proven result).

    A search that ends with the mover to move at its leaves and one that ends with the
    opponent to move are biased opposite ways (measured on Reversi: about 4 discs); the
    position before a move is searched with one parity, the position after it with the
    other, so without this every move looked like a gain of several discs and random
    clicking was judged "best" move after move.
    """
    if abs(deep) >= win or abs(shallow) >= win:
        return deep
    return (deep + shallow) / 2


def negamax_eval(
    engine: Engine,
    state: State,
    searcher: Negamax,
    depth: int,
    slug: str,
    per_unit: float = 1.0,
    *,
    distance: bool = False,
) -> PositionEval:
    """The fallback's result; ``per_unit`` converts the static score to calibration units;
    ``distance``: a proof keeps its distance (``PositionEval.mate``)."""
    value, line, only = searcher.root(state, depth, lambda s: floor_of(slug)(s / per_unit) * per_unit)
    proven = 1 if value >= WIN - 1_000 else -1 if value <= 1_000 - WIN else None
    deep = shallow = None
    if proven is None and depth > 1:
        shallow, _ = searcher.search(state, depth - 1, -math.inf, math.inf, 0)
        deep, value = value, unbiased(value, shallow, WIN - 1_000)
        if abs(shallow) >= WIN - 1_000:
            deep = shallow = None
    result = RootResult(
        None if proven is not None else value / per_unit,
        proven,
        line[0] if line else "",
        tuple(line),
        only,
        deep=None if deep is None else deep / per_unit,
        shallow=None if shallow is None else shallow / per_unit,
        mate=int(WIN - abs(value)) if proven is not None and distance else None,
    )
    return position(engine, state, result, slug)
