"""A guest's computer-game flood, and what another player and a clock feel of it (issue #38).

    .venv/bin/python bench/flood.py                        # 30 flooding guests, 20 Easy replies, 5 flags
    .venv/bin/python bench/flood.py --flood 60 --replies 30 --flags 8
    .venv/bin/python bench/flood.py --same-queue           # the computer's moves on "live" (before #38)
    .venv/bin/python bench/flood.py --keep                 # keep the layout's directory (logs)

The production layout of launch/deploy.py, on loopback, everything in a temporary
directory: an embedded PostgreSQL and Redis, nginx in front of two daphne
processes, the three worker units of deploy/systemd with their own queues (live;
computer; background and analysis) at their default pool size (one process per
core), and one beat. The processes are the units' own ExecStart lines.

1. **The flood**, through nginx as a stranger would make it: ``--flood`` guests
   (fresh cookies), each starting the 2 games against the computer a guest may
   have at once, at Hard, the guest playing second, so the computer moves first:
   a pending ``computer_move`` each. The site counts 6 guests' games per address,
   so the guests come 3 to an address: their HTTP requests and sockets leave from
   127.0.0.2, 127.0.0.3, ... (all loopback on Linux), which nginx passes on as
   X-Forwarded-For, as it would a real client's. Once a 7th game from one address
   and a guest's 3rd game were tried (and refused), each guest answers the
   computer at once over the game's websocket, so its moves keep coming.
2. **Another player's Easy replies**: a guest (made in this process through the
   services, from no counted address) plays Reversi at Easy over a real
   websocket (games/live/bot.py): seconds from sending a move to receiving the
   computer's reply, ``--replies`` of them, median, p95, max.
3. **Flags**: ``--flags`` human games at 1+0 between guests; each side's first
   move is made through the services (that starts the clocks), then nobody moves.
   Black's clock is set to ``--flag-left`` seconds (3) just before white's move, as
   in a time scramble: that move queues the flag task only that long before it is
   due, so a flag task behind a long queue would be late (``--flag-left 0``: the
   whole minute, the task queued 60 s ahead).
   A player's socket waits for the game's end: lateness is its arrival (wall
   clock) minus the game's ``flag_at`` (the moment the clock ran out).
4. The queue depths (Redis LLEN of each queue, sampled every 0.5 s over the
   measured window), the machine and the versions.

It ends by itself (``--limit`` seconds at most, the processes stopped on the way
out, also on Ctrl-C). Nothing is pinned or niced: the flood, the site and the
measuring all share the machine's cores, as they would on one small server.
Timed assertions stay out of the tests: this prints.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from http.cookies import SimpleCookie
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GUESTS_PER_ADDRESS = 3  # 2 games each: the site's 6 guests' games per address
FLAG_CLOCK_MINUTES = 1
FLAG_SPACING_S = 2.0  # the flag games start this far apart, so their flags do not all fall at once
EASY_THINK_S = 0.3  # the Easy player's thinking time before each move


class Timeout(Exception):
    """``--limit`` seconds passed."""


# --- the machine and the versions ---------------------------------------------------------


def machine() -> str:
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = ""
    with contextlib.suppress(OSError, ValueError, IndexError):
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB memory"
    return f"{len(os.sched_getaffinity(0))} cores ({os.cpu_count()} online), {model}{memory}, {platform.platform()}"


def versions(redis_url: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    def one(name: str) -> str:
        try:
            return f"{name} {version(name)}"
        except PackageNotFoundError:
            return f"{name} -"

    parts = [f"Python {platform.python_version()}"]
    parts += [
        one(n) for n in ("django", "celery", "kombu", "redis", "channels", "daphne", "psycopg", "numba")
    ]
    with contextlib.suppress(Exception):
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            parts.append(f"PostgreSQL {cursor.fetchone()[0]}")
    with contextlib.suppress(Exception):
        import redis

        parts.append(f"Redis {redis.Redis.from_url(redis_url).info('server')['redis_version']}")
    with contextlib.suppress(Exception):
        nginx = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
        parts.append(nginx.replace("nginx version: ", ""))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True)
    parts.append(f"code {commit.stdout.strip()}{' + changes' if dirty.stdout.strip() else ''}")
    return ", ".join(parts)


# --- figures -----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class QueueWatch(threading.Thread):
    """Samples the broker's queue lengths every 0.5 s (kombu's Redis transport: a list per queue)."""

    QUEUES = ("live", "computer-quick", "computer", "background", "analysis")

    def __init__(self, redis_url: str) -> None:
        super().__init__(daemon=True)
        import redis

        self.client = redis.Redis.from_url(redis_url)
        self.samples: list[tuple[float, dict[str, int]]] = []
        self.stopping = threading.Event()

    def depth(self) -> dict[str, int]:
        # Priority steps, if any task had one, are lists named "<queue>\x06\x16<n>".
        found: dict[str, int] = {}
        for name in self.QUEUES:
            keys = [name.encode(), *self.client.keys(name + "\x06\x16*")]
            found[name] = sum(self.client.llen(key) for key in keys)
        # Taken by a worker (prefetched, running, or a countdown waiting for its moment).
        found["unacked"] = self.client.zcard("unacked_index")
        return found

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            with contextlib.suppress(Exception):
                self.samples.append((time.time(), self.depth()))

    def summary(self, since: float, until: float) -> str:
        seen = [depth for at, depth in self.samples if since <= at <= until]
        if not seen:
            return "no samples"
        return (
            "; ".join(
                f"{name} median {statistics.median(d[name] for d in seen):.0f}, max {max(d[name] for d in seen)}"
                for name in (*self.QUEUES, "unacked")
            )
            + f" ({len(seen)} samples)"
        )


# --- the layout --------------------------------------------------------------------------------


def start_layout(args: argparse.Namespace, base: Path, redis_url: str, database_server: str):
    """launch.deploy's Layout (nginx, 2 daphne, the 3 workers, beat) on the embedded servers."""
    from launch.deploy import Layout

    same_queue = args.same_queue

    class FloodLayout(Layout):
        def build_env(self, database_url: str) -> dict[str, str]:
            env = super().build_env(database_url)
            if same_queue:
                # Before issue #38: the computer's moves on "live", with the flags.
                (self.dir / "flood_settings.py").write_text(
                    "from config.settings import *  # noqa: F403\n"
                    "CELERY_TASK_ROUTES = {**CELERY_TASK_ROUTES, "  # noqa: F405
                    "'games.tasks.computer_move': {'queue': LIVE_QUEUE}}\n"  # noqa: F405
                    "COMPUTER_QUICK_QUEUE = LIVE_QUEUE\n"  # noqa: F405
                )
                env["DJANGO_SETTINGS_MODULE"] = "flood_settings"
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(self.dir), env.get("PYTHONPATH", "")]))
            return env

    layout = FloodLayout(
        SimpleNamespace(
            nginx="",
            postgres=database_server,
            database="flood",
            redis=redis_url,
            port=0,
            daphne=args.daphne,
            keep=args.keep,
        )
    )
    return layout


