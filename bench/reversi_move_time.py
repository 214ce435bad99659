"""Time per Reversi computer move at its default budget: the max and mean over positions from random games.

    .venv/bin/python bench/reversi_move_time.py [--positions 60] [--level hard] [--seed 7] [--budget S]

The positions come from seeded random games, spread over the whole game (2 to 58
discs placed, so the endgame solver's range is well covered). The cores are warmed
up first (``games.ai.warm_up``), as a worker does at start. For each position one
``choose_move`` at the level's default budget (the compiled one when numba is
there); prints wall and CPU time (``time.process_time``: on a shared machine a
move can take longer on the wall than it used the CPU) and lists every move over
1.5 times its budget. Exits with status 1 if the worst move's CPU time is over
1.5 times the budget.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import budget_for, choose_move, warm_up  # noqa: E402
from games.engines.reversi import ReversiEngine, ReversiState  # noqa: E402

ENGINE = ReversiEngine()


def positions(count: int, seed: int) -> list[ReversiState]:
    rng = random.Random(seed)
    found: list[ReversiState] = []
    while len(found) < count:
        target = 2 + len(found) * 56 // count  # an even spread of game stages
        state = ENGINE.initial()
        for _ in range(target):
            moves = ENGINE.legal_moves(state)
            if not moves:
                break
            state = ENGINE.play(state, rng.choice(moves))
        if ENGINE.outcome(state) is None and len(ENGINE.legal_moves(state)) > 1:
            found.append(state)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--budget", type=float, default=None, help="seconds a move (default: the level's)")
    args = parser.parse_args()
    warm_up()
    budget = args.budget if args.budget is not None else budget_for("reversi", args.level)
    walls, cpus = [], []
    over = []
    for i, state in enumerate(positions(args.positions, args.seed)):
        empties = 64 - sum(ENGINE.score(state))
        wall, cpu = time.perf_counter(), time.process_time()
        choose_move(ENGINE, state, args.level, seed=i, time_budget=budget)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        walls.append(wall)
        cpus.append(cpu)
        if max(wall, cpu) > 1.5 * budget:
            over.append(f"  position {i} ({empties} empties): wall {wall:.3f} s, cpu {cpu:.3f} s")
    print(f"reversi {args.level} at {budget} s a move, {len(cpus)} positions from random games:")
    print(f"  cpu  mean {statistics.mean(cpus):.3f} s  max {max(cpus):.3f} s")
    print(f"  wall mean {statistics.mean(walls):.3f} s  max {max(walls):.3f} s")
    print(f"  over 1.5x the budget: {len(over)}")
    print("\n".join(over))
    if max(cpus) > 1.5 * budget:
        sys.exit(1)


if __name__ == "__main__":
    main()
