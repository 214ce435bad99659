"""Quantum TTT's analysis hooks: every distinct move searched to a fixed depth (a collapse costs no
depth), on the compiled core when it is loaded; forced wins within the horizon are +-1 and keep
their distance (``PositionEval.mate``), by which a lost position's moves are told apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from random import Random

from games.ai._cores import load_core
from games.ai.analysis.base import LINE_LENGTH, AnalysisHooks, PositionEval
from games.ai.analysis.search import (
    NO_DEADLINE,
    Negamax,
    RootResult,
    as_score,
    floor_of,
    negamax_eval,
    position,
    proof,
)
from games.engines.base import Engine
from games.engines.quantum_ttt import QState, QuantumTTTEngine

SLUG = QuantumTTTEngine.slug


def phase(state: QState) -> str:
    """Opening up to move 3 while no square is classical, endgame from five classical squares."""
    classical = sum(1 for square in state.classical if square)
    return "opening" if state.move <= 3 and not classical else "end" if classical >= 5 else "middle"


def evaluate(engine: Engine, state: QState, *, depth: int) -> PositionEval:
    """Every distinct move searched ``depth`` plies deep, on the compiled core or in pure Python."""
    result = _compiled(engine, state, depth, floor_of(SLUG), LINE_LENGTH)
    if result is not None:
        return position(engine, state, result, SLUG)
    from games.ai.quantum_ttt_eval import evaluate as static_eval

    def static(s: QState) -> float:
        return static_eval(s, engine.to_move(s))

    searcher = Negamax(engine, static, lambda m: m.startswith("@"))
    # No table of the moves' own values (docs/decisions.md, session 11): judged by the two positions.
    return replace(negamax_eval(engine, state, searcher, depth, SLUG, distance=True), deep=None, shallow=None)


def _compiled(
    engine: Engine, state: QState, depth: int, floor_of: Callable[[float], float], line_length: int
) -> RootResult | None:
    """Every distinct root move searched to ``depth - 1`` on the compiled core: best and second best.

    A collapse (the choice after a cycle) costs no depth, as in the computer player.
    """
    core = load_core("_qttt_fast")
    if core is None:
        return None
    from games.ai.quantum_ttt_search import Searcher, order_keys

    me = engine.to_move(state)
    order = order_keys(Random(0))
    moves = Searcher(engine, NO_DEADLINE, Random(0)).distinct(state, engine.legal_moves(state))
    scored: list[tuple[float, int, str, tuple[str, ...]]] = []
    for index, move in enumerate(moves):
        child = engine.play(state, move)
        done = engine.outcome(child)
        if done is not None:
            value = 0 if done.winner is None else (core.WIN if done.winner == me else -core.WIN)
            reply: tuple[str, ...] = ()
        else:
            cost = 0 if move.startswith("@") else 1
            answer, child_value, _, _ = core.search(child, order, max(1, depth - cost), NO_DEADLINE)
            value = child_value if engine.to_move(child) == me else -child_value
            reply = (answer,)
        scored.append((value, -index, move, reply))
    scored.sort(reverse=True)
    value, _, best, reply = scored[0]
    bound = core.WIN - 100
    proven = proof(value, bound)
    score = None if proven is not None else float(value)
    only = len(scored) > 1 and as_score(scored[1][0], bound, 1) <= floor_of(as_score(value, bound, 1))
    # A child's proven value is WIN minus its plies to the end counted from the child.
    mate = core.WIN - abs(int(value)) + 1 if proven is not None else None
    line = [best, *reply]
    probe = engine.play(state, best)
    if reply:
        probe = engine.play(probe, reply[0])
    while len(line) < line_length and engine.outcome(probe) is None:
        answer, _, _, _ = core.search(probe, order, max(1, depth - 2), NO_DEADLINE)
        line.append(answer)
        probe = engine.play(probe, answer)
    return RootResult(score, proven, best, tuple(line), only, mate=mate)


HOOKS = AnalysisHooks(
    slug=SLUG,
    core="_qttt_fast",
    budget={"depth": 6},
    python_budget={"depth": 4},
    evaluate=evaluate,
    phase=phase,
)
