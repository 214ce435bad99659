"""Computer moves per second per core, for each game and level, at the default budgets.

    .venv/bin/python bench/ai_throughput.py [--positions 30] [--levels hard] [--only reversi,ataxx]

Plays the level on positions sampled from seeded random games (every phase of
the game) and counts CPU time (time.process_time: the machine is shared, so
wall time would measure the neighbours too). One core serves ``moves / cpu
seconds`` moves of that level per second; "search" says whether the game ran
on its compiled core or on the pure-Python search.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import budget_for, choose_move, warm_up  # noqa: E402
from games.engines import ENGINES  # noqa: E402


def positions(slug: str, count: int, seed: int) -> list:
    engine = ENGINES[slug]
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = engine.initial()
        game = [state]
        while engine.outcome(state) is None:
            state = engine.play(state, rng.choice(engine.legal_moves(state)))
            game.append(state)
        live = [s for s in game if engine.outcome(s) is None and len(engine.legal_moves(s)) > 1]
        if live:
            found.append(live[rng.randrange(len(live))])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--levels", default="hard")
    parser.add_argument("--only", default="", help="comma-separated game slugs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    slugs = [s for s in args.only.split(",") if s] or list(ENGINES)
    started = time.process_time()
    warm_up()
    print(f"warm-up (load or compile the compiled cores): {time.process_time() - started:.2f} s cpu")
    print(f"{'game':<14}{'level':<8}{'search':<10}{'budget s':>9}{'cpu ms/move':>12}{'moves/s/core':>14}")
    for slug in slugs:
        engine = ENGINES[slug]
        compiled = getattr(importlib.import_module(f"games.ai.{slug}"), "compiled_core", lambda: None)()
        sample = positions(slug, args.positions, args.seed)
        for level in args.levels.split(","):
            cpu = 0.0
            for i, state in enumerate(sample):
                began = time.process_time()
                choose_move(engine, state, level, seed=i)
                cpu += time.process_time() - began
            per_move = cpu / len(sample)
            print(
                f"{slug:<14}{level:<8}{'compiled' if compiled is not None else 'python':<10}"
                f"{budget_for(slug, level):>9.3f}{1000 * per_move:>12.0f}{1 / per_move:>14.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
