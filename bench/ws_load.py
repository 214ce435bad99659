"""Websocket load: Reversi games of scripted clients against real daphne processes, per core.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_perf REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/python bench/ws_load.py --games 400 --seconds 30
    ... --closed-loop              # no thinking time: saturation of one daphne
    ... --games 2000 --think 5     # open loop: 2,000 games thinking 2.5-7.5 s a move (400 moves/s)
    ... --servers 2                # each game's players on different daphne processes
    ... --idle-sockets 10000       # that many idle spectator sockets held open during the run
    ... --games 1000 --reconnect-storm   # 2,000 sockets drop and come back at once
    ... --games 2000 --think 5 --chat-rate 100   # and 100 chat lines a second (docs/protocol.md, "Chat")
    ... --profile daphne.json      # py-spy record of daphne over the measured window
                                   # (py-spy: pip install -e '.[bench]';
                                   # then: python bench/profile_summary.py daphne.json)

It migrates the database, starts the daphne processes itself (and a Celery
worker), creates the games and guest sessions, and prints offered and achieved
moves per second, the move round trip (mover's send to the mover seeing the
broadcast) p50/p99/p99.9, stalled games (no move inside the window for 3 s
plus the longest thinking time), errors, and **daphne CPU per move**.

Pinning: each daphne process gets a core of its own (cores 1, 2, ...) and
everything else gets core 0: this script, its client processes, the worker,
and the PostgreSQL and Redis server processes (found with pgrep; their previous
affinity is restored at the end). With --servers 2 on a 2-core machine the
second daphne has no core of its own and shares core 1; the output says so.

The measured window starts --warmup seconds after every socket has its game
(or after --connect-limit seconds, saying how many were in) and lasts
--seconds. Moves counted are those whose broadcast reached the mover inside the
window; daphne CPU per move is the daphne processes' CPU time over the window
divided by those moves. Idle sockets are spectators (20 a game) of games nobody
plays, opened before the play starts: memory per idle socket is daphne's RSS
after opening them minus before, divided by their number (KB = 1,024 bytes).
Traffic stays on 127.0.0.1.

With --chat-rate, some games also chat: in each, the first player (the
author) posts preset lines, with gaps uniform in 0.5-1.5 of the mean so no
author reaches the chat's limit of 5 lines in 10 s, and the second player (the
reader, on the other server with --servers 2) receives them. A line's latency
is the author's send to the reader receiving it. By default they chat on the
players' own game sockets, as the page does (the bots ask for the chat, and
read while they think); ``--chat-sockets extra`` opens two more sockets in each
chatting game for it instead (a second tab of each player: they receive the
game's moves as well), the layout of the figures before session 12.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import math
import multiprocessing
import os
import random
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_HTTPS", "0")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "0")

ORIGIN = "http://127.0.0.1"
HANDSHAKES_IN_FLIGHT = 50  # per client process
SPECTATORS_PER_IDLE_GAME = 20
CHAT_LINES_PER_AUTHOR_S = 0.2  # the chat allows 5 in 10 s: gaps of 2.5-7.5 s make at most 4
CLIENTS: list[multiprocessing.Process] = []  # client processes, killed if the run is interrupted


# --- processes: CPU, memory, cores ------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_delay(pid: int) -> float:
    """Seconds the process's main thread (daphne's event loop) was runnable but waiting for a core."""
    return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[1]) / 1e9


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def core_busy() -> dict[int, tuple[int, int]]:
    """(busy, total) jiffies per core from /proc/stat."""
    result = {}
    for line in Path("/proc/stat").read_text().splitlines():
        m = re.match(r"cpu(\d+) (.*)", line)
        if m:
            values = [int(v) for v in m.group(2).split()]
            idle = values[3] + values[4]  # idle + iowait
            result[int(m.group(1))] = (sum(values[:8]) - idle, sum(values[:8]))
    return result


def core_share(before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]]) -> dict[int, float]:
    return {c: (after[c][0] - before[c][0]) / max(1, after[c][1] - before[c][1]) * 100 for c in after}


class Pinning:
    """Each daphne on a core of its own, everything else on core 0; undone for system services."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.cores = sorted(os.sched_getaffinity(0))
        self.restore: dict[int, set[int]] = {}  # system service pid -> its affinity before
        self.notes: list[str] = []
        if enabled and len(self.cores) < 2:
            self.notes.append("only one core available: nothing pinned")
            self.enabled = False
        if self.enabled:
            os.sched_setaffinity(0, {self.rest})  # children (worker, clients) inherit core 0

    @property
    def rest(self) -> int:
        return self.cores[0]

    def daphne_core(self, index: int) -> int | None:
        if not self.enabled:
            return None
        own = self.cores[1:]
        core = own[index % len(own)]
        if index >= len(own):
            self.notes.append(f"daphne #{index + 1} shares core {core}: {len(self.cores)} cores only")
        return core

    def pin_service(self, name: str, pids: list[int]) -> None:
        if not self.enabled:
            return
        if not pids:
            self.notes.append(f"{name}: no process found by pgrep, not pinned")
            return
        pinned = 0
        for pid in pids:
            try:
                before = os.sched_getaffinity(pid)
                set_affinity(pid, {self.rest})
            except (PermissionError, ProcessLookupError) as exc:
                self.notes.append(f"{name} pid {pid} not pinned: {exc.strerror}")
                continue
            if before == {self.rest}:
                # Already on core 0 alone: most likely left so by an interrupted
                # run, so "before" is every core rather than that.
                before = set(range(os.cpu_count() or 1))
            self.restore.setdefault(pid, before)
            pinned += 1
        self.notes.append(f"{name}: {pinned} process(es) pinned to core {self.rest}")

    def undo(self, postmaster: int | None) -> None:
        # Backends forked during the run inherited core 0 from the postmaster: give
        # them the postmaster's old affinity too (they belong to other people).
        if postmaster in self.restore:
            for pid in _children(postmaster):
                self.restore.setdefault(pid, self.restore[postmaster])
        for pid, cores in self.restore.items():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                set_affinity(pid, cores)


