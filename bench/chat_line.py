"""CPU of one chat line as the game socket stores it: on its event loop, or in a database thread.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_chat REDIS_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python bench/chat_line.py [--lines 2000] [--rounds 2]

Creates games between guests, then posts preset lines round-robin over them from one
event loop, alternately with ``chat.services.post_line_on_loop`` (what the socket does
on PostgreSQL with Redis) and with ``post_line`` through ``database_sync_to_async`` (what
it does elsewhere, and did before). Prints this process's CPU and the wall time per line
for each way; PostgreSQL's and Redis's own CPU is not in it. No line is announced.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=2000, help="lines per way and round")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    import django

    django.setup()
    from asgiref.sync import sync_to_async
    from channels.db import database_sync_to_async
    from django.core.cache import cache
    from django.core.management import call_command

    from accounts.guests import Guest
    from accounts.identity import Identity
    from chat import services
    from games import services as games
    from games.models import Game

    call_command("migrate", verbosity=0)
    if not services.posts_on_loop():
        sys.exit(
            "needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): elsewhere lines always take a thread"
        )

    def new_game(n: int) -> tuple[int, Identity]:
        tag = f"{time.time_ns():x}-{n}"
        black = Identity(None, Guest(key=f"chat-bench-{tag}-b", name="Guest 1111"))
        white = Identity(None, Guest(key=f"chat-bench-{tag}-w", name="Guest 2222"))
        game = games.create_human_game(
            identity=black, game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
        )
        games.join_game(game_id=game.pk, identity=white, token=game.invite_token)
        return game.pk, black

    in_thread = database_sync_to_async(services.post_line, thread_sensitive=False)

    async def run() -> None:
        # Four lines per author and way stay under the flood limit (five in ten seconds).
        authors = [await sync_to_async(new_game)(n) for n in range(max(1, args.lines // 4))]
        for round_ in range(args.rounds):
            for way in ("thread", "loop"):
                await sync_to_async(cache.clear)()
                started_cpu, started = cpu_seconds(), time.perf_counter()
                for n in range(args.lines):
                    game_id, author = authors[n % len(authors)]
                    line = {"game_id": game_id, "identity": author, "preset": "hello"}
                    if way == "loop":
                        result = await services.post_line_on_loop(**line)
                    else:
                        result = await in_thread(**line, announce=False)
                    assert result.ok, result.verdict
                cpu_ms = (cpu_seconds() - started_cpu) / args.lines * 1000
                wall_ms = (time.perf_counter() - started) / args.lines * 1000
                print(
                    f"round {round_ + 1}, {way:6}: {cpu_ms:.2f} ms CPU a line, {wall_ms:.2f} ms wall a line"
                )

    asyncio.run(run())


if __name__ == "__main__":
    main()
