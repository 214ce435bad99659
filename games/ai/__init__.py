"""Computer players for every game and level, on top of ``games.engines`` only.

``choose_move(engine, state, level)`` is the one entry point: the Celery task,
the arena command and the benchmarks all call it. Each game has its own module
(``games/ai/<slug>.py``) exposing ``choose(engine, state, level, rng, deadline)``.
"""

from __future__ import annotations

import importlib
import random
import time
from typing import Any, Literal

from games.engines.base import Engine, IllegalMove

Level = Literal["random", "easy", "medium", "hard"]
LEVELS: tuple[str, ...] = ("easy", "medium", "hard")

# Seconds per move. Hard stays well under the spec's 2 s ceiling on one core.
DEFAULT_BUDGET: dict[str, float] = {"random": 0.0, "easy": 0.05, "medium": 0.25, "hard": 1.0}
MAX_BUDGET = 2.0


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
    budget = min(DEFAULT_BUDGET[level] if time_budget is None else time_budget, MAX_BUDGET)
    deadline = time.perf_counter() + budget
    module = importlib.import_module(f"games.ai.{engine.slug}")
    move: str = module.choose(engine, state, level, rng, deadline)
    assert move in moves, f"{engine.slug} AI returned an illegal move {move!r}"
    return move
