"""An arena of scripted players against a real daphne and a real Celery worker (with beat).

    createdb -h 127.0.0.1 -U postgres bench_arena
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_arena REDIS_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python bench/arena.py --players 500 --minutes 10
    ... --players 100 --minutes 3      # a smaller, shorter first run

Each player is a registered account with a session: it keeps the tournament's
page socket open (/ws/tournament/<id>/: that is "on the page", and it says
where the next game is), and plays each game it is paired into with the bot
client (games/live/bot.py) over the game socket: Ataxx, one minute each, the
first legal move after a short random think. Every player joins at the start
and stays to the end.

The processes are production's layout (docs/operations.md): a worker for the
``live`` queue (results, pairings, flags; beat embedded in it) and one for the
``background`` and ``analysis`` queues (ratings, standings broadcasts), so the
results never queue behind the ratings; ``--one-worker`` runs `make run`'s single
worker for every queue instead. The bots, which stand in for browsers on other
machines, run at a lower priority (nice 10) than the site's processes.

Afterwards it reads the database and prints: games played; the pairing delay,
from a game's end (``finished_at``) to the start of the same player's next game
(``started_at``), p50/p99/max over every such pair of games; and whether any
player ever had two games at once (overlapping tournament games, or two games
active at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def make_players(n: int) -> list[tuple[object, str]]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    User = get_user_model()
    tag = f"{random.getrandbits(24):06x}"
    players = []
    for i in range(n):
        user = User.objects.create_user(username=f"arena{tag}{i}", password=None)
        client = Client()
        client.force_login(user)
        players.append((user, client.cookies["sessionid"].value))
    return players


async def player(port: int, tournament_id: int, cookie: str, stop_at: float, stats: dict) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidHandshake

    from games.live.bot import GameBot

    origin = f"http://127.0.0.1:{port}"
    headers = {"Cookie": f"sessionid={cookie}"}
    games: asyncio.Queue[int] = asyncio.Queue()
    for _attempt in range(20):  # a busy daphne may drop a handshake: try again, as a browser would
        try:
            page = await connect(
                f"ws://127.0.0.1:{port}/ws/tournament/{tournament_id}/",
                origin=origin,
                additional_headers=headers,
                open_timeout=30,
            )
            break
        except (OSError, TimeoutError, InvalidHandshake):
            await asyncio.sleep(0.5 + random.random())
    else:
        raise RuntimeError("the tournament page never opened")
    async with page:

        async def listen() -> None:
            async for raw in page:
                message = json.loads(raw)
                if message.get("type") == "tournament_game":
                    games.put_nowait(message["game_id"])

        listener = asyncio.create_task(listen())
        try:
            while time.monotonic() < stop_at:
                try:
                    game_id = await asyncio.wait_for(
                        games.get(), timeout=max(0.1, stop_at - time.monotonic())
                    )
                except TimeoutError:
                    break
                bot = GameBot(
                    f"ws://127.0.0.1:{port}/ws/game/{game_id}/",
                    cookie=cookie,
                    origin=origin,
                    think=lambda: random.uniform(0.05, 0.3),
                )
                try:
                    await bot.play(timeout=max(5.0, stop_at - time.monotonic() + 90))
                    stats["games"] += 1
                except TimeoutError:
                    stats["timeouts"] += 1
        finally:
            listener.cancel()


async def play_all(port: int, tournament_id: int, cookies: list[str], stop_at: float) -> dict:
    stats = {"games": 0, "timeouts": 0, "errors": 0}

    async def guarded(cookie: str) -> None:
        try:
            await player(port, tournament_id, cookie, stop_at, stats)
        except Exception as exc:
            stats["errors"] += 1
            if stats["errors"] == 1:
                import traceback

                traceback.print_exception(exc)

    await asyncio.gather(*(guarded(c) for c in cookies))
    return stats


def report(tournament_id: int) -> None:
    from collections import defaultdict

    from games.models import Game
    from tournaments.models import Pairing

    pairings = list(
        Pairing.objects.filter(tournament_id=tournament_id, game__isnull=False).select_related("game")
    )
    by_player: dict[int, list[Game]] = defaultdict(list)
    for pairing in pairings:
        by_player[pairing.white_id].append(pairing.game)
        by_player[pairing.black_id].append(pairing.game)
    delays, overlaps = [], 0
    for games in by_player.values():
        games.sort(key=lambda g: g.started_at)
        for before, after in zip(games, games[1:], strict=False):
            if before.finished_at is None or after.started_at < before.finished_at:
                overlaps += 1
                continue
            delays.append((after.started_at - before.finished_at).total_seconds())
    active = Game.objects.filter(pk__in=[p.game_id for p in pairings], status=Game.Status.ACTIVE)
    seats = [uid for pair in active.values_list("user0_id", "user1_id") for uid in pair]
    finished = sum(1 for p in pairings if p.game.status == Game.Status.FINISHED)
    print(f"games paired: {len(pairings)}, finished: {finished}, still running at the end: {active.count()}")
    if delays:
        print(
            f"pairing delay (a game's end to the same player's next start), {len(delays)} gaps: "
            f"p50 {statistics.median(delays):.3f} s, p99 {percentile(delays, 0.99):.3f} s, "
            f"max {max(delays):.3f} s"
        )
    print(
        f"players with two games at once: {overlaps} overlapping pairs, "
        f"{len(seats) - len(set(seats))} double seats among running games"
    )
    # Where a gap goes: the result waiting for the worker and being counted, then the
    # player waiting for a partner (the pairing runs in the same transaction as the count).
    counted, waited = [], []
    for pairings_of in by_pairing_player(pairings).values():
        for before, after in zip(pairings_of, pairings_of[1:], strict=False):
            if before.game.finished_at and before.scored_at and after.game.started_at >= before.scored_at:
                counted.append((before.scored_at - before.game.finished_at).total_seconds())
                waited.append((after.game.started_at - before.scored_at).total_seconds())
    for name, values in (("end to counted", counted), ("counted to next start", waited)):
        if values:
            print(
                f"  {name}: p50 {statistics.median(values):.3f} s, p90 {percentile(values, 0.9):.3f} s, "
                f"p99 {percentile(values, 0.99):.3f} s"
            )


def by_pairing_player(pairings: list) -> dict[int, list]:
    """Each player's pairings, in the order their games started."""
    from collections import defaultdict

    found: dict[int, list] = defaultdict(list)
    for pairing in pairings:
        found[pairing.white_id].append(pairing)
        found[pairing.black_id].append(pairing)
    for pairings_of in found.values():
        pairings_of.sort(key=lambda p: p.game.started_at)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument(
        "--worker-logs",
        metavar="DIR",
        help="write each worker's log (its tasks' received and succeeded lines) to DIR/worker<N>.log",
    )
    parser.add_argument(
        "--one-worker",
        action="store_true",
        help="one worker for every queue (make run's layout) instead of one for live and one for the rest",
    )
    args = parser.parse_args()
    if not (os.getenv("REDIS_URL") and os.getenv("DATABASE_URL")):
        sys.exit("set DATABASE_URL and REDIS_URL: the benchmark measures the production layer")

    import django

    django.setup()
    from datetime import timedelta

    from django.utils import timezone

    from launch.processes import celery_worker_command, daphne_command, free_port, wait_for_port
    from tournaments.models import Tournament

    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    env = {**os.environ, "WS_OPENS_PER_ADDRESS": "0"}  # every bot shares 127.0.0.1
    schedule = Path(tempfile.mkstemp(prefix="arena-beat-")[1])
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"bench_arena_daphne_{port}.log"
    if args.one_worker:  # `make run`'s layout: one worker for every queue, beat embedded
        workers = [celery_worker_command(concurrency=2, beat=True, schedule=schedule)]
    else:  # production's (docs/operations.md): the live queue's worker runs nothing else
        workers = [
            celery_worker_command(concurrency=2, beat=True, schedule=schedule, queues=("live",)),
            celery_worker_command(concurrency=1, queues=("background", "analysis")),
        ]
    procs = [
        *(
            subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=(Path(args.worker_logs) / f"worker{i}.log").open("w")
                if args.worker_logs
                else subprocess.DEVNULL,
            )
            for i, command in enumerate(workers)
        ),
        subprocess.Popen(
            daphne_command("127.0.0.1", port),
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log.open("w"),
        ),
    ]
    try:
        wait_for_port(port, timeout=60, proc=procs[-1])
        # The bots stand in for 500 browsers on other machines: on this one they
        # must not take the cores from the site's own processes (started above,
        # at the normal priority), so the harness lowers its own from here on.
        os.nice(10)
        players = make_players(args.players)
        time.sleep(5)  # daphne loads Django after it listens; the bots retry a dropped handshake
        start = timezone.now()
        arena = Tournament.objects.create(
            name="Bench arena",
            kind=Tournament.Kind.ARENA,
            game="ataxx",
            minutes=1,
            starts_at=start + timedelta(days=1),  # started below, once every page is open
            duration_minutes=max(1, round(args.minutes)),
        )
        stop_at = time.monotonic() + args.minutes * 60

        async def run() -> dict:
            from tournaments import services

            task = asyncio.create_task(play_all(port, arena.pk, [c for _u, c in players], stop_at))
            await asyncio.sleep(min(30, 2 + args.players / 50))  # the pages open
            await asyncio.to_thread(
                lambda: Tournament.objects.filter(pk=arena.pk).update(starts_at=timezone.now())
            )
            await asyncio.to_thread(services.start_if_due, arena.pk)
            for user, _cookie in players:
                await asyncio.to_thread(services.join, tournament_id=arena.pk, user=user)
            return await task

        began = time.monotonic()
        stats = asyncio.run(run())
        print(
            f"{args.players} players, {time.monotonic() - began:.0f} s; bots finished {stats['games']} games, "
            f"{stats['timeouts']} timeouts, {stats['errors']} bots failed"
        )
        report(arena.pk)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
