"""A computer level on its compiled core against the same game's pure-Python search (today's Hard).

    .venv/bin/python bench/ai_versus.py reversi [--games 20] [--level hard] [--pure-budget 1.0]

Side A plays ``--level`` at its default budget on the compiled core; side B plays
the same level on the pure-Python search (the code path used without numba)
at ``--pure-budget`` seconds a move (1.0 s: Hard before the compiled cores).
Each game starts from a random opening of 2-4 plies (seeded) and every
opening is played twice, colours swapped. Prints W-D-L from A's side and the
CPU time per move of each side (time.process_time, not wall time: the
machine is shared).
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import choose_move  # noqa: E402
from games.ai._cores import pure_python  # noqa: E402
from games.engines import ENGINES  # noqa: E402


def play(slug: str, level: str, pure_budget: float, opening_seed: int, a_side: int, seed: int) -> tuple:
    engine = ENGINES[slug]
    rng = random.Random(opening_seed)
    state = engine.initial()
    for _ in range(rng.randint(2, 4)):
        if engine.outcome(state) is not None:
            break
        state = engine.play(state, rng.choice(engine.legal_moves(state)))
    cpu = {0: 0.0, 1: 0.0}
    count = {0: 0, 1: 0}
    ply = 0
    while (outcome := engine.outcome(state)) is None:
        side = engine.to_move(state)
        is_a = side == a_side
        started = time.process_time()
        if is_a:
            move = choose_move(engine, state, level, seed=seed * 1000 + ply)
        else:
            with pure_python():  # the pure-Python search for this move, as before the cores
                move = choose_move(engine, state, level, seed=seed * 1000 + ply, time_budget=pure_budget)
        who = 0 if is_a else 1
        cpu[who] += time.process_time() - started
        count[who] += 1
        state = engine.play(state, move)
        ply += 1
    result = 0.5 if outcome.winner is None else 1.0 if outcome.winner == a_side else 0.0
    return result, cpu, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("slug")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--pure-budget", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    module = importlib.import_module(f"games.ai.{args.slug}")
    if module.compiled_core() is None:
        sys.exit(f"{args.slug} has no compiled core here (numba missing or GAMES_AI_PURE_PYTHON set)")
    wins = draws = losses = 0
    cpu = {0: 0.0, 1: 0.0}
    count = {0: 0, 1: 0}
    for i in range(args.games):
        result, game_cpu, game_count = play(
            args.slug, args.level, args.pure_budget, args.seed + i // 2, i % 2, args.seed + i
        )
        wins += result == 1.0
        draws += result == 0.5
        losses += result == 0.0
        for who in (0, 1):
            cpu[who] += game_cpu[who]
            count[who] += game_count[who]
        print(f"game {i + 1}: {'win' if result == 1 else 'draw' if result == 0.5 else 'loss'}", flush=True)
    score = (wins + 0.5 * draws) / args.games
    print(
        f"{args.slug} {args.level} compiled v pure-Python at {args.pure_budget} s: {wins}-{draws}-{losses}"
        f" ({100 * score:.0f} %); cpu ms/move compiled {1000 * cpu[0] / max(count[0], 1):.0f},"
        f" pure {1000 * cpu[1] / max(count[1], 1):.0f}"
    )


if __name__ == "__main__":
    from games.ai import warm_up

    warm_up()  # choose_move searches compiled only once a game's core is loaded (compiles it if need be)
    main()
