"""Is the analysis's accuracy believable? A random player should score low, Hard against Hard high.

    .venv/bin/python bench/analysis_accuracy.py [--games N] [--seed S] [--hard-seconds T] [GAME ...]

Per game: ``--games`` games of a random player (seeded) against Hard, colours
alternating, and as many of Hard against Hard; each game analysed whole, as the
worker does (``games.ai.analysis``: every position evaluated at the fixed budget,
the moves judged, the accuracy summarised). Prints the random player's accuracy
(mean and worst case, the target is at most 50 %), both Hard players' (mean and
worst case, the target is at least 90 %), the labels the random player's moves got,
and the CPU seconds per analysed game. Hard moves at ``--hard-seconds`` a move (its
default budget on the compiled core is 0.25 s); its games depend on the machine's
speed, the random player's moves and the analysis do not.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import choose_move  # noqa: E402
from games.ai.analysis import LABELS, evaluate, judge_game, summarize  # noqa: E402
from games.engines import ENGINES, get  # noqa: E402


def play(slug: str, players: tuple[str, str], seed: int, hard_seconds: float) -> list[str]:
    engine = get(slug)
    rng = Random(seed)
    state, moves = engine.initial(), []
    while engine.outcome(state) is None:
        who = players[engine.to_move(state)]
        if who == "random":
            move = rng.choice(engine.legal_moves(state))
        else:
            move = choose_move(engine, state, "hard", seed=seed * 1000 + len(moves), time_budget=hard_seconds)
        moves.append(move)
        state = engine.play(state, move)
    return moves


def analyse(slug: str, moves: list[str]) -> tuple[list[dict], list[str], float]:
    """(both sides' summaries, the labels per side 0 and 1 as 'side:label', CPU seconds)."""
    engine = get(slug)
    started = time.process_time()
    state, evals = engine.initial(), []
    for index in range(len(moves) + 1):
        evals.append(evaluate(engine, state))
        if index < len(moves):
            state = engine.play(state, moves[index])
    judged = judge_game(engine, moves, evals)
    summary = [s.as_dict() for s in summarize(judged, [e.chances for e in evals])]
    seconds = time.process_time() - started
    return summary, [f"{j.side}:{j.label}" for j in judged], seconds


def _row(values: list[float]) -> str:
    return f"mean {statistics.mean(values):5.1f} min {min(values):5.1f} max {max(values):5.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("slugs", nargs="*", default=list(ENGINES))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hard-seconds", type=float, default=0.25)
    args = parser.parse_args()
    for slug in args.slugs:
        random_acc: list[float] = []
        hard_acc: list[float] = []
        labels: Counter[str] = Counter()
        seconds: list[float] = []
        for game in range(args.games):
            seed = args.seed * 1000 + game
            random_side = game % 2
            players = ("random", "hard") if random_side == 0 else ("hard", "random")
            summary, judged, cpu = analyse(slug, play(slug, players, seed, args.hard_seconds))
            seconds.append(cpu)
            if summary[random_side]["accuracy"] is not None:
                random_acc.append(summary[random_side]["accuracy"])
            labels.update(label.split(":")[1] for label in judged if label.startswith(f"{random_side}:"))
            summary, _, cpu = analyse(slug, play(slug, ("hard", "hard"), seed, args.hard_seconds))
            seconds.append(cpu)
            hard_acc += [s["accuracy"] for s in summary if s["accuracy"] is not None]
            print(
                f"  {slug} game {game + 1}: random {random_acc[-1] if random_acc else '-'}"
                f"  hard {hard_acc[-2:]}",
                file=sys.stderr,
                flush=True,
            )
        share = {name: labels[name] for name in LABELS if labels[name]}
        print(
            f"{slug:<13} random ({len(random_acc)}): {_row(random_acc)} | "
            f"hard v hard ({len(hard_acc)}): {_row(hard_acc)} | "
            f"analysis {statistics.mean(seconds):.1f} s CPU a game | random's labels {share}",
            flush=True,
        )


if __name__ == "__main__":
    from games.ai import warm_up

    warm_up()
    main()
