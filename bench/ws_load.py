"""Websocket load: N concurrent Reversi games of scripted clients against real daphne processes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/ws_load.py --games 300 --servers 1 --seconds 20
    ... --servers 2            # each game's players on different processes
    ... --closed-loop          # no thinking time: saturation
    ... --warmup 5             # round trips of moves sent in the first 5 s are reported apart
    ... --reconnect-storm      # every socket drops and comes back at once

It migrates the database, starts the daphne processes itself (and a Celery
worker), creates the games and guest sessions, and prints offered and achieved
moves per second, the move round trip (mover's send to the mover seeing the
broadcast) p50/p99/p99.9, stalled games (no move for 3 s), errors and the
servers' CPU. Traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
os.environ.setdefault("DJANGO_HTTPS", "0")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "0")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def make_games(n: int) -> list[tuple[int, str, str]]:
    import django

    django.setup()
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.guests import Guest
    from accounts.identity import Identity
    from games import services
    from games.models import Game

    def guest_session(tag: str) -> tuple[Identity, str]:
        guest = Guest(key=f"load-{tag}-{random.getrandbits(64):x}", name=f"Guest {random.randint(1000, 9999)}")
        session = SessionStore()
        session["guest"] = {"key": guest.key, "name": guest.name}
        session.create()
        return Identity(user=None, guest=guest), session.session_key

    games = []
    for i in range(n):
        black, black_cookie = guest_session(f"{i}b")
        white, white_cookie = guest_session(f"{i}w")
        game = services.create_human_game(identity=black, game="reversi", kind=Game.Kind.INVITE_LINK, side=0,
                                          minutes=15)
        services.join_game(game_id=game.pk, identity=white, token=game.invite_token)
        games.append((game.pk, black_cookie, white_cookie))
    return games


async def run_games(games, ports, *, seconds: float, closed_loop: bool) -> tuple[list, float, float]:
    from games.bot import GameBot

    def think() -> float:
        return 0.0 if closed_loop else random.uniform(0.5, 1.5)

    gate = asyncio.Semaphore(50)  # at most 50 handshakes in flight
    bots = []
    for i, (game_id, black, white) in enumerate(games):
        port_b, port_w = ports[i % len(ports)], ports[(i + 1) % len(ports)]
        bots.append(GameBot(f"ws://127.0.0.1:{port_b}/ws/game/{game_id}/", cookie=black, think=think,
                            connect_gate=gate))
        bots.append(GameBot(f"ws://127.0.0.1:{port_w}/ws/game/{game_id}/", cookie=white, think=think,
                            connect_gate=gate))

    async def one(bot):
        with contextlib.suppress(TimeoutError):  # the measurement window ended mid-game
            await bot.play(timeout=seconds)

    started = time.perf_counter()
    await asyncio.gather(*(one(bot) for bot in bots))
    return bots, started, time.perf_counter() - started


async def reconnect_storm(games, ports, pids) -> tuple[float, list[float], list[float]]:
    from websockets.asyncio.client import connect

    async def open_one(port, game_id, cookie):
        t = time.perf_counter()
        ws = await connect(f"ws://127.0.0.1:{port}/ws/game/{game_id}/", origin="http://127.0.0.1",
                           additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=30)
        await ws.recv()  # the state message: this socket is back in its game
        return ws, time.perf_counter() - t

    targets = [(ports[0], g, c) for g, b, w in games for c in (b, w)]
    sem = asyncio.Semaphore(50)

    async def guarded(*args):
        async with sem:
            return await open_one(*args)

    first = await asyncio.gather(*(guarded(*t) for t in targets))
    for ws, _ in first:
        await ws.close()
    cpu_before = [cpu_seconds(pid) for pid in pids]
    started = time.perf_counter()
    again = await asyncio.gather(*(guarded(*t) for t in targets))
    total = time.perf_counter() - started
    cpu = [(cpu_seconds(pid) - before) / total * 100 for pid, before in zip(pids, cpu_before, strict=True)]
    for ws, _ in again:
        await ws.close()
    return total, [t for _, t in again], cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--servers", type=int, default=1, choices=[1, 2])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--closed-loop", action="store_true")
    # The first seconds are every socket's handshake at once (at most 50 in
    # flight), not steady play: their round trips are printed apart.
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--reconnect-storm", action="store_true")
    args = parser.parse_args()
    if not os.getenv("REDIS_URL"):
        sys.exit("set REDIS_URL (and DATABASE_URL): the load test measures the production layer")

    from config.launcher import celery_worker_command, daphne_command, free_port, wait_for_port

    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    procs, ports = [], []
    for _ in range(args.servers):
        port = free_port()
        log = Path(tempfile.gettempdir()) / f"ws_load_daphne_{port}.log"
        with log.open("w") as stderr:  # the child keeps its own descriptor
            procs.append(subprocess.Popen(daphne_command("127.0.0.1", port), cwd=ROOT,
                                          stdout=subprocess.DEVNULL, stderr=stderr))
        ports.append(port)
    worker = subprocess.Popen(celery_worker_command(concurrency=1), cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for proc, port in zip(procs, ports, strict=True):
            wait_for_port(port, proc=proc, timeout=30)
        games = make_games(args.games)
        cpu_before = [cpu_seconds(p.pid) for p in procs]
        if args.reconnect_storm:
            total, connects, cpu = asyncio.run(reconnect_storm(games, ports, [p.pid for p in procs]))
            print(f"reconnect storm: {2 * len(games)} sockets back in {total:.1f} s; "
                  f"connect p50 {percentile(connects, .5) * 1000:.0f} ms, p99 {percentile(connects, .99) * 1000:.0f} ms; "
                  "server CPU " + ", ".join(f"{c:.0f}%" for c in cpu))
            return
        bots, started, wall = asyncio.run(run_games(games, ports, seconds=args.seconds,
                                                   closed_loop=args.closed_loop))
        cpu = [(cpu_seconds(p.pid) - b) / wall * 100 for p, b in zip(procs, cpu_before, strict=True)]
        every_rtt = [rtt for bot in bots for _, rtt in bot.round_trips]
        rtts = [rtt for bot in bots for sent, rtt in bot.round_trips if sent >= started + args.warmup]
        moves = sum(bot.moves_made for bot in bots)
        stalled = sum(
            1 for i in range(0, len(bots), 2) if max(bots[i].longest_wait, bots[i + 1].longest_wait) > 3.0
        )
        errors = sum(len(bot.errors) for bot in bots)
        offered = "max" if args.closed_loop else f"{len(games):.0f}"
        print(f"{len(games)} games on {args.servers} daphne process(es), {wall:.1f} s")
        print(f"  moves/s offered ~{offered}, achieved {moves / args.seconds:.0f}")
        print(f"  round trip after {args.warmup:.0f} s of warm-up: p50 {percentile(rtts, .5) * 1000:.1f} ms, "
              f"p99 {percentile(rtts, .99) * 1000:.1f} ms, p99.9 {percentile(rtts, .999) * 1000:.1f} ms, "
              f"mean {statistics.fmean(rtts) * 1000 if rtts else 0:.1f} ms ({len(rtts)} moves)")
        print(f"  round trip of every move, warm-up included: p50 {percentile(every_rtt, .5) * 1000:.1f} ms, "
              f"p99 {percentile(every_rtt, .99) * 1000:.1f} ms")
        print(f"  stalled games {stalled}, errors {errors}, reconnects {sum(b.reconnects for b in bots)}")
        print("  server CPU " + ", ".join(f"{c:.0f}%" for c in cpu))
    finally:
        for proc in [*procs, worker]:
            proc.terminate()
        for proc in [*procs, worker]:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
