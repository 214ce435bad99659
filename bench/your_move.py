"""The header's "Your move" count: wall time of ``games.store.selectors.your_move_count`` per page.

.venv/bin/python bench/your_move.py [--games N] [--calls C]

Every page a registered player opens counts the running games waiting for
their move (``games.context_processors.your_move``). It makes a player with N
running correspondence games (a mix of the five games, half of them waiting
for the player) and times C counts. Without ``DATABASE_URL`` it runs on a fresh
embedded PostgreSQL; with it, on that database (it makes two players ``bench_a`` and
``bench_b`` and removes their games afterwards).
"""

from __future__ import annotations

import argparse
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

    os.environ["DATABASE_URL"] = start_embedded_postgres(Path(tempfile.mkdtemp(prefix="your-move-bench-")))

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402

from accounts.identity import Identity  # noqa: E402
from games import services  # noqa: E402
from games.models import Game  # noqa: E402
from games.store.selectors import your_move_count  # noqa: E402

SLUGS = ["reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    a, _ = users.get_or_create(username="bench_a")
    b, _ = users.get_or_create(username="bench_b")
    Game.objects.filter(user0__in=[a, b]).delete()
    try:
        for i in range(args.games):
            game = services.create_human_game(
                identity=Identity(a, None),
                game=SLUGS[i % len(SLUGS)],
                kind=Game.Kind.INVITE_LINK,
                side=i % 2,
                days_per_move=3,
            )
            services.join_game(game_id=game.pk, identity=Identity(b, None), token=game.invite_token)
        for _ in range(3):
            your_move_count(a)
        samples = []
        for _ in range(args.calls):
            start = time.perf_counter()
            count = your_move_count(a)
            samples.append((time.perf_counter() - start) * 1000)
        samples.sort()
        p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
        print(
            f"running games: {args.games}, waiting for the player: {count}; "
            f"your_move_count p50 {statistics.median(samples):.2f} ms, p99 {p99:.2f} ms over {args.calls} calls"
        )
    finally:
        Game.objects.filter(user0__in=[a, b]).delete()


if __name__ == "__main__":
    main()
