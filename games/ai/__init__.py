"""Computer players for every game and level, on top of ``games.engines`` only.

``choose_move(engine, state, level)`` is the one entry point: the Celery task,
the arena command and the benchmarks all call it. Each game has its own module
(``games/ai/<slug>.py``) exposing ``choose(engine, state, level, rng, deadline)``
and, when its search can run on a compiled core, ``compiled_core()`` and
``warm_up()``. A game on its compiled core plays at ``COMPILED_BUDGET`` (a
quarter of ``DEFAULT_BUDGET``: the compiled search sees more in less time);
``budget_for(slug, level)`` says which applies.

The compiled cores (numba, ``games/ai/_*_fast.py``) are optional: without numba,
or with ``GAMES_AI_PURE_PYTHON=1``, every game plays its pure-Python search at
``DEFAULT_BUDGET``. ``warm_up()`` loads (or, the first time on a machine,
compiles) them; a worker calls it at start so its first move is not slow.
"""

from __future__ import annotations

import gc
import importlib
import random
import time
from typing import Any, Literal

from games.engines.base import Engine, IllegalMove

Level = Literal["random", "easy", "medium", "hard"]
LEVELS: tuple[str, ...] = ("easy", "medium", "hard")

# Seconds per move for the pure-Python searches. Hard stays well under the spec's 2 s ceiling on one core.
DEFAULT_BUDGET: dict[str, float] = {"random": 0.0, "easy": 0.05, "medium": 0.25, "hard": 1.0}
# Seconds per move for a game whose search runs on its compiled core: a quarter of the above,
# so one core serves four times as many computer moves.
COMPILED_BUDGET: dict[str, float] = {level: seconds / 4 for level, seconds in DEFAULT_BUDGET.items()}
MAX_BUDGET = 2.0
# Games with a compiled core, by slug: the module that has ``compiled_core()``.
_COMPILED_GAMES = ("reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe")


def budget_for(slug: str, level: str) -> float:
    """Default seconds per move for ``level`` in the game ``slug`` (compiled or pure-Python search)."""
    if level not in DEFAULT_BUDGET:
        raise ValueError(f"unknown level {level!r}; choose from random, easy, medium, hard")
    module = importlib.import_module(f"games.ai.{slug}")
    compiled = getattr(module, "compiled_core", None)
    if compiled is not None and compiled() is not None:
        return COMPILED_BUDGET[level]
    return DEFAULT_BUDGET[level]


def warm_up() -> dict[str, float]:
    """Load (or compile, the first time on a machine) every compiled core; seconds taken per game.

    Cheap once numba's on-disk cache holds the machine code (well under a second in all);
    a few seconds per game on a fresh machine. Does nothing without numba. Then freezes
    the objects alive (``gc.freeze``), so that later garbage collections stay short.
    """
    taken = {}
    for slug in _COMPILED_GAMES:
        started = time.perf_counter()
        module = importlib.import_module(f"games.ai.{slug}")
        if module.compiled_core() is not None:
            module.warm_up()
            taken[slug] = time.perf_counter() - started
    if taken:
        # Loading numba leaves some 100,000 long-lived objects; every full garbage collection
        # would walk them again (about 40 ms, in the middle of somebody's timed search). Move
        # everything alive now out of the collector's sight.
        gc.collect()
        gc.freeze()
    return taken


def choose_move(
    engine: Engine,
    state: Any,
    level: str,
    *,
    seed: int | None = None,
    time_budget: float | None = None,
) -> str:
    """A legal move for the side to move in ``state`` at ``level``.

    The same ``seed`` gives the same move for the same position (as long as a
    search does not stop on the clock mid-way, which only the slowest levels do).
    """
    if level not in DEFAULT_BUDGET:
        raise ValueError(f"unknown level {level!r}; choose from random, easy, medium, hard")
    moves = engine.legal_moves(state)
    if not moves:
        raise IllegalMove("the game is over: there is no move to choose")
    rng = random.Random(seed)
    if len(moves) == 1:
        return moves[0]
    if level == "random":
        return rng.choice(moves)
    budget = min(budget_for(engine.slug, level) if time_budget is None else time_budget, MAX_BUDGET)
    deadline = time.perf_counter() + budget
    module = importlib.import_module(f"games.ai.{engine.slug}")
    move: str = module.choose(engine, state, level, rng, deadline)
    assert move in moves, f"{engine.slug} AI returned an illegal move {move!r}"
    return move