# --- the flood: guests through nginx, each from its own loopback address ------------------------


class Browser:
    """One guest's cookies, its requests leaving from ``address`` (a 127.x.y.z of its own)."""

    def __init__(self, port: int, address: str) -> None:
        self.port = port
        self.address = address
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, str]:
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=60, source_address=(self.address, 0)
        )
        headers = {"Host": f"127.0.0.1:{self.port}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"http://127.0.0.1:{self.port}"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            return response.status, response.headers.get("Location", "")
        finally:
            conn.close()

    def new_computer_game(self, game: str) -> tuple[int, str]:
        if "csrftoken" not in self.cookies:
            self.request("GET", "/")
        return self.request(
            "POST",
            "/play/new/",
            {
                "csrfmiddlewaretoken": self.cookies.get("csrftoken", ""),
                "game": game,
                "opponent": "computer",
                "level": "hard",
                "side": "1",  # the guest plays second: the computer moves first
                "clock": "untimed",
                "days": "0",
            },
        )


def flood_address(index: int) -> str:
    n = index + 2  # 127.0.0.2 on; 127.0.0.1 is everybody else's
    return f"127.0.{n // 250}.{n % 250 + 1}" if n >= 250 else f"127.0.0.{n}"


def make_flood(port: int, guests: int, game: str) -> tuple[list[tuple[str, str, int]], dict[str, int], float]:
    """Every guest starts its 2 games; returns ([(address, sessionid, game id)], HTTP statuses, seconds)."""
    browsers = [Browser(port, flood_address(i // GUESTS_PER_ADDRESS)) for i in range(guests)]
    statuses: dict[str, int] = {}
    games: list[tuple[str, str, int]] = []
    lock = threading.Lock()

    def one_address(group: list[Browser]) -> None:
        # One request after another from an address, as the flood came: the limit's
        # count is not locked, so parallel requests from one address may pass it (limits.py).
        for browser in group:
            for _ in range(2):
                status, location = browser.new_computer_game(game)
                with lock:
                    statuses[str(status)] = statuses.get(str(status), 0) + 1
                    match = re.search(r"/play/(\d+)/", location)
                    if status == 302 and match:
                        games.append(
                            (browser.address, browser.cookies.get("sessionid", ""), int(match.group(1)))
                        )

    groups = [browsers[i : i + GUESTS_PER_ADDRESS] for i in range(0, len(browsers), GUESTS_PER_ADDRESS)]
    started = time.monotonic()
    with ThreadPoolExecutor(4) as pool:  # addresses in parallel
        list(pool.map(one_address, groups))
    return games, statuses, time.monotonic() - started


def probe_limits(port: int, game: str) -> str:
    """A 4th guest from the first (full) address, and a guest's 3rd game: both must be refused.

    Also a burst from a fresh address: the count is not locked (games/services/limits.py).
    """
    stranger = Browser(port, flood_address(0))
    status_address, _ = stranger.new_computer_game(game)
    # A guest of its own address, so the address's limit is not what refuses the 3rd.
    alone = Browser(port, "127.0.200.1")
    seen = [alone.new_computer_game(game)[0] for _ in range(3)]
    # A burst: 8 new guests from one fresh address at once, then one more after it.
    burst = [Browser(port, "127.0.199.1") for _ in range(8)]
    for browser in burst:
        browser.request("GET", "/")
    with ThreadPoolExecutor(8) as pool:
        at_once = list(pool.map(lambda b: b.new_computer_game(game)[0], burst))
    after = Browser(port, "127.0.199.1").new_computer_game(game)[0]
    return (
        f"a burst of 8 new guests at once from one address: {at_once.count(302)} games started, then "
        f"one more request: HTTP {after}; "
        f"7th guests' game from one address: HTTP {status_address} "
        f"({'refused' if status_address == 400 else 'NOT refused'}); one guest's 3 games: HTTP {seen} "
        f"({'3rd refused' if seen[2] == 400 else '3rd NOT refused'})"
    )


# --- sockets --------------------------------------------------------------------------------------


def socket_bot_class():
    from games.live.bot import GameBot

    class AddressedBot(GameBot):
        """A GameBot whose socket leaves from a loopback address of its own (nginx's X-Forwarded-For)."""

        def __init__(self, *args, address: str = "127.0.0.1", **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.address = address

        async def _connect(self):
            from websockets.asyncio.client import connect
            from websockets.typing import Origin

            headers = {"Cookie": f"sessionid={self.cookie}"} if self.cookie else {}
            return await connect(
                self.url,
                origin=Origin(self.origin),
                additional_headers=headers,
                open_timeout=30,
                local_addr=(self.address, 0),
            )

    return AddressedBot


async def flood_players(url: str, games: list[tuple[str, str, int]], stop: asyncio.Event) -> list:
    """Each flooding guest answers the computer at once, until ``stop``."""
    bot_class = socket_bot_class()
    bots = [
        bot_class(
            f"{url}/ws/game/{game_id}/",
            cookie=cookie,
            origin=url.replace("ws://", "http://"),
            address=address,
        )
        for address, cookie, game_id in games
    ]
    tasks = [asyncio.create_task(bot.play(timeout=3600)) for bot in bots]
    await stop.wait()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return bots


# --- the measured players, made through the services ------------------------------------------------


def guest_session(tag: str):
    from importlib import import_module

    from django.conf import settings

    from accounts.guests import Guest
    from accounts.identity import Identity

    guest = Guest(key=f"flood-{tag}-{os.urandom(8).hex()}", name=f"Guest {tag}")
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session["guest"] = {"key": guest.key, "name": guest.name}
    session.create()
    return Identity(user=None, guest=guest), session.session_key


async def easy_replies(url: str, wanted: int, deadline: float) -> tuple[list[float], float | None, int]:
    """Seconds from each move sent to the computer's reply received; (replies, waited for the last, games)."""
    from asgiref.sync import sync_to_async

    from games import services

    identity, cookie = await sync_to_async(guest_session)("easy")
    bot_class = socket_bot_class()
    replies: list[float] = []
    games = 0
    bot = None
    while len(replies) < wanted and time.monotonic() < deadline:
        game = await sync_to_async(services.create_computer_game)(
            identity=identity, game="reversi", level="easy", side=0
        )
        games += 1
        counted = [0]  # this game's moves whose reply has been timed

        def think(holder: list, counted: list = counted) -> float:
            # Called when it is the player's turn again: the computer's reply to its last move is in.
            me = holder[0]
            if me.moves_made > counted[0]:
                replies.append(time.perf_counter() - me.sent_at)
                counted[0] = me.moves_made
            return EASY_THINK_S

        holder: list = []
        bot = bot_class(
            f"{url}/ws/game/{game.pk}/",
            cookie=cookie,
            origin=url.replace("ws://", "http://"),
            think=lambda h=holder: think(h),
            address="127.0.201.1",
        )
        holder.append(bot)
        # One move more than replies still wanted: the last reply is timed before that move.
        with contextlib.suppress(TimeoutError):
            await bot.play(max_moves=wanted - len(replies) + 1, timeout=max(1.0, deadline - time.monotonic()))
        if not bot.finished:
            break  # enough replies, or the window closed
    waiting = None
    if bot is not None and len(replies) < wanted and bot.moves_made > counted[0]:
        waiting = time.perf_counter() - bot.sent_at  # the reply still not in when time ran out
    return replies[:wanted], waiting, games


def make_flag_game(index: int, left: float | None) -> tuple[int, str, float]:
    """A 1+0 game between two guests, both first moves made: (game id, the side to move's cookie, flag_at).

    ``left``: black's clock when its turn comes (None: the whole minute, less what the first move took).
    """
    from games import engines, services
    from games.models import Game

    black, black_cookie = guest_session(f"flag{index}b")
    white, _ = guest_session(f"flag{index}w")
    game = services.create_human_game(
        identity=black,
        game="reversi",
        kind=Game.Kind.INVITE_LINK,
        side=0,
        minutes=FLAG_CLOCK_MINUTES,
        casual=True,
    )
    services.join_game(game_id=game.pk, identity=white, token=game.invite_token)
    engine = engines.get("reversi")
    for ply, who in enumerate((black, white)):
        if ply == 1 and left is not None:
            # A time scramble: black has ``left`` seconds when white's move hands it the turn,
            # so that move arms the flag task that little ahead of its moment (docs/operations.md).
            Game.objects.filter(pk=game.pk).update(clock0_ms=int(left * 1000))
        state = Game.objects.get(pk=game.pk).engine_state()
        services.play_move(
            game_id=game.pk,
            identity=who,
            token=engine.legal_moves(state)[0],
            ply=ply,
            client_id=f"f{index}{ply}",
        )
    flag_at = Game.objects.get(pk=game.pk).flag_at
    assert flag_at is not None, "the clocks run after both first moves"
    return game.pk, black_cookie, flag_at.timestamp()


async def watch_flag(url: str, game_id: int, cookie: str, flag_at: float, deadline: float) -> float | None:
    """Wall-clock seconds from ``flag_at`` to the game's end arriving on the player's socket."""
    from websockets.asyncio.client import connect

    async with connect(
        f"{url}/ws/game/{game_id}/",
        origin=url.replace("ws://", "http://"),
        additional_headers={"Cookie": f"sessionid={cookie}"},
        open_timeout=30,
        local_addr=("127.0.202.1", 0),
    ) as ws:
        while (left := deadline - time.monotonic()) > 0:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=left)
            except TimeoutError:
                return None
            arrived = time.time()
            message = json.loads(raw)
            game = message.get("game") or message.get("patch") or {}
            if game.get("status") in ("finished", "aborted"):
                return arrived - flag_at
    return None


async def measure(args, url: str, flood_games, queues: QueueWatch) -> None:
    from asgiref.sync import sync_to_async

    stop = asyncio.Event()
    flood = asyncio.create_task(flood_players(url, flood_games, stop))
    started = time.monotonic()
    # The flood's guests connect and answer; its backlog builds before the measuring starts.
    await asyncio.sleep(args.warmup)
    window_start = time.time()
    print(f"after {args.warmup:.0f} s of flood: queues now {queues.depth()}", flush=True)
    deadline = time.monotonic() + args.seconds

    async def flags() -> list[tuple[int, float | None]]:
        watchers = []
        for i in range(args.flags):
            game_id, cookie, flag_at = await sync_to_async(make_flag_game)(i, args.flag_left)
            watchers.append(
                (game_id, asyncio.create_task(watch_flag(url, game_id, cookie, flag_at, deadline)))
            )
            await asyncio.sleep(FLAG_SPACING_S)
        return [(game_id, await task) for game_id, task in watchers]

    (replies, waiting, easy_games), flagged = await asyncio.gather(
        easy_replies(url, args.replies, deadline), flags()
    )
    window_end = time.time()
    stop.set()
    bots = await flood
    print(
        f"measured window {window_end - window_start:.0f} s "
        f"(the flood ran {time.monotonic() - started:.0f} s in all)",
        flush=True,
    )
    flood_moves = sum(bot.moves_made for bot in bots)
    print(f"flood: {len(bots)} games, the guests answered {flood_moves} computer moves over their sockets")
    print(f"queue depths in the window: {queues.summary(window_start, window_end)}")
    if replies:
        print(
            f"Easy replies (Reversi, {easy_games} game(s)): {len(replies)} of {args.replies}; "
            f"median {statistics.median(replies):.3f} s, p95 {percentile(replies, 0.95):.3f} s, "
            f"max {max(replies):.3f} s"
        )
        print("  each: " + " ".join(f"{r:.2f}" for r in replies))
    else:
        print(f"Easy replies: none of {args.replies} arrived in the window")
    if waiting is not None:
        print(f"  and one reply still not in after {waiting:.1f} s when the window closed")
    late = [lateness for _, lateness in flagged if lateness is not None]
    print(
        f"flags (1+0, {len(flagged)} games, "
        + (f"{args.flag_left:g} s left at the last move" if args.flag_left else "the whole minute left")
        + "): "
        + ", ".join(f"game {g}: {'not in the window' if x is None else f'{x:+.3f} s'}" for g, x in flagged)
    )
    if late:
        print(f"  latest flag {max(late):+.3f} s after its due moment")


# --- the run -----------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--flood", type=int, default=30, help="flooding guests, 2 Hard games each (default 30)"
    )
    parser.add_argument("--replies", type=int, default=20, help="Easy replies to time (default 20)")
    parser.add_argument("--flags", type=int, default=5, help="1+0 games left to flag (default 5)")
    parser.add_argument("--game", default="reversi", help="the flood's game (default reversi)")
    parser.add_argument("--daphne", type=int, default=2, help="daphne processes behind nginx (default 2)")
    parser.add_argument("--warmup", type=float, default=10, help="seconds of flood before measuring (10)")
    parser.add_argument(
        "--seconds",
        type=float,
        default=80,
        help="the measured window's limit (default 80; with --flag-left 0 it must outlast a 1+0 clock)",
    )
    parser.add_argument(
        "--flag-left",
        type=float,
        default=3.0,
        help="seconds on the flagging clock when its last move is made, as in a time scramble: the flag "
        "task is queued that long before it is due (default 3; 0 or less: the whole minute)",
    )
    parser.add_argument("--limit", type=float, default=420, help="the whole run's limit in seconds (420)")
    parser.add_argument(
        "--same-queue", action="store_true", help="route the computer's moves onto 'live' (before issue #38)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the layout's directory (logs)")
    args = parser.parse_args()
    if args.flood < 1 or args.replies < 1 or args.flags < 0:
        parser.error("--flood and --replies must be 1 or more, --flags 0 or more")
    if args.flag_left <= 0:
        args.flag_left = None

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    def on_alarm(signum, frame):
        raise Timeout(f"--limit {args.limit:.0f} s passed")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(args.limit))

    print(f"date: {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}")
    print(f"machine: {machine()}")
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()), flush=True)
    base = Path(tempfile.mkdtemp(prefix="flood-"))
    from launch.postgres import start_embedded_postgres
    from launch.processes import start_embedded_redis

    redis_proc, redis_url = start_embedded_redis(base / "redis", persist=False)
    layout = None
    queues = None
    try:
        server = start_embedded_postgres(base / "var")
        layout = start_layout(args, base, redis_url, server)
        layout.start()
        url = layout.url.replace("http://", "ws://")
        print(
            f"layout: nginx {layout.url} -> {args.daphne} daphne; workers "
            + ", ".join(p.name for p in layout.processes if p.port is None)
            + (" (computer moves routed to 'live': --same-queue)" if args.same_queue else ""),
            flush=True,
        )
        os.environ.update(layout.env)
        sys.path.insert(
            0, str(layout.dir)
        )  # --same-queue's settings module, as PYTHONPATH gives the processes
        import django

        django.setup()
        print(f"versions: {versions(redis_url)}", flush=True)
        queues = QueueWatch(redis_url)
        queues.start()

        flood_games, statuses, took = make_flood(layout.nginx_port, args.flood, args.game)
        print(
            f"flood: {args.flood} guests from {-(-args.flood // GUESTS_PER_ADDRESS)} addresses made "
            f"{len(flood_games)} {args.game} games at Hard (computer first) through nginx in {took:.1f} s; "
            f"HTTP {statuses}",
            flush=True,
        )
        print(f"limits: {probe_limits(layout.nginx_port, args.game)}", flush=True)
        from django.db import connections

        connections.close_all()
        asyncio.run(measure(args, url, flood_games, queues))
        print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    except Timeout as exc:
        print(f"stopped: {exc}", file=sys.stderr)
    finally:
        signal.alarm(0)
        if queues is not None:
            queues.stopping.set()
        if layout is not None:
            if layout.processes and layout.processes[0].popen is not None:
                # The workers' logs: a task that failed shows up here.
                errors = 0
                for log in (layout.dir / "logs").glob("*.log"):
                    errors += len(re.findall(r"ERROR/|Traceback", log.read_text(errors="replace")))
                print(f"errors or tracebacks in the processes' logs: {errors}")
            layout.stop()
            if args.keep:
                print(f"kept {layout.dir} and {base}")
            else:
                shutil.rmtree(layout.dir, ignore_errors=True)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
