"""Strength of the computer levels: a cross-table per game and the time per move.

    .venv/bin/python bench/ai_strength.py [--games 20] [--only reversi,ataxx] [--full]

By default each level plays the one below it (easy v random, medium v easy,
hard v medium), which is what the targets are about (75 % or more each);
``--full`` plays every pair. Each level uses its default budget (Hard 0.25 s a
move on a compiled core, 1 s on the pure-Python search), so a run takes a while:
about 3 minutes for 20 games of Four Tac Toe's hard v medium on its compiled core.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai.arena import play_match  # noqa: E402
from games.engines import ENGINES  # noqa: E402

LEVELS = ["random", "easy", "medium", "hard"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--only", default="", help="comma-separated game slugs")
    parser.add_argument("--full", action="store_true", help="every pair of levels, not only neighbours")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    slugs = [s for s in args.only.split(",") if s] or list(ENGINES)
    if args.full:
        pairs = [(b, a) for a, b in itertools.combinations(LEVELS, 2)]
    else:
        pairs = [(LEVELS[i + 1], LEVELS[i]) for i in range(len(LEVELS) - 1)]
    print(f"{'game':<14}{'pairing':<18}{'W-D-L':>10}{'score':>8}{'avg ms':>9}{'max ms':>9}{'wall s':>8}")
    for slug in slugs:
        for stronger, weaker in pairs:
            started = time.perf_counter()
            result = play_match(ENGINES[slug], stronger, weaker, games=args.games, seed=args.seed)
            average, worst = result.timing(stronger)
            wdl = f"{result.wins}-{result.draws}-{result.losses}"
            print(
                f"{slug:<14}{stronger + ' v ' + weaker:<18}{wdl:>10}{100 * result.score:>7.0f}%"
                f"{average * 1000:>9.0f}{worst * 1000:>9.0f}{time.perf_counter() - started:>8.0f}",
                flush=True,
            )


if __name__ == "__main__":
    from games.ai import warm_up

    warm_up()  # choose_move searches compiled only once a game's core is loaded (compiles it if need be)
    main()
