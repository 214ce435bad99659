"""Quick pairing under churn: how long two players pressing the same button wait for their game.

    .venv/bin/python bench/pairing.py [--seekers 200] [--trials 200]

Against a fresh embedded PostgreSQL in a temporary directory (or ``DATABASE_URL``,
e.g. your own PostgreSQL database: never a shared one). ``--seekers`` players
keep seeking and cancelling across every pool (game x 1+0, 3+2, 5+3, 10+5,
15+10), a third of them asking for casual, with ratings spread over 1000-2200,
so the pools are full of seekers who do not fit each other; between rounds of that churn, two players of equal rating press the
same button, the second within 1 s of the first. Printed: the time from the
second press to their game being stored (``pairing.seek`` returns it), p50 /
p99 / max, and the sweep's time over the whole crowd (the sweep is what pairs
seekers whose ranges had to widen). The "paired" message's trip over the
notification socket is not included (bench/ws_load.py measures socket delivery).
"""

from __future__ import annotations

import argparse
import os
import random
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

    os.environ["DATABASE_URL"] = start_embedded_postgres(Path(tempfile.mkdtemp(prefix="pairing-bench-")))

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402

from accounts.identity import Identity  # noqa: E402
from games import bus  # noqa: E402
from games.models import GAME_CHOICES, Seek  # noqa: E402
from games.services import pairing  # noqa: E402

POOLS = [
    (slug, minutes, increment) for slug, _name in GAME_CHOICES for minutes, increment in pairing.QUICK_POOLS
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seekers", type=int, default=200)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    call_command("migrate", verbosity=0)
    bus.send_paired = lambda user_id, game_id, **notice: None  # no channel layer here: see the docstring
    User = get_user_model()
    crowd = [User.objects.create_user(f"crowd{i}-{rng.random():.9f}") for i in range(args.seekers)]
    ratings = {user.pk: rng.randrange(1000, 2200, 10) for user in crowd}
    pairing.rating_of = lambda user, game: ratings.get(user.pk, 1500)

    def press(user, game: str, minutes: int, increment: int, *, casual: bool = False):
        return pairing.seek(
            identity=Identity(user, None), game=game, minutes=minutes, increment=increment, casual=casual
        )

    for user in crowd:
        press(user, *rng.choice(POOLS), casual=rng.random() < 1 / 3)

    waits: list[float] = []
    sweeps: list[float] = []
    for trial in range(args.trials):
        for user in rng.sample(crowd, 20):  # churn: some stop waiting, some press another button
            if rng.random() < 0.3:
                pairing.cancel_seek(user_id=user.pk)
            else:
                press(user, *rng.choice(POOLS), casual=rng.random() < 1 / 3)
        pool = rng.choice(POOLS)
        first, second = (User.objects.create_user(f"pair{trial}-{side}") for side in (0, 1))
        ratings[first.pk] = ratings[second.pk] = rng.randrange(1000, 2200, 10)
        press(first, *pool)
        started = time.perf_counter()
        made = press(second, *pool, casual=rng.random() < 1 / 3)
        waited = time.perf_counter() - started
        if made is None or {made.user0_id, made.user1_id} != {first.pk, second.pk}:
            # Paired with someone from the crowd instead: still a game at once, counted as one.
            pairing.cancel_seek(user_id=first.pk)
            pairing.cancel_seek(user_id=second.pk)
        waits.append(waited)
        if trial % 10 == 0:
            started = time.perf_counter()
            pairing.sweep()
            sweeps.append(time.perf_counter() - started)

    waiting = Seek.objects.count()
    print(f"seekers churning: {args.seekers} (waiting at the end: {waiting}), trials: {args.trials}")
    print(
        f"second press -> game stored: p50 {statistics.median(waits) * 1000:.1f} ms, "
        f"p99 {percentile(waits, 0.99) * 1000:.1f} ms, max {max(waits) * 1000:.1f} ms (target p99 <= 1000 ms)"
    )
    print(
        f"sweep over the crowd: p50 {statistics.median(sweeps) * 1000:.1f} ms, max {max(sweeps) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
