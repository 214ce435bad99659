"""Does the analysis read a move's cost right? Play both moves out, Hard against Hard, and compare.

    .venv/bin/python bench/analysis_playouts.py GAME --cache DIR [--positions 40] [--playouts 12]
        [--hard-seconds 0.03] [--plies 2-24] [--slice K/N]

Reads the random player's games that ``bench/analysis_accuracy.py --cache DIR`` stored (their
moves and every position's evaluation). From them it draws ``--positions`` positions where the
random player chose a move other than the analysis's best (seeded, within ``--plies``), and from
each plays the analysis's best move and the move played, each followed by ``--playouts`` games of
Hard against Hard at ``--hard-seconds`` a move. Printed per position and in sum: what the analysis
said (the random player's winning chances after its best move and after the move played) and what
the playouts scored for that player after each. If the analysis reads a move's cost right, the
two drops agree on average (the playouts' own error is printed with them).

Hard's playouts depend on the clock: run it on a quiet machine. ``--slice K/N`` plays every N-th
position from the K-th, so that N processes (one a core) share the work; ``--summary FILE ...``
prints the sum of the JSON lines those processes printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import choose_move  # noqa: E402
from games.engines import get  # noqa: E402


def samples(slug: str, cache: Path, plies: tuple[int, int], count: int) -> list[dict]:
    """Positions where the random player's move was not the analysis's best, seeded."""
    engine = get(slug)
    found = []
    for path in sorted(cache.glob(f"{slug}-*random*.json")):
        data = json.loads(path.read_text())
        if "evals" not in data:
            continue
        random_side = 0 if f"{slug}-random-hard-" in path.name else 1
        sign = 1 if random_side == 0 else -1
        state = engine.initial()
        for ply, move in enumerate(data["moves"]):
            before, after = data["evals"][ply], data["evals"][ply + 1]
            if (
                engine.to_move(state) == random_side
                and plies[0] <= ply <= plies[1]
                and len(engine.legal_moves(state)) > 1
                and before["best"] not in (None, move)
            ):
                found.append(
                    {
                        "game": path.name,
                        "ply": ply,
                        "side": random_side,
                        "moves": data["moves"][:ply],
                        "played": move,
                        "best": before["best"],
                        "analysis_before": (sign * before["chances"] + 1) / 2,
                        "analysis_after": (sign * after["chances"] + 1) / 2,
                    }
                )
            state = engine.play(state, move)
    Random(1).shuffle(found)
    return found[:count]


def playout_score(slug: str, state, side: int, seed: int, seconds: float) -> float:
    """Hard against Hard from ``state`` to the end: 1, 0.5 or 0 for ``side``."""
    engine = get(slug)
    ply = 0
    while engine.outcome(state) is None:
        state = engine.play(state, choose_move(engine, state, "hard", seed=seed + ply, time_budget=seconds))
        ply += 1
    winner = engine.outcome(state).winner
    return 0.5 if winner is None else 1.0 if winner == side else 0.0


def summary(rows: list[dict]) -> str:
    played = [r["playouts_best"] - r["playouts_played"] for r in rows]
    said = [r["analysis_before"] - r["analysis_after"] for r in rows]
    error = statistics.pstdev(played) / len(played) ** 0.5 if len(played) > 1 else float("nan")
    return (
        f"{len(rows)} positions: the move's cost by the playouts {100 * statistics.mean(played):.1f}"
        f" ± {100 * error:.1f} points (one standard error), by the analysis {100 * statistics.mean(said):.1f};"
        f" the random player's chances after the best move: playouts"
        f" {100 * statistics.mean(r['playouts_best'] for r in rows):.1f} %, analysis"
        f" {100 * statistics.mean(r['analysis_before'] for r in rows):.1f} %"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("slug", nargs="?")
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--playouts", type=int, default=12)
    parser.add_argument("--hard-seconds", type=float, default=0.03)
    parser.add_argument("--plies", default="2-24")
    parser.add_argument("--slice", default="0/1")
    parser.add_argument("--summary", nargs="+", type=Path, help="sum these processes' printed lines")
    args = parser.parse_args()
    if args.summary:
        rows = [json.loads(line) for path in args.summary for line in path.read_text().splitlines() if line]
        print(summary(rows))
        return
    if args.slug is None or args.cache is None:
        parser.error("GAME and --cache are needed (or --summary)")
    low, high = (int(x) for x in args.plies.split("-"))
    part, parts = (int(x) for x in args.slice.split("/"))
    engine = get(args.slug)
    rows = []
    for sample in samples(args.slug, args.cache, (low, high), args.positions)[part::parts]:
        state = engine.initial()
        for move in sample["moves"]:
            state = engine.play(state, move)
        for name in ("best", "played"):
            after = engine.play(state, sample[name])
            scores = [
                playout_score(args.slug, after, sample["side"], 1000 * k + sample["ply"], args.hard_seconds)
                for k in range(args.playouts)
            ]
            sample[f"playouts_{name}"] = sum(scores) / len(scores)
        del sample["moves"]
        rows.append(sample)
        print(json.dumps(sample), flush=True)
    if rows:
        print(summary(rows), file=sys.stderr)


if __name__ == "__main__":
    from games.ai import warm_up

    warm_up()
    main()
