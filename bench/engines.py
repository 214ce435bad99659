"""Engine speed on one core: perft nodes per second and random playouts per second.

.venv/bin/python bench/engines.py [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engines import ENGINES, perft  # noqa: E402

PERFT_DEPTH = {"reversi": 7, "ataxx": 4, "ultimate_ttt": 5, "quantum_ttt": 4, "four_tac_toe": 3}


def playouts_per_second(engine, seconds: float) -> tuple[float, int]:
    rng = random.Random(1)
    games = plies = 0
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        state = engine.initial()
        while moves := engine.legal_moves(state):
            state = engine.play(state, rng.choice(moves))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - started
    return games / elapsed, plies // max(games, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per playout measurement")
    args = parser.parse_args()
    print(f"{'game':<14}{'perft depth':>12}{'nodes':>12}{'nodes/s':>12}{'playouts/s':>12}{'plies/game':>12}")
    for slug, engine in ENGINES.items():
        depth = PERFT_DEPTH[slug]
        started = time.perf_counter()
        nodes = perft(engine, engine.initial(), depth)
        rate = nodes / (time.perf_counter() - started)
        playouts, plies = playouts_per_second(engine, args.seconds)
        print(f"{slug:<14}{depth:>12}{nodes:>12,}{rate:>12,.0f}{playouts:>12,.1f}{plies:>12}")


if __name__ == "__main__":
    main()
