"""The analysis's entry points: what the site and the benchmarks call (``evaluate``, ``judge_game``,
``phase_of``, ``budget_for``, ``compiled``, ``BUDGET``, ``PYTHON_BUDGET``), which look a game's
registered hooks up by its engine's slug (``base.hooks_of``) and run the generic rest.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from games.ai._cores import load_core
from games.ai.analysis.base import (
    HOOKS,
    MoveJudgement,
    PositionEval,
    accuracy_weight_of,
    hooks_of,
    scale_of,
    slip_of,
)
from games.ai.analysis.judging import judge_move
from games.ai.analysis.search import terminal
from games.engines.base import Engine, State


class _Budgets(Mapping[str, dict[str, int]]):
    """Each registered game's fixed budget per position, read from its hooks when asked (a game
    registered later is there too): on the compiled cores (``BUDGET``) or in pure Python."""

    def __init__(self, *, compiled: bool) -> None:
        self._compiled = compiled

    def __getitem__(self, slug: str) -> dict[str, int]:
        hooks = hooks_of(slug)
        return dict(hooks.budget if self._compiled else hooks.python_budget)

    def __iter__(self) -> Iterator[str]:
        return iter(list(HOOKS))

    def __len__(self) -> int:
        return len(HOOKS)


# The fixed budget per position on the compiled cores, and in pure Python (the package docstring).
# bench/analysis.py measures the seconds per game of both.
BUDGET: Mapping[str, dict[str, int]] = _Budgets(compiled=True)
PYTHON_BUDGET: Mapping[str, dict[str, int]] = _Budgets(compiled=False)


def compiled(slug: str) -> bool:
    """Whether ``slug``'s analysis runs on its compiled core in this process (now)."""
    core = hooks_of(slug).core
    return core is not None and load_core(core) is not None


def budget_for(slug: str) -> dict[str, int]:
    """The fixed budget this process analyses ``slug`` at: the compiled one when its core is loaded."""
    return dict((BUDGET if compiled(slug) else PYTHON_BUDGET)[slug])


def evaluate(engine: Engine, state: State, budget: dict[str, int] | None = None) -> PositionEval:
    """Winning chances, best move and line of ``state`` at the game's fixed budget.

    Without ``budget``: the compiled budget when the game's core is loaded, else the
    pure-Python one (``budget_for``).
    """
    hooks = hooks_of(engine.slug)
    done = terminal(engine, state, hooks.final_exact)
    if done is not None:
        return done
    return hooks.evaluate(engine, state, **(budget or budget_for(engine.slug)))


def phase_of(engine: Engine, state: State) -> str:
    """The phase of the game in which the side to move of ``state`` moves (one of PHASES)."""
    return hooks_of(engine.slug).phase(state)


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