def set_affinity(pid: int, cores: set[int]) -> None:
    """Every thread of the process (sched_setaffinity on a pid moves its main thread only)."""
    tasks = [int(t) for t in os.listdir(f"/proc/{pid}/task")] if os.path.isdir(f"/proc/{pid}/task") else [pid]
    for tid in tasks:
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(tid, cores)


def _pgrep(*args: str) -> list[int]:
    out = subprocess.run(["pgrep", *args], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _children(pid: int) -> list[int]:
    return _pgrep("-P", str(pid))


def postgres_pids() -> tuple[int | None, list[int]]:
    """The postmaster (the oldest `postgres` process) and its children."""
    oldest = _pgrep("-o", "-x", "postgres")
    if not oldest:
        return None, []
    return oldest[0], [oldest[0], *_children(oldest[0])]


def redis_pids(url: str) -> list[int]:
    port = urlparse(url).port or 6379
    return _pgrep("-f", f"redis-server .*:{port}( |$)")


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def longest_gap(round_trips: list[tuple[float, float]], t0: float, t1: float, *, finished: bool) -> float:
    """The longest time inside [t0, t1] with no move of the game completed (until it finished)."""
    times = sorted(sent + rtt for sent, rtt in round_trips if t0 <= sent + rtt <= t1)
    edges = [t0, *times] if finished else [t0, *times, t1]
    return max((b - a for a, b in itertools.pairwise(edges)), default=0.0)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- the database side --------------------------------------------------------------


def make_games(n: int, *, players: bool = True) -> list[tuple[int, str, str]]:
    import django

    django.setup()
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.guests import Guest
    from accounts.identity import Identity
    from games import services
    from games.models import Game

    def guest_session(tag: str) -> tuple[Identity, str]:
        guest = Guest(
            key=f"load-{tag}-{random.getrandbits(64):x}", name=f"Guest {random.randint(1000, 9999)}"
        )
        session = SessionStore()
        session["guest"] = {"key": guest.key, "name": guest.name}
        session.create()
        return Identity(user=None, guest=guest), session.session_key

    games = []
    for i in range(n):
        black, black_cookie = guest_session(f"{i}b")
        white, white_cookie = guest_session(f"{i}w")
        game = services.create_human_game(
            identity=black, game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
        )
        services.join_game(game_id=game.pk, identity=white, token=game.invite_token)
        games.append((game.pk, black_cookie, white_cookie))
    return games


# --- client processes (all on core 0) -------------------------------------------------


async def chat_pair(
    author_url: str,
    reader_url: str,
    author_cookie: str,
    reader_cookie: str,
    rate: float,
    gate: asyncio.Semaphore,
    latencies: list[tuple[float, float]],
    errors: list[dict],
    ready: asyncio.Event,
) -> None:
    """One chatting game: the author posts presets at ``rate`` a second on average, the reader times their arrival."""
    import json
    from collections import deque

    from websockets.asyncio.client import connect

    async def opened(url: str, cookie: str):
        async with gate:
            ws = await connect(
                url, origin=ORIGIN, additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=60
            )
        await ws.send(json.dumps({"type": "chat_history"}))
        while json.loads(await ws.recv())["type"] != "chat_history":
            pass
        return ws

    try:
        author = await opened(author_url, author_cookie)
        reader = await opened(reader_url, reader_cookie)
    except Exception:  # noqa: BLE001 - counted and reported
        errors.append({"type": "not_connected"})
        ready.set()  # nothing to wait for
        return
    ready.set()
    pending: deque[tuple[int, float]] = deque()  # (id, sent at) of the lines not yet read, in order

    async def read_author() -> None:
        async for raw in author:
            message = json.loads(raw)
            if message["type"] == "error":  # refused: the reader will never see it
                errors.append(message)
                for entry in list(pending):
                    if entry[0] == message.get("id"):
                        pending.remove(entry)

    async def read_reader() -> None:
        async for raw in reader:
            if json.loads(raw)["type"] == "chat" and pending:
                _, sent = pending.popleft()
                latencies.append((sent, time.perf_counter() - sent))

    async def write() -> None:
        for n in itertools.count():
            # Uniform gaps (0.5-1.5 of the mean) keep every author under the chat's limit;
            # the lines of many authors together still arrive at random.
            await asyncio.sleep(random.uniform(0.5, 1.5) / rate)
            pending.append((n, time.perf_counter()))
            await author.send(json.dumps({"type": "chat", "preset": "hello", "id": n}))

    try:
        await asyncio.gather(read_author(), read_reader(), write())
    finally:
        await asyncio.gather(author.close(), reader.close(), return_exceptions=True)


class ChatOnBots:
    """One chatting game on its players' own sockets: the first bot writes, the second reads."""

    def __init__(self, rate: float, latencies: list[tuple[float, float]], errors: list[dict]) -> None:
        from collections import deque

        self.rate = rate
        self.latencies = latencies
        self.errors = errors
        self.pending: deque[tuple[int, float]] = deque()  # (id, sent at) of the lines not yet read
        self.ready = asyncio.Event()  # both have their chat history
        self._in: set[str] = set()

    def _history(self, who: str) -> None:
        self._in.add(who)
        if self._in == {"author", "reader"}:
            self.ready.set()

    def author_message(self, message: dict) -> bool:
        kind = message["type"]
        if kind == "chat_history":
            self._history("author")
        elif kind == "error" and str(message.get("code", "")).startswith("chat"):
            self.errors.append(message)  # refused: the reader will never see it
            for entry in list(self.pending):
                if entry[0] == message.get("id"):
                    self.pending.remove(entry)
        elif kind != "chat":  # its own line's echo is the author's too
            return False
        return True

    def reader_message(self, message: dict) -> bool:
        kind = message["type"]
        if kind == "chat_history":
            self._history("reader")
        elif kind == "chat":
            if self.pending:
                _, sent = self.pending.popleft()
                self.latencies.append((sent, time.perf_counter() - sent))
        else:
            return False
        return True

    async def write(self, author) -> None:
        import json

        await self.ready.wait()
        for n in itertools.count():
            await asyncio.sleep(random.uniform(0.5, 1.5) / self.rate)
            if author.ws is None:
                continue
            self.pending.append((n, time.perf_counter()))
            try:
                await author.ws.send(json.dumps({"type": "chat", "preset": "hello", "id": n}))
            except Exception:  # noqa: BLE001 - a socket closed meanwhile: the bot reconnects
                self.pending.pop()


def play_client(
    conn,
    games,
    ports,
    offset: int,
    think: tuple[float, float] | None,
    in_flight: int,
    connect_limit: float,
    chat_games: int = 0,
    chat_sockets: str = "own",
) -> None:
    """One client process: plays its slice of the games until the parent says stop.

    Tells the parent once every socket has its game's state (the handshakes are
    over), or ``connect_limit`` seconds have passed, so the measured window holds
    steady play only.
    """
    raise_fd_limit()
    from games.live.bot import GameBot

    def thinking() -> float:
        return 0.0 if think is None else random.uniform(*think)

    async def run() -> list:
        gate = asyncio.Semaphore(in_flight)
        bots = []
        chats, chat_ready, talks = [], [], []
        for j, (game_id, black, white) in enumerate(games):
            i = offset + j
            port_b, port_w = ports[i % len(ports)], ports[(i + 1) % len(ports)]
            talk = ChatOnBots(CHAT_LINES_PER_AUTHOR_S, chat_latencies, chat_errors)
            own = chat_sockets == "own" and j < chat_games
            author, reader = (
                GameBot(
                    f"ws://127.0.0.1:{port}/ws/game/{game_id}/",
                    cookie=cookie,
                    think=thinking,
                    connect_gate=gate,
                    chat=own,
                    on_message=hook if own else None,
                )
                for port, cookie, hook in (
                    (port_b, black, talk.author_message),
                    (port_w, white, talk.reader_message),
                )
            )
            bots += [author, reader]
            if own:
                talks.append(talk)
                chat_ready.append(talk.ready)
                chats.append(asyncio.create_task(talk.write(author)))
        tasks = [asyncio.create_task(bot.play(timeout=24 * 3600)) for bot in bots]
        for j, (game_id, black, white) in enumerate(games[:chat_games] if chat_sockets == "extra" else []):
            i = offset + j
            port_b, port_w = ports[i % len(ports)], ports[(i + 1) % len(ports)]
            chat_ready.append(asyncio.Event())
            chats.append(
                asyncio.create_task(
                    chat_pair(
                        f"ws://127.0.0.1:{port_b}/ws/game/{game_id}/",
                        f"ws://127.0.0.1:{port_w}/ws/game/{game_id}/",
                        black,
                        white,
                        CHAT_LINES_PER_AUTHOR_S,
                        gate,
                        chat_latencies,
                        chat_errors,
                        chat_ready[-1],
                    )
                )
            )
        give_up = time.perf_counter() + connect_limit
        while (
            any(bot.snapshot is None for bot in bots) or not all(event.is_set() for event in chat_ready)
        ) and time.perf_counter() < give_up:
            await asyncio.sleep(0.2)
        conn.send((time.perf_counter(), sum(1 for bot in bots if bot.snapshot is not None), len(bots)))
        chat_errors.extend({"type": "not_connected"} for talk in talks if not talk.ready.is_set())
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # the parent's word to stop
        for chat in chats:
            chat.cancel()
        await asyncio.gather(*chats, return_exceptions=True)
        # Python 3.11's wait_for can swallow a cancellation that lands as its
        # inner recv() completes: cancel again until every bot has stopped.
        while pending := [task for task in tasks if not task.done()]:
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=1)
        return bots

    chat_latencies: list[tuple[float, float]] = []
    chat_errors: list[dict] = []
    bots = asyncio.run(run())
    conn.send(
        [(b.round_trips, b.moves_made, b.longest_wait, len(b.errors), b.reconnects, b.finished) for b in bots]
    )
    not_in = sum(1 for error in chat_errors if error["type"] == "not_connected")
    conn.send((chat_latencies, len(chat_errors) - not_in, not_in))
    conn.send(cpu_seconds(os.getpid()))
    conn.close()


