"""Reversi Hard with its learned evaluation against Hard with the hand-written one, at equal budget.

    .venv/bin/python bench/reversi_eval_versus.py [--games 40] [--budget S] [--seed 0]

Side A is today's Hard (``games.ai.choose_move``, the pattern evaluation); side B
is ``hard_classic`` in ``games/ai/reversi.py``: the same search, solver depths and
opening variation with the evaluation Hard had before (``evaluate_hard``). Both
get the same budget (Hard's default, 0.25 s on the compiled core, unless
``--budget``). Each game starts from a random opening of 2-4 plies (seeded) and
every opening is played twice, colours swapped. Prints each game, then W-D-L from
A's side, the disc difference summed over the games and both sides' CPU time per
move (time.process_time: the machine is shared).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import budget_for, choose_move, warm_up  # noqa: E402
from games.ai import reversi as reversi_ai  # noqa: E402
from games.engines.reversi import ReversiEngine  # noqa: E402

ENGINE = ReversiEngine()


def classic_move(state, budget: float, seed: int) -> str:  # type: ignore[no-untyped-def]
    """``choose_move`` for the old Hard (which it does not offer: not a level players can pick)."""
    moves = ENGINE.legal_moves(state)
    if len(moves) == 1:
        return moves[0]
    return reversi_ai.choose(ENGINE, state, "hard_classic", random.Random(seed), time.perf_counter() + budget)


def play(
    opening_seed: int, a_side: int, seed: int, budget: float
) -> tuple[float, int, list[float], list[float]]:
    rng = random.Random(opening_seed)
    state = ENGINE.initial()
    for _ in range(rng.randint(2, 4)):
        state = ENGINE.play(state, rng.choice(ENGINE.legal_moves(state)))
    cpu: list[list[float]] = [[], []]
    ply = 0
    while (outcome := ENGINE.outcome(state)) is None:
        is_a = ENGINE.to_move(state) == a_side
        started = time.process_time()
        if is_a:
            move = choose_move(ENGINE, state, "hard", seed=seed * 1000 + ply, time_budget=budget)
        else:
            move = classic_move(state, budget, seed * 1000 + ply)
        cpu[0 if is_a else 1].append(time.process_time() - started)
        state = ENGINE.play(state, move)
        ply += 1
    black, white = outcome.score
    diff = (black - white) if a_side == 0 else (white - black)
    result = 0.5 if outcome.winner is None else 1.0 if outcome.winner == a_side else 0.0
    return result, diff, cpu[0], cpu[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--budget", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    warm_up()
    budget = args.budget if args.budget is not None else budget_for("reversi", "hard")
    wins = draws = losses = discs = 0
    cpu_a: list[float] = []
    cpu_b: list[float] = []
    for i in range(args.games):
        result, diff, a, b = play(args.seed + i // 2, i % 2, args.seed + i, budget)
        wins += result == 1.0
        draws += result == 0.5
        losses += result == 0.0
        discs += diff
        cpu_a += a
        cpu_b += b
        colour = "black" if i % 2 == 0 else "white"
        print(f"game {i + 1} (learned {colour}): {diff:+d}", flush=True)
    score = (wins + 0.5 * draws) / args.games
    print(
        f"reversi hard learned v classic at {budget} s: {wins}-{draws}-{losses} ({100 * score:.0f} %),"
        f" discs {discs:+d}; cpu ms/move learned {1000 * sum(cpu_a) / max(len(cpu_a), 1):.0f}"
        f" (max {1000 * max(cpu_a, default=0):.0f}), classic {1000 * sum(cpu_b) / max(len(cpu_b), 1):.0f}"
        f" (max {1000 * max(cpu_b, default=0):.0f})"
    )


if __name__ == "__main__":
    main()
