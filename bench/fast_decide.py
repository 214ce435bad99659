"""The fast path's decision on one move, in-process: CPU time per ``games.live.fastpath._decide``.

.venv/bin/python bench/fast_decide.py [--moves N] [--rounds R]

The part of a fast-path move that is the game's rules (``services.decide.decide_move``
on a copy of the cached row, then ``seal``), without the database, the channel
layer or the socket: a figure that stays comparable on a shared machine, where
``bench/ws_load.py`` swings with the other work. It measures CPU time (not wall
time) and prints the best and the median of the rounds. Run it from two trees
to compare them; it needs no database (the row is built in memory).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.utils import timezone  # noqa: E402

from accounts.guests import Guest  # noqa: E402
from accounts.identity import Identity  # noqa: E402
from games.engines import get  # noqa: E402
from games.live import fastpath  # noqa: E402
from games.models import Game  # noqa: E402


def cached_row() -> tuple[fastpath.Seen, Identity]:
    """A timed Reversi game between two guests at ply 0, as a daphne process caches it; and its first mover."""
    engine = get("reversi")
    game = Game(
        pk=1,
        game="reversi",
        kind=Game.Kind.INVITE_LINK,
        status=Game.Status.ACTIVE,
        time_control=300,
        clock0_ms=300_000,
        clock1_ms=300_000,
        guest0_key="a",
        guest0_name="A",
        guest1_key="b",
        guest1_name="B",
        turn_started_at=timezone.now(),
        version=3,
        state=engine.dumps(engine.initial()),
    )
    seen = fastpath.Seen(tuple(getattr(game, name) for name in fastpath.FIELD_NAMES), [None, None])
    return seen, Identity(user=None, guest=Guest(key="a", name="A"))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=20_000, help="decisions per round")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    seen, mover = cached_row()
    for _ in range(args.moves // 10):  # warm-up
        fastpath._decide(seen, mover, "d3", 0, "m1")
    rounds = []
    for _ in range(args.rounds):
        started = time.process_time()
        for _ in range(args.moves):
            assert fastpath._decide(seen, mover, "d3", 0, "m1") is not None
        rounds.append((time.process_time() - started) / args.moves * 1e6)
    rounds.sort()
    print(
        f"fast path's decision (fastpath._decide, Reversi d3 at ply 0): best {rounds[0]:.1f} µs, "
        f"median {rounds[len(rounds) // 2]:.1f} µs of CPU a move ({args.rounds} rounds of {args.moves})"
    )


if __name__ == "__main__":
    main()
