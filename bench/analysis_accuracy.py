"""Is the analysis's accuracy believable? A random player should score low, Hard against Hard high.

    .venv/bin/python bench/analysis_accuracy.py [--games N] [--seed S] [--hard-seconds T] [--cache DIR]
        [--pairs both|random|hard] [--play-only] [GAME ...]

Per game: ``--games`` games of a random player (seeded) against Hard, colours
alternating, and as many of Hard against Hard; each game analysed whole, as the
worker does (``games.ai.analysis``: every position evaluated at the fixed budget,
the moves judged, the accuracy summarised). Prints the random player's accuracy
(mean and worst case, the target is at most 50 %), both Hard players' (mean and
worst case, the target is at least 90 %), the labels the random player's moves got,
and the CPU seconds per analysed game. Hard moves at ``--hard-seconds`` a move (its
default budget on the compiled core is 0.25 s); its games depend on the machine's
speed, the random player's moves and the analysis do not.

``--cache DIR`` keeps each game's moves and position evaluations in DIR (one JSON file a
game); a later run with the same seeds judges those again without playing or searching,
which is how a change to the judging (``judge_game``, ``summarize``) is measured cheaply.
It is only valid while the evaluation (``evaluate``, its budgets and curves) is unchanged.
``--play-only`` stores the games' moves without analysing them (Hard's games depend on the
clock: play them on a quiet machine, analyse them later at any load); ``--pairs`` runs only
the random player's games or only Hard against Hard.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import choose_move  # noqa: E402
from games.ai.analysis import LABELS, PositionEval, evaluate, judge_game, summarize  # noqa: E402
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


def evaluations(slug: str, moves: list[str]) -> tuple[list[PositionEval], float]:
    """Every position of the game evaluated at the fixed budget, and the CPU seconds it took."""
    engine = get(slug)
    started = time.process_time()
    state, evals = engine.initial(), []
    for index in range(len(moves) + 1):
        evals.append(evaluate(engine, state))
        if index < len(moves):
            state = engine.play(state, moves[index])
    return evals, time.process_time() - started


def analyse(slug: str, moves: list[str], evals: list[PositionEval]) -> tuple[list[dict], list[str]]:
    """(both sides' summaries, the labels per side 0 and 1 as 'side:label')."""
    engine = get(slug)
    judged = judge_game(engine, moves, evals)
    summary = [s.as_dict() for s in summarize(judged, [e.chances for e in evals])]
    return summary, [f"{j.side}:{j.label}" for j in judged]


def one_game(
    slug: str,
    players: tuple[str, str],
    seed: int,
    hard_seconds: float,
    cache: Path | None,
    *,
    play_only: bool = False,
) -> tuple[list[dict], list[str], float | None] | None:
    """Play (or read from ``cache``) and analyse one game: summaries, labels, CPU seconds of analysis.

    ``play_only``: play the game and store its moves in ``cache``, analyse nothing (None), so
    that the games whose play depends on the clock are played while the machine is kept quiet
    and analysed later, when it need not be.
    """
    path = None if cache is None else cache / f"{slug}-{players[0]}-{players[1]}-{seed}.json"
    data = json.loads(path.read_text()) if path is not None and path.exists() else {}
    moves = data.get("moves")
    if moves is None:
        moves = play(slug, players, seed, hard_seconds)
        data = {"moves": moves, "hard_seconds": hard_seconds}
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data) + "\n")
    if play_only:
        return None
    seconds = None
    if "evals" in data:
        evals = [PositionEval.from_dict(e) for e in data["evals"]]
    else:
        evals, seconds = evaluations(slug, moves)
        if path is not None:
            data["evals"] = [e.as_dict() for e in evals]
            path.write_text(json.dumps(data) + "\n")
    summary, labels = analyse(slug, moves, evals)
    return summary, labels, seconds


def _row(values: list[float]) -> str:
    if not values:
        return "-"
    return f"mean {statistics.mean(values):5.1f} min {min(values):5.1f} max {max(values):5.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("slugs", nargs="*", default=list(ENGINES))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hard-seconds", type=float, default=0.25)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument(
        "--pairs",
        choices=("both", "random", "hard"),
        default="both",
        help="the random player's games, Hard against Hard, or both (default)",
    )
    parser.add_argument(
        "--play-only", action="store_true", help="with --cache: play and store the games, analyse none"
    )
    args = parser.parse_args()
    if args.play_only and args.cache is None:
        parser.error("--play-only needs --cache")
    for slug in args.slugs:
        random_acc: list[float] = []
        hard_acc: list[float] = []
        labels: Counter[str] = Counter()
        seconds: list[float] = []
        for game in range(args.games):
            seed = args.seed * 1000 + game
            random_side = game % 2
            players = ("random", "hard") if random_side == 0 else ("hard", "random")
            if args.pairs in ("both", "random"):
                got = one_game(slug, players, seed, args.hard_seconds, args.cache, play_only=args.play_only)
                if got is not None:
                    summary, judged, cpu = got
                    seconds += [] if cpu is None else [cpu]
                    if summary[random_side]["accuracy"] is not None:
                        random_acc.append(summary[random_side]["accuracy"])
                    side = f"{random_side}:"
                    labels.update(label.split(":")[1] for label in judged if label.startswith(side))
            if args.pairs in ("both", "hard"):
                got = one_game(
                    slug, ("hard", "hard"), seed, args.hard_seconds, args.cache, play_only=args.play_only
                )
                if got is not None:
                    summary, _, cpu = got
                    seconds += [] if cpu is None else [cpu]
                    hard_acc += [s["accuracy"] for s in summary if s["accuracy"] is not None]
            print(
                f"  {slug} game {game + 1}: random {random_acc[-1] if random_acc else '-'}"
                f"  hard {hard_acc[-2:]}",
                file=sys.stderr,
                flush=True,
            )
        if args.play_only:
            continue
        share = {name: labels[name] for name in LABELS if labels[name]}
        print(
            f"{slug:<13} random ({len(random_acc)}): {_row(random_acc)} | "
            f"hard v hard ({len(hard_acc)}): {_row(hard_acc)} | "
            f"analysis {statistics.mean(seconds) if seconds else float('nan'):.1f} s CPU a game"
            f" | random's labels {share}",
            flush=True,
        )


if __name__ == "__main__":
    from games.ai import warm_up

    warm_up()
    main()
