"""What a long game's replay page costs to serve (issue #38, finding 8).

    .venv/bin/python bench/replay.py [--plies 100 1000 3000] [--rounds 5]

Against a fresh embedded PostgreSQL in a temporary directory (or ``DATABASE_URL``:
never a shared one) and the cache of the settings (Redis at ``REDIS_URL``, else
this process's memory). For each length, a finished Ataxx game of that many plies
(tests/long_games.py: legal moves, stored directly) and, through Django's test
client (no network): the replay page's size, its serve time with an empty cache
(the first viewer) and then median of ``--rounds`` more (later viewers), and the
same for one page of positions (``positions.json``, the viewer stepping to the
start). Run on a checkout without pages (before the change), the page column is
the whole game and the positions columns say "-".
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

    os.environ["DATABASE_URL"] = start_embedded_postgres(Path(tempfile.mkdtemp(prefix="replay-bench-")))

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from tests.long_games import long_ataxx_game  # noqa: E402


def timed_get(client: Client, url: str, data: dict | None = None) -> tuple[float, int]:
    started = time.perf_counter()
    response = client.get(url, data or {}, secure=True)  # production settings redirect to https
    spent = time.perf_counter() - started
    assert response.status_code == 200, (url, response.status_code)
    return spent * 1000, len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plies", type=int, nargs="+", default=[100, 1000, 3000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    settings.ALLOWED_HOSTS = ["*"]
    # No collectstatic here: plain static URLs (production settings want a manifest).
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    call_command("migrate", verbosity=0)
    paged = (ROOT / "games" / "services" / "replays.py").exists()
    print(f"cache: {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}; paged replay: {paged}")
    print(
        f"{'plies':>6} {'page KB':>9} {'first ms':>9} {'later ms':>9}   "
        f"{'positions KB':>12} {'first ms':>9} {'later ms':>9}"
    )
    for plies in args.plies:
        game = long_ataxx_game(plies)
        client = Client()
        url = f"/play/{game.pk}/replay/"
        cache.clear()
        first, size = timed_get(client, url)
        later = statistics.median(timed_get(client, url)[0] for _ in range(args.rounds))
        row = f"{plies:>6} {size / 1024:>9.1f} {first:>9.1f} {later:>9.1f}   "
        if paged:
            positions = f"/play/{game.pk}/replay/positions.json"
            p_first, p_size = timed_get(client, positions, {"page": 0})
            p_later = statistics.median(
                timed_get(client, positions, {"page": 0})[0] for _ in range(args.rounds)
            )
            row += f"{p_size / 1024:>12.1f} {p_first:>9.1f} {p_later:>9.1f}"
        else:
            row += f"{'-':>12} {'-':>9} {'-':>9}"
        print(row, flush=True)


if __name__ == "__main__":
    main()
