"""Is the analysis's accuracy believable? A random player should score low, Hard against Hard high.

    .venv/bin/python bench/analysis_accuracy.py [--games N] [--seed S] [--hard-seconds T] [--cache DIR]
        [--pairs both|random|hard] [--play-only] [--max-plies N] [GAME ...]

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
the random player's games or only Hard against Hard. ``--max-plies`` (400) cuts a game still
going there and analyses it as far as it went: Ataxx has no rule against shuffling pieces for
ever, and a Hard pair without a clock sometimes does.

``--fit-weight`` (after a run with ``--cache`` has analysed both kinds of games) fits each
game's **accuracy weight** on those games: how many points of lichess's per-move accuracy
formula a point of winning percentage lost counts for (docs/analysis.md, "Accuracy"). It
is the smallest weight, never below 1 (lichess's own reading), at which the random
player's mean accuracy is at most ``RANDOM_TARGET``; it is refused if Hard's mean then
falls below ``HARD_TARGET``. ``--write`` stores it in
``games/ai/data/analysis_calibration.json`` with how it was got. Fit on one seed
(the committed weights: ``--seed 11``), check on another (the default 7).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import analysis, choose_move  # noqa: E402
from games.ai.analysis import LABELS, PositionEval, evaluate, judge_game, summarize  # noqa: E402
from games.engines import ENGINES, get  # noqa: E402


def play(slug: str, players: tuple[str, str], seed: int, hard_seconds: float, max_plies: int) -> list[str]:
    """The game's moves; one still going after ``max_plies`` is cut there (Ataxx has no rule against
    shuffling pieces for ever: on the site the clock ends such a game) and analysed as far as it went."""
    engine = get(slug)
    rng = Random(seed)
    state, moves = engine.initial(), []
    while engine.outcome(state) is None and len(moves) < max_plies:
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
    max_plies: int = 10_000,
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
        moves = play(slug, players, seed, hard_seconds, max_plies)
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


RANDOM_TARGET = 45.0  # the issue asks for at most 50: a margin for the games the weight was not fitted on
HARD_TARGET = 90.0


def cached_games(
    slug: str, cache: Path, seed: int, games: int
) -> list[tuple[tuple[str, str], list[str], list]]:
    """The analysed games of this seed in ``cache``: (players, moves, evaluations)."""
    found = []
    for game in range(games):
        random_side = game % 2
        pairs = [("random", "hard") if random_side == 0 else ("hard", "random"), ("hard", "hard")]
        for players in pairs:
            path = cache / f"{slug}-{players[0]}-{players[1]}-{seed * 1000 + game}.json"
            data = json.loads(path.read_text()) if path.exists() else {}
            if "evals" in data:
                found.append((players, data["moves"], [PositionEval.from_dict(e) for e in data["evals"]]))
    return found


def accuracies(slug: str, games: list, weight: float) -> tuple[float, float]:
    """The random player's and Hard's (against Hard) mean accuracy over ``games`` with the weight ``weight``."""
    engine = get(slug)
    random_acc, hard_acc = [], []
    for players, moves, evals in games:
        judged = analysis.judge_game(engine, moves, evals, accuracy_weight=weight)
        for side, summary in enumerate(summarize(judged, [e.chances for e in evals])):
            if summary.accuracy is None:
                continue
            if players[side] == "random":
                random_acc.append(summary.accuracy)
            elif players == ("hard", "hard"):
                hard_acc.append(summary.accuracy)
    return statistics.mean(random_acc), statistics.mean(hard_acc)


def fit_weight(slug: str, games: list) -> float:
    """The smallest weight (at least 1) putting the random player's mean at or under RANDOM_TARGET.

    Every move's accuracy falls as the weight grows (the volatility weights do not depend on it), so
    a bisection finds it.
    """
    if accuracies(slug, games, 1.0)[0] <= RANDOM_TARGET:
        return 1.0
    low, high = 1.0, 2.0
    while accuracies(slug, games, high)[0] > RANDOM_TARGET:
        low, high = high, 2 * high
        if high > 64:
            raise SystemExit(f"{slug}: no weight brings the random player to {RANDOM_TARGET} %")
    for _ in range(20):
        middle = (low + high) / 2
        low, high = (middle, high) if accuracies(slug, games, middle)[0] > RANDOM_TARGET else (low, middle)
    return math.ceil(high * 1000) / 1000  # rounded up: the random player stays at or under the target


def fit_and_write(args: argparse.Namespace) -> None:
    for slug in args.slugs:
        games = cached_games(slug, args.cache, args.seed, args.games)
        kinds = Counter("hard" if players == ("hard", "hard") else "random" for players, _, _ in games)
        if not kinds["random"] or not kinds["hard"]:
            raise SystemExit(f"{slug}: analyse both kinds of games of seed {args.seed} in {args.cache} first")
        weight = fit_weight(slug, games)
        random_at, hard_at = accuracies(slug, games, weight)
        random_1, hard_1 = accuracies(slug, games, 1.0)
        verdict = "ok" if hard_at >= HARD_TARGET else f"REFUSED: Hard under {HARD_TARGET} %"
        print(
            f"{slug:<13} weight {weight:.3f}: random {random_at:.1f} %, Hard {hard_at:.1f} %"
            f" (at 1: {random_1:.1f} %, {hard_1:.1f} %) on {kinds['random']} + {kinds['hard']} games  {verdict}",
            flush=True,
        )
        if not args.write or hard_at < HARD_TARGET:
            continue
        data = json.loads(analysis.CALIBRATION_FILE.read_text())
        data["games"][slug]["accuracy_weight"] = {
            "weight": weight,
            "random_accuracy": round(random_at, 2),
            "hard_accuracy": round(hard_at, 2),
            "at_1": [round(random_1, 2), round(hard_1, 2)],
            "target": RANDOM_TARGET,
            "games": [kinds["random"], kinds["hard"]],
            "seed": args.seed,
            "hard_seconds": args.hard_seconds,
            "budget": analysis.budget_for(slug),
            "fitted": time.strftime("%Y-%m-%d"),
        }
        analysis.CALIBRATION_FILE.write_text(json.dumps(data, indent=2) + "\n")


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
    parser.add_argument("--max-plies", type=int, default=400, help="a game still going is cut here")
    parser.add_argument(
        "--fit-weight", action="store_true", help="fit the accuracy weight on the cached games"
    )
    parser.add_argument("--write", action="store_true", help="with --fit-weight: store it")
    args = parser.parse_args()
    if (args.play_only or args.fit_weight) and args.cache is None:
        parser.error("--play-only and --fit-weight need --cache")
    if args.fit_weight:
        fit_and_write(args)
        return
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
                got = one_game(
                    slug,
                    players,
                    seed,
                    args.hard_seconds,
                    args.cache,
                    play_only=args.play_only,
                    max_plies=args.max_plies,
                )
                if got is not None:
                    summary, judged, cpu = got
                    seconds += [] if cpu is None else [cpu]
                    if summary[random_side]["accuracy"] is not None:
                        random_acc.append(summary[random_side]["accuracy"])
                    side = f"{random_side}:"
                    labels.update(label.split(":")[1] for label in judged if label.startswith(side))
            if args.pairs in ("both", "hard"):
                got = one_game(
                    slug,
                    ("hard", "hard"),
                    seed,
                    args.hard_seconds,
                    args.cache,
                    play_only=args.play_only,
                    max_plies=args.max_plies,
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
