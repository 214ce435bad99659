"""The analysis's entry points: each game's hooks by slug (``HOOKS``), and what the site and the
benchmarks call (``evaluate``, ``judge_game``, ``phase_of``, ``budget_for``, ``compiled``), which
look a game's hooks up by its engine's slug and run the generic rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.ai._cores import load_core
from games.ai.analysis import ataxx, four_tac_toe, quantum_ttt, reversi, ultimate_ttt
from games.ai.analysis.base import (
    AnalysisHooks,
    MoveJudgement,
    PositionEval,
    accuracy_weight_of,
    scale_of,
    slip_of,
)
from games.ai.analysis.judging import judge_move
from games.ai.analysis.search import terminal
from games.engines.base import Engine, State

# One entry per game; a game's own module (games/ai/analysis/<slug>.py) makes its hooks. A new game
# adds its module here until the GameKind registry (issue #40) holds each game's hooks.
HOOKS: dict[str, AnalysisHooks] = {
    hooks.slug: hooks
    for hooks in (reversi.HOOKS, ataxx.HOOKS, quantum_ttt.HOOKS, ultimate_ttt.HOOKS, four_tac_toe.HOOKS)
}
# The fixed budget per position on the compiled cores, and in pure Python (the package docstring).
# bench/analysis.py measures the seconds per game of both.
BUDGET: dict[str, dict[str, int]] = {slug: dict(hooks.budget) for slug, hooks in HOOKS.items()}
PYTHON_BUDGET: dict[str, dict[str, int]] = {slug: dict(hooks.python_budget) for slug, hooks in HOOKS.items()}


def compiled(slug: str) -> bool:
    """Whether ``slug``'s analysis runs on its compiled core in this process (now)."""
    return load_core(HOOKS[slug].core) is not None


def budget_for(slug: str) -> dict[str, int]:
    """The fixed budget this process analyses ``slug`` at: the compiled one when its core is loaded."""
    return dict((BUDGET if compiled(slug) else PYTHON_BUDGET)[slug])


def evaluate(engine: Engine, state: State, budget: dict[str, int] | None = None) -> PositionEval:
    """Winning chances, best move and line of ``state`` at the game's fixed budget.

    Without ``budget``: the compiled budget when the game's core is loaded, else the
    pure-Python one (``budget_for``).
    """
    hooks = HOOKS[engine.slug]
    done = terminal(engine, state, hooks.final_exact)
    if done is not None:
        return done
    return hooks.evaluate(engine, state, **(budget or budget_for(engine.slug)))


def phase_of(engine: Engine, state: State) -> str:
    """The phase of the game in which the side to move of ``state`` moves (one of PHASES)."""
    return HOOKS[engine.slug].phase(state)


def judge_game(
    engine: Engine,
    moves: Sequence[str],
    evals: Sequence[PositionEval],
    start: State | None = None,
    *,
    accuracy_weight: float | None = None,
) -> list[MoveJudgement]:
    """Judge every move of a game from the evaluations of its positions (one more than moves).

    ``accuracy_weight``: instead of the game's fitted one (``bench/calibrate_analysis.py`` fits it).
    """
    if len(evals) != len(moves) + 1:
        raise ValueError("need one evaluation per position: one more than the moves")
    state = engine.initial() if start is None else start
    scale, slip = scale_of(engine.slug), slip_of(engine.slug)
    weight = accuracy_weight_of(engine.slug) if accuracy_weight is None else accuracy_weight
    out = []
    for ply, move in enumerate(moves):
        side = engine.to_move(state)
        forced = len(engine.legal_moves(state)) == 1
        after = engine.play(state, move)
        again = engine.outcome(after) is None and engine.to_move(after) == side
        out.append(
            judge_move(
                ply,
                side,
                move,
                evals[ply],
                evals[ply + 1],
                forced=forced,
                phase=phase_of(engine, state),
                scale=scale,
                moves_again=again,
                slip=slip,
                accuracy_weight=weight,
            )
        )
        state = after
    return out
