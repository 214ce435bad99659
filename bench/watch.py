"""The Watch page's refresh: what one daphne process with a Watch page open pays every GAMES_WATCH_SECONDS.

    .venv/bin/python bench/watch.py [--games 500] [--spectators 20] [--rounds 50]

Against a fresh embedded PostgreSQL in a temporary directory (or ``DATABASE_URL``,
e.g. your own PostgreSQL database: never a shared one), and Redis at ``REDIS_URL``
if set (use a database number of your own: the keys go under ``presence:``).
``--games`` games in play between rated players, each with a Reversi rating;
the shown games (30, plus the TV's) get ``--spectators`` spectators each, held by
this process. Printed: the read of the games in play with their ratings
(``watchlist.games_in_play``: two queries), the spectator counts of the games
shown (one Redis script), and one viewer's message built and encoded, p50 / max.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if not os.environ.get("DATABASE_URL"):
    from launch.postgres import start_embedded_postgres

    os.environ["DATABASE_URL"] = start_embedded_postgres(Path(tempfile.mkdtemp(prefix="watch-bench-")))

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.utils import timezone  # noqa: E402

from core.websocket import compact_json  # noqa: E402
from games.live import spectators  # noqa: E402
from games.live.watch import payload, shown_ids  # noqa: E402
from games.models import Game  # noqa: E402
from games.store import watchlist  # noqa: E402
from ratings.models import Rating  # noqa: E402


def timed(func, rounds: int) -> tuple[float, float]:
    spent = []
    for _ in range(rounds):
        started = time.perf_counter()
        func()
        spent.append(time.perf_counter() - started)
    return statistics.median(spent) * 1000, max(spent) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--spectators", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    User = get_user_model()
    stamp = time.time_ns()
    users = User.objects.bulk_create(
        [User(username=f"w{stamp}-{i}") for i in range(2 * args.games)], batch_size=500
    )
    Rating.objects.bulk_create(
        [
            Rating(user=user, game="reversi", value=1000 + i % 1200, rated_games=i % 30)
            for i, user in enumerate(users)
        ],
        batch_size=500,
    )
    now = timezone.now()
    Game.objects.bulk_create(
        [
            Game(game="reversi", kind=Game.Kind.LOBBY, status=Game.Status.ACTIVE, user0=users[2 * i],
                 user1=users[2 * i + 1], started_at=now, ply=i % 60, increment=3)
            for i in range(args.games)
        ],
        batch_size=500,
    )  # fmt: skip
    games = watchlist.games_in_play()
    shown = sorted(shown_ids(games, set()))

    async def watch_all() -> None:
        for game_id in shown:
            for viewer in range(args.spectators):
                await spectators.change(game_id, f"u{viewer}", +1)

    asyncio.run(watch_all())
    read = timed(watchlist.games_in_play, args.rounds)
    count = timed(lambda: spectators.counts_now(shown), args.rounds)
    counted = watchlist.with_spectators(games, spectators.counts_now(shown))
    build = timed(lambda: compact_json(payload(counted, set())), args.rounds)
    backend = "PostgreSQL" if os.environ["DATABASE_URL"].startswith("postgres") else "SQLite"
    redis = "Redis" if os.environ.get("REDIS_URL") else "no Redis (this process's counts)"
    print(
        f"{args.games} games in play ({backend}), {len(shown)} shown x {args.spectators} spectators ({redis})"
    )
    print(f"games in play with ratings: p50 {read[0]:.1f} ms, max {read[1]:.1f} ms")
    print(f"spectator counts of the shown games: p50 {count[0]:.2f} ms, max {count[1]:.2f} ms")
    print(f"one viewer's message built and encoded: p50 {build[0]:.2f} ms, max {build[1]:.2f} ms")

    async def leave_all() -> None:
        for game_id in shown:
            for viewer in range(args.spectators):
                await spectators.change(game_id, f"u{viewer}", -1)

    asyncio.run(leave_all())


if __name__ == "__main__":
    main()
