"""Time the post-game analysis (games/ai/analysis/) of whole games of each game.

    .venv/bin/python bench/analysis.py [--games N] [--seed S] [--python] [GAME ...]

Plays N games per game between the computer's Medium and Easy levels (fixed
seeds), then analyses each game at the fixed budget (``budget_for``: the compiled
``BUDGET`` once the game's core is loaded, ``PYTHON_BUDGET`` with ``--python``):
every position evaluated once, as the Celery task does. Prints, per game, the
plies of each game, the CPU time of its analysis (one core), the slowest single
position, and "cold": the first game's time plus loading that game's compiled
core in this fresh process (from numba's on-disk cache), what a worker's first
analysis of the game costs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import choose_move, warm_up_game  # noqa: E402
from games.ai._cores import pure_python  # noqa: E402
from games.ai.analysis import budget_for, evaluate, judge_game, summarize  # noqa: E402
from games.engines import ENGINES, get  # noqa: E402


def play(slug: str, seed: int) -> list[str]:
    engine = get(slug)
    state, moves = engine.initial(), []
    while engine.outcome(state) is None:
        level = ("medium", "easy")[(engine.to_move(state) + seed) % 2]
        move = choose_move(engine, state, level, seed=seed * 1000 + len(moves), time_budget=0.1)
        moves.append(move)
        state = engine.play(state, move)
    return moves


def analyse(slug: str, moves: list[str]) -> tuple[float, float, int]:
    """(CPU seconds for the whole game, slowest position, errors found)."""
    engine = get(slug)
    state = engine.initial()
    evals, slowest = [], 0.0
    started = time.process_time()
    for index in range(len(moves) + 1):
        before = time.process_time()
        evals.append(evaluate(engine, state))
        slowest = max(slowest, time.process_time() - before)
        if index < len(moves):
            state = engine.play(state, moves[index])
    judged = judge_game(engine, moves, evals)
    total = time.process_time() - started
    errors = sum(sum(side.counts.values()) for side in summarize(judged))
    return total, slowest, errors


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", default=list(ENGINES))
    parser.add_argument("--games", dest="count", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--python", action="store_true", help="the pure-Python fallback")
    args = parser.parse_args()
    print(
        f"{'game':<14} {'budget':<22} {'plies':>12} {'s per game':>22} {'s per ply':>10} "
        f"{'slowest':>8} {'cold':>6}"
    )
    for slug in args.games:
        games = [play(slug, args.seed + i) for i in range(args.count)]
        started = time.process_time()
        if not args.python:
            warm_up_game(slug)  # this fresh process loads the game's core: part of the cold figure
        load = time.process_time() - started
        if args.python:
            with pure_python():
                rows = [(len(moves), *analyse(slug, moves)) for moves in games]
                budget = budget_for(slug)
        else:
            rows = [(len(moves), *analyse(slug, moves)) for moves in games]
            budget = budget_for(slug)
        plies = [r[0] for r in rows]
        seconds = [r[1] for r in rows]
        shown = ", ".join(f"{k} {v}" for k, v in budget.items())
        print(
            f"{slug:<14} {shown:<22} {'/'.join(map(str, plies)):>12} "
            f"{'/'.join(f'{s:.1f}' for s in seconds):>22} {sum(seconds) / sum(plies):>10.3f} "
            f"{max(r[2] for r in rows):>8.2f} {load + seconds[0]:>6.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