def idle_client(conn, urls: list[str]) -> None:
    """Opens one socket per URL, reports, holds them all until told to close them."""
    raise_fd_limit()
    from websockets.asyncio.client import connect

    async def run() -> None:
        gate = asyncio.Semaphore(HANDSHAKES_IN_FLIGHT)
        sockets, failed = [], 0

        async def open_one(url: str) -> None:
            nonlocal failed
            async with gate:
                try:
                    ws = await connect(url, origin=ORIGIN, open_timeout=60)
                    await ws.recv()  # its state message: the socket is in
                    sockets.append(ws)
                except Exception:  # noqa: BLE001 - counted and reported
                    failed += 1

        started = time.perf_counter()
        await asyncio.gather(*(open_one(url) for url in urls))
        conn.send((len(sockets), failed, time.perf_counter() - started))
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, conn.recv)  # the parent's word to close
        closed_early = sum(1 for ws in sockets if ws.close_code is not None)
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        conn.send(closed_early)

    asyncio.run(run())


def start_profile(pid: int, seconds: int, path: str) -> subprocess.Popen:
    """py-spy recording ``pid``'s Python CPU (``--gil``) for ``seconds`` into a speedscope file."""
    return subprocess.Popen(
        [
            str(Path(sys.executable).parent / "py-spy"),
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(seconds),
            "--rate",
            "250",
            "--gil",
            "--format",
            "speedscope",
            "--output",
            path,
            "--nonblocking",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def reconnect_storm(
    games, ports, pids, profile_path: str | None = None
) -> tuple[float, list[float], list[float]]:
    from websockets.asyncio.client import connect

    async def open_one(port, game_id, cookie):
        t = time.perf_counter()
        ws = await connect(
            f"ws://127.0.0.1:{port}/ws/game/{game_id}/",
            origin=ORIGIN,
            additional_headers={"Cookie": f"sessionid={cookie}"},
            open_timeout=30,
        )
        await ws.recv()  # the state message: this socket is back in its game
        return ws, time.perf_counter() - t

    targets = [(ports[i % len(ports)], g, c) for i, (g, b, w) in enumerate(games) for c in (b, w)]
    sem = asyncio.Semaphore(HANDSHAKES_IN_FLIGHT)

    async def guarded(*args):
        async with sem:
            return await open_one(*args)

    first = await asyncio.gather(*(guarded(*t) for t in targets))
    for ws, _ in first:
        await ws.close()
    spy = start_profile(pids[0], 20, profile_path) if profile_path else None
    cpu_before = [cpu_seconds(pid) for pid in pids]
    started = time.perf_counter()
    again = await asyncio.gather(*(guarded(*t) for t in targets))
    total = time.perf_counter() - started
    if spy is not None:
        spy.wait()
        print(f"  py-spy profile of daphne pid {pids[0]} (20 s from the storm's start): {profile_path}")
    cpu = [cpu_seconds(pid) - before for pid, before in zip(pids, cpu_before, strict=True)]
    for ws, _ in again:
        await ws.close()
    return total, [t for _, t in again], cpu


# --- the run ------------------------------------------------------------------------------


def open_idle_sockets(n: int, ports: list[int], daphne_pids: list[int]) -> tuple:
    """Warm up, measure daphne RSS, open ``n`` idle spectator sockets, measure again."""
    idle_games = make_games(math.ceil(n / SPECTATORS_PER_IDLE_GAME))
    from django.db import connections

    connections.close_all()
    urls = [
        f"ws://127.0.0.1:{ports[i % len(ports)]}/ws/game/{idle_games[i % len(idle_games)][0]}/"
        for i in range(n)
    ]
    ctx = multiprocessing.get_context("fork")
    # A first round of the same sockets, opened and closed: what the process
    # allocates once (imports, caches, pools) is not counted per socket.
    warm, there = ctx.Pipe()
    proc = ctx.Process(target=idle_client, args=(there, urls[: min(n, 200)]))
    proc.start()
    there.close()  # so a dead client process is an EOF here, not a hang
    warm.recv()
    warm.send("close")
    warm.recv()
    proc.join()
    time.sleep(2)
    rss_before = sum(rss_bytes(p) for p in daphne_pids)
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=idle_client, args=(child, urls))
    proc.start()
    CLIENTS.append(proc)
    child.close()
    connected, failed, took = parent.recv()
    time.sleep(3)  # let daphne settle (buffers, the Redis subscriptions)
    rss_after = sum(rss_bytes(p) for p in daphne_pids)
    print(
        f"idle sockets: {connected} connected ({failed} failed) in {took:.1f} s, spectators of "
        f"{len(idle_games)} games; daphne RSS {rss_before / 2**20:.0f} -> {rss_after / 2**20:.0f} MiB, "
        f"{(rss_after - rss_before) / max(1, connected) / 1024:.1f} KB per idle socket",
        flush=True,
    )
    return proc, parent


def close_idle_sockets(proc, pipe) -> None:
    pipe.send("close")
    closed_early = pipe.recv()
    proc.join(timeout=60)
    print(f"idle sockets: {closed_early} had been closed by the server before the end", flush=True)


def play(args, games, ports, daphne_pids, profile_path: str | None) -> None:
    think = None if args.closed_loop else (0.5 * args.think, 1.5 * args.think)
    n_clients = args.clients or max(1, math.ceil(len(games) / 500))
    from django.db import connections

    connections.close_all()
    ctx = multiprocessing.get_context("fork")
    started = time.perf_counter()
    pipes, procs = [], []
    per = math.ceil(len(games) / n_clients)
    in_flight = max(1, HANDSHAKES_IN_FLIGHT // n_clients)
    chat_games = min(len(games), math.ceil(args.chat_rate / CHAT_LINES_PER_AUTHOR_S)) if args.chat_rate else 0
    for k in range(n_clients):
        chunk = games[k * per : (k + 1) * per]
        if not chunk:
            continue
        parent, child = ctx.Pipe()
        chat_share = math.ceil(chat_games * len(chunk) / len(games))
        proc = ctx.Process(
            target=play_client,
            args=(
                child,
                chunk,
                ports,
                k * per,
                think,
                in_flight,
                args.connect_limit,
                chat_share,
                args.chat_sockets,
            ),
        )
        proc.start()
        CLIENTS.append(proc)
        child.close()  # so the parent sees EOF if a client process dies
        pipes.append(parent)
        procs.append(proc)
    ready = [pipe.recv() for pipe in pipes]
    all_in = max(t for t, _, _ in ready)
    sockets_in, sockets = sum(n for _, n, _ in ready), sum(n for _, _, n in ready)
    time.sleep(args.warmup)
    cpu_0 = [cpu_seconds(p) for p in daphne_pids]
    wait_0 = [run_delay(p) for p in daphne_pids]
    cores_0 = core_busy()
    t0 = time.perf_counter()
    spy = None
    if profile_path:
        spy = start_profile(daphne_pids[0], max(1, int(args.seconds) - 1), profile_path)
    time.sleep(args.seconds)
    cpu_1 = [cpu_seconds(p) for p in daphne_pids]
    wait_1 = [run_delay(p) for p in daphne_pids]
    cores_1 = core_busy()
    t1 = time.perf_counter()
    for pipe in pipes:
        pipe.send("stop")
    results, client_cpu = [], 0.0
    chat_trips: list[tuple[float, float]] = []
    chat_errors = chat_not_in = 0
    for pipe in pipes:
        results += pipe.recv()
        trips, refused, not_in = pipe.recv()
        chat_trips += trips
        chat_errors += refused
        chat_not_in += not_in
        client_cpu += pipe.recv()
    for proc in procs:
        proc.join()
    if spy is not None:
        spy.wait(timeout=120)

    window = t1 - t0
    done = [(sent, rtt) for trips, *_ in results for sent, rtt in trips if t0 <= sent + rtt <= t1]
    rtts = [rtt for trips, *_ in results for sent, rtt in trips if t0 <= sent <= t1]
    moves = len(done)
    stall_after = 3.0 + (0 if think is None else think[1])
    stalled = sum(
        1
        for i in range(0, len(results), 2)
        if longest_gap(results[i][0] + results[i + 1][0], t0, t1, finished=results[i][5]) > stall_after
    )
    errors = sum(r[3] for r in results)
    reconnects = sum(r[4] for r in results)
    daphne_cpu = [b - a for a, b in zip(cpu_0, cpu_1, strict=True)]
    offered = "max" if think is None else f"{len(games) / args.think:.0f}"
    shares = core_share(cores_0, cores_1)

    print(
        f"{len(games)} games ({2 * len(games)} sockets) on {args.servers} daphne process(es), "
        f"{n_clients} client process(es); {sockets_in} of {sockets} sockets in after {all_in - started:.1f} s, "
        f"then {args.warmup:.0f} s of warm-up and a {window:.1f} s window"
    )
    print(f"  moves/s offered ~{offered}, achieved {moves / window:.0f}")
    print(
        f"  round trip: p50 {percentile(rtts, 0.5) * 1000:.1f} ms, p99 {percentile(rtts, 0.99) * 1000:.1f} ms, "
        f"p99.9 {percentile(rtts, 0.999) * 1000:.1f} ms, mean {statistics.fmean(rtts) * 1000 if rtts else 0:.1f} ms "
        f"({len(rtts)} moves sent in the window)"
    )
    print(
        f"  daphne CPU per move {sum(daphne_cpu) / max(1, moves) * 1000:.2f} ms "
        f"({' + '.join(f'{c / window * 100:.0f} %' for c in daphne_cpu)} of a core; event loop runnable but waiting "
        f"for its core {' + '.join(f'{(b - a) / window * 100:.0f} %' for a, b in zip(wait_0, wait_1, strict=True))}"
        " of the window)"
    )
    if moves:
        print(f"  one core's worth of daphne at that CPU per move: {moves / sum(daphne_cpu):.0f} moves/s")
    print(
        f"  stalled games (no move for {stall_after:.1f} s) {stalled}, errors {errors}, reconnects {reconnects}"
    )
    print(
        "  core busy in the window: "
        + ", ".join(f"core {c} {s:.0f} %" for c, s in sorted(shares.items()))
        + f"; client processes {client_cpu / (time.perf_counter() - started) * 100:.0f} % of a core over the run"
    )
    if chat_games:
        lines = [latency for sent, latency in chat_trips if t0 <= sent <= t1]
        print(
            f"  chat: {chat_games - chat_not_in} of {chat_games} chatting games in, offered ~{(chat_games - chat_not_in) * CHAT_LINES_PER_AUTHOR_S:.0f} lines/s, "
            f"read {len(lines) / window:.0f} lines/s; line latency p50 {percentile(lines, 0.5) * 1000:.1f} ms, "
            f"p99 {percentile(lines, 0.99) * 1000:.1f} ms, p99.9 {percentile(lines, 0.999) * 1000:.1f} ms; "
            f"refused {chat_errors}"
        )
    if profile_path:
        print(f"  py-spy profile of daphne pid {daphne_pids[0]}: {profile_path}")


# The libraries a socket's CPU is spent in: each run says their versions, and says so when the
# environment is not the one uv.lock describes (a figure is comparable only on the locked versions).
MEASURED_LIBRARIES = (
    "daphne",
    "twisted",
    "autobahn",
    "channels",
    "channels-redis",
    "redis",
    "hiredis",
    "psycopg",
)


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    def one(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "-"

    locked = locked_versions()

    def described(name: str) -> str:
        installed = one(name)
        want = locked.get(name)
        if want is None or want == installed:
            return f"{name} {installed}"
        return f"{name} {installed} (NOT the locked {want})"

    return f"Python {sys.version.split()[0]}, " + ", ".join(described(name) for name in MEASURED_LIBRARIES)


def locked_versions() -> dict[str, str]:
    """Package name -> version as uv.lock pins it (empty without the lock file)."""
    import tomllib

    lock = Path(__file__).resolve().parent.parent / "uv.lock"
    if not lock.exists():
        return {}
    packages = tomllib.loads(lock.read_text())["package"]
    return {package["name"].lower(): package["version"] for package in packages if "version" in package}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--servers", type=int, default=1, choices=[1, 2])
    parser.add_argument(
        "--seconds",
        type=float,
        default=20,
        help="the measured window, after every socket is in and the warm-up",
    )
    parser.add_argument("--closed-loop", action="store_true", help="no thinking time: saturation")
    parser.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean thinking time per move, s; each is uniform in 0.5x-1.5x (default 1)",
    )
    # The window starts only once every socket has its game (handshakes at most
    # 50 in flight in all), then after this many seconds more of play.
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--reconnect-storm", action="store_true")
    parser.add_argument(
        "--idle-sockets",
        type=int,
        default=0,
        help="idle spectator sockets (of games nobody plays) held open during the run",
    )
    parser.add_argument(
        "--connect-limit",
        type=float,
        default=90,
        help="start the window after this many seconds even if some sockets are not in yet",
    )
    parser.add_argument(
        "--clients", type=int, default=0, help="client processes (default: one per 500 games)"
    )
    parser.add_argument(
        "--chat-rate",
        type=float,
        default=0,
        help=f"chat lines a second, over games chatting at {CHAT_LINES_PER_AUTHOR_S:g} lines/s each",
    )
    parser.add_argument(
        "--chat-sockets",
        choices=("own", "extra"),
        default="own",
        help="chat on the players' game sockets (as the page does) or on two extra sockets a game",
    )
    parser.add_argument("--no-pin", action="store_true", help="leave every process on every core")
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="py-spy speedscope profile of the first daphne over the measured window",
    )
    args = parser.parse_args()
    if not os.getenv("REDIS_URL"):
        sys.exit("set REDIS_URL (and DATABASE_URL): the load test measures the production layer")
    print(f"versions: {versions()}", flush=True)

    from launch.processes import celery_worker_command, daphne_command, free_port, wait_for_port

    raise_fd_limit()  # inherited by daphne and the client processes
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a kill still stops daphne and unpins
    pin = Pinning(enabled=not args.no_pin)
    postmaster, pg = postgres_pids()
    env = {**os.environ, "WS_OPENS_PER_ADDRESS": "0"}  # every client shares 127.0.0.1
    procs, ports = [], []
    idle = None
    try:
        pin.pin_service("PostgreSQL", pg)
        pin.pin_service("Redis", redis_pids(os.environ["REDIS_URL"]))
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
        procs.append(
            subprocess.Popen(
                celery_worker_command(concurrency=1),
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        for i in range(args.servers):
            port = free_port()
            log = Path(tempfile.gettempdir()) / f"ws_load_daphne_{port}.log"
            core = pin.daphne_core(i)
            # taskset: the process starts on its core, so every thread it makes inherits it
            command = daphne_command("127.0.0.1", port)
            if core is not None:
                command = ["taskset", "-c", str(core), *command]
            with log.open("w") as stderr:  # the child keeps its own descriptor
                proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
            procs.append(proc)
            ports.append(port)
        daphnes = procs[1:]
        for proc, port in zip(daphnes, ports, strict=True):
            wait_for_port(port, proc=proc, timeout=30)
        pids = [p.pid for p in daphnes]
        placement = ", ".join(f"pid {p} on core(s) {sorted(os.sched_getaffinity(p))}" for p in pids)
        print(
            f"daphne: {placement}; this script, clients and worker on core(s) {sorted(os.sched_getaffinity(0))}"
        )
        for note in pin.notes:
            print(f"pinning: {note}")
        games = make_games(args.games)
        if args.idle_sockets:
            idle = open_idle_sockets(args.idle_sockets, ports, pids)
        if args.reconnect_storm:
            from django.db import connections

            connections.close_all()
            total, connects, cpu = asyncio.run(reconnect_storm(games, ports, pids, args.profile))
            print(
                f"reconnect storm: {2 * len(games)} sockets back in {total:.1f} s; "
                f"connect p50 {percentile(connects, 0.5) * 1000:.0f} ms, p99 {percentile(connects, 0.99) * 1000:.0f} ms; "
                "daphne CPU "
                + ", ".join(f"{c / total * 100:.0f} %" for c in cpu)
                + f", {sum(cpu) / (2 * len(games)) * 1000:.2f} ms per socket"
            )
        else:
            play(args, games, ports, pids, args.profile)
        if idle is not None:
            close_idle_sockets(*idle)
            idle = None
    finally:
        for client in CLIENTS:
            if client.is_alive():
                client.kill()
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        pin.undo(postmaster)
        if pin.restore:
            print("pinning: PostgreSQL and Redis given back their previous cores")


if __name__ == "__main__":
    main()
