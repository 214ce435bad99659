"""Redis restarted under the running site (issue #38, finding 4 and its fault check).

Each test runs the site's processes on a Redis of its own (stopped and started again on the
same port, empty, as docs/operations.md says Redis may come back), never the session's:

- the live worker, started with the production flags, holding messages unacknowledged (a
  clock's countdown) and running a task that publishes while Redis is down, must reconnect by
  itself: kombu's Redis channel made it exit with ``Unrecoverable error: AttributeError("'NoneType'
  object has no attribute 'hostname'")`` (config/broker.py mends it);
- players on real daphne and worker processes, a live game and a computer game: every move
  acknowledged is stored and reaches the opponent's socket, the computer answers, a clock still
  falls on time, and no game ends by the site's fault.
"""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from accounts.identity import Identity
from games import services as play
from games.live.bot import GameBot
from games.models import EndReason, Game, Move
from games.tasks import flag
from launch.processes import PYTHON, celery_worker_command, free_port, start_embedded_redis
from tests.faults.test_kill import FAULT_SETTINGS
from tests.games.test_multiprocess import session_cookie, ws_url
from tests.processes import EXTERNAL_SITE, Services, needs_redis_broker, use_broker

pytestmark = [
    pytest.mark.heavy,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(bool(EXTERNAL_SITE), reason="restarts a Redis of its own under processes it starts"),
    needs_redis_broker,
]

# Bob's clock in the live game: what is left of his minute as it starts (see the test).
BOBS_CLOCK_MS = 30_000
WAIT = 60.0  # generous: the machine running the suite may be busy
# A flag falls within this of its due time although Redis lost its countdown task: the sweep
# runs every second here (FAULT_SETTINGS), and the probe measured 0.8-1.8 s.
FLAG_WITHIN = 5.0


class PrivateRedis:
    """A Redis on a fixed port that a test stops and starts again (empty, as after a restart)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="blip-redis-"))
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> None:
        self.proc, self.url = start_embedded_redis(self.folder, port=self.port, persist=False)

    def stop(self, sig: signal.Signals = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)


class Site:
    """Processes on the private Redis: a worker, a beat, daphne, and their logs."""

    def __init__(self, redis: PrivateRedis, database_url: str) -> None:
        self.redis = redis
        self.database_url = database_url
        self.services = Services()
        self.services.redis_url = redis.url
        self.services.broker_url = ""  # the broker is this Redis too, whatever CI's stage uses
        self.worker: subprocess.Popen | None = None
        self.worker_log: Path | None = None

    def env(self) -> dict[str, str]:
        return {**self.services.env(self.database_url), **FAULT_SETTINGS}

    def start_worker(self, cmd: list[str]) -> None:
        self.worker = self.services._spawn(cmd, self.env(), "celery")
        self.worker_log = self.services.logs[-1]
        self.services.worker = self.worker
        self.services.wait_for_worker(timeout=120)

    def start_beat(self) -> None:
        """Beat as production runs it, a process of its own (the sweep every second)."""
        schedule = tempfile.mkstemp(prefix="beat-")[1]
        cmd = [PYTHON, "-m", "celery", "-A", "config", "beat", "--schedule", schedule, "--loglevel", "info"]
        self.services._spawn(cmd, self.env(), "beat")

    def log(self) -> str:
        return self.worker_log.read_text() if self.worker_log else ""

    def received(self, task: str) -> int:
        """How many ``task`` messages the worker has received."""
        return len(re.findall(re.escape(task) + r"\[[^\]]+\] received", self.log()))

    def wait(self, what: str, condition: Callable[[], bool], timeout: float = WAIT) -> float:
        """Wait for ``condition``; the worker exiting meanwhile fails at once, with the logs."""
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.worker is None or self.worker.poll() is None, (
                f"the worker exited while waiting for {what}\n" + self.services.tail()
            )
            assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s\n" + self.services.tail()
            time.sleep(0.1)
        return time.monotonic()

    def outage(self, sig: signal.Signals) -> None:
        """Stop Redis until the worker has seen it gone and failed to reconnect, then start it again."""
        lost, refused = self.log().count("Connection to broker lost"), self.log().count("Cannot connect to")
        self.redis.stop(sig)
        self.wait(
            "the worker seeing the broker gone", lambda: self.log().count("Connection to broker lost") > lost
        )
        self.wait("the worker retrying in vain", lambda: self.log().count("Cannot connect to") > refused)
        self.redis.start()
        use_broker(self.redis.url)  # this process's pooled broker connections died with Redis


@pytest.fixture
def site(database_url_for_processes) -> Iterator[Site]:
    redis = PrivateRedis()
    redis.start()
    running = Site(redis, database_url_for_processes)
    from config.celery import app

    previous = app.conf.broker_url
    use_broker(redis.url)  # this process's tasks (a game's first follow-ups) go to that Redis
    try:
        yield running
    finally:
        running.services.stop()
        redis.stop(signal.SIGTERM)
        use_broker(previous)


def me(user) -> Identity:
    return Identity(user=user, guest=None)


def legal_move(game_id: int) -> tuple[str, int]:
    game = Game.objects.get(pk=game_id)
    engine = game.engine
    return engine.legal_moves(game.engine_state())[0], game.ply


def test_the_live_worker_reconnects_by_itself_when_redis_restarts_under_it(site, user_factory):
    # The live worker as deploy/systemd/fiveboards-worker-live.service starts it (one pool process),
    # here consuming the computer's queues too: the game below is against the computer, whose
    # moves left "live" (issue #38), and its task marks the moment of each outage.
    queues = ("live", settings.COMPUTER_QUICK_QUEUE, settings.COMPUTER_QUEUE)
    site.start_worker([*celery_worker_command(concurrency=1, queues=queues), "--hostname", "live@blip"])
    site.start_beat()
    alice = user_factory("alice")
    # One minute each: once the clocks run, every computer move arms the human's flag, a task
    # it publishes, and which the worker then holds unacknowledged until its countdown is due.
    game = play.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=1)
    for round, sig in enumerate((signal.SIGKILL, signal.SIGTERM, signal.SIGKILL)):
        # A countdown the worker holds unacknowledged through the outage, like any armed clock.
        held = flag.apply_async((game.pk, 10_000), countdown=3000)
        site.wait("the held countdown", lambda held=held: f"[{held.id}] received" in site.log())
        token, ply = legal_move(game.pk)
        received = site.received("games.tasks.computer_move")
        play.play_move(game_id=game.pk, identity=me(alice), token=token, ply=ply, client_id=f"m{ply}")
        # The computer's task is running (or about to): its move is stored and published as
        # Redis goes.
        site.wait("the computer's task", lambda n=received: site.received("games.tasks.computer_move") > n)
        site.outage(sig)
        # Back by itself: the same process answers and plays (the sweep redoes a lost task).
        site.services.wait_for_worker(timeout=WAIT)
        site.wait(
            f"the computer's reply after restart {round + 1}",
            lambda ply=ply: Game.objects.get(pk=game.pk).ply >= ply + 2,
        )
    assert "Unrecoverable error" not in site.log(), site.log()[-5000:]
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE, f"the game ended: {game.end_reason}"
    assert list(Move.objects.filter(game=game).values_list("ply", flat=True)) == list(range(game.ply))


class Recorder:
    """What one player's socket was told: its acknowledgements."""

    def __init__(self) -> None:
        self.acks: list[dict[str, Any]] = []

    def __call__(self, message: dict[str, Any]) -> bool:
        if message.get("type") == "ack" or "ack" in message:
            self.acks.append(message.get("ack", message))
        return False  # the bot handles every message as usual


def test_a_redis_restart_during_live_and_computer_games_loses_no_move_and_no_game(site, user_factory):
    site.start_worker(celery_worker_command(concurrency=1, beat=True, schedule=Path(tempfile.mkstemp()[1])))
    _, port = site.services.start_daphne(site.database_url)
    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    live = play.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=1
    )
    play.join_game(game_id=live.pk, identity=me(bob), token=live.invite_token)
    # Bob has half his minute left (the suite need not wait a whole minute for his flag); the
    # outage below must still come well before it falls, which the end checks.
    Game.objects.filter(pk=live.pk).update(clock1_ms=BOBS_CLOCK_MS)
    computer = play.create_computer_game(identity=me(carol), game="reversi", level="easy", side=0, minutes=5)

    bob_moves, carol_moves = 5, 5
    seen = {name: Recorder() for name in ("alice", "bob", "carol")}
    black = GameBot(
        ws_url(port, live.pk), cookie=session_cookie(alice), think=lambda: 0.3, on_message=seen["alice"]
    )
    # Bob stops after his moves and lets his clock run out, his socket open: the flag must fall.
    white = GameBot(
        ws_url(port, live.pk),
        cookie=session_cookie(bob),
        think=lambda: 0.3 if white.moves_made < bob_moves else 600,
        on_message=seen["bob"],
    )
    human = GameBot(
        ws_url(port, computer.pk),
        cookie=session_cookie(carol),
        think=lambda: 0.3 if human.moves_made < carol_moves else 600,
        on_message=seen["carol"],
    )

    redis_back: list = []  # when Redis was started again

    async def restart_mid_game() -> None:
        def playing() -> bool:  # both games under way, the live clocks running
            return bool(
                white.snapshot
                and white.snapshot["ply"] >= 3
                and human.snapshot
                and human.snapshot["ply"] >= 2
            )

        await asyncio.to_thread(site.wait, "both games under way", playing)
        await asyncio.to_thread(site.outage, signal.SIGKILL)
        redis_back.append(timezone.now())

    async def computer_game() -> None:
        task = asyncio.create_task(human.play(timeout=240))
        # The computer's last reply must reach carol's socket, not only the database.
        deadline = time.monotonic() + 240
        while not (human.snapshot and human.snapshot["ply"] >= 2 * carol_moves):
            if task.done():
                task.result()  # raises what stopped the bot
            assert time.monotonic() < deadline, "carol never saw the computer's last reply"
            await asyncio.sleep(0.1)
        task.cancel()

    async def run() -> None:
        await asyncio.gather(
            black.play(timeout=240), white.play(timeout=240), computer_game(), restart_mid_game()
        )

    asyncio.run(run())

    live.refresh_from_db()
    computer.refresh_from_db()
    # No game lost to the site: the live one ends on bob's clock, the computer game goes on.
    assert live.status == Game.Status.FINISHED and live.end_reason == EndReason.TIMEOUT, live.end_reason
    story = {
        name: (bot.snapshot and bot.snapshot["ply"], bot.reconnects, bot.moves_made, len(seen[name].acks))
        for name, bot in (("alice", black), ("bob", white), ("carol", human))
    }
    assert live.winner == 0, (
        f"alice lost on time at ply {live.ply}; (ply seen, reconnects, moves, acks): {story}"
    )
    assert computer.status == Game.Status.ACTIVE and computer.ply >= 2 * carol_moves
    # Bob's flag fell on time: his clock at his last move, from the start of his turn.
    last, bobs_last = Move.objects.filter(game=live).order_by("-ply")[:2]
    due = last.created_at + timedelta(milliseconds=bobs_last.clock_left_ms)
    assert live.finished_at is not None
    # The flag fell after the outage, whose countdown task Redis lost: the sweep made it fall.
    assert redis_back and redis_back[0] < live.finished_at, (redis_back, live.finished_at)
    assert timedelta(0) <= live.finished_at - due <= timedelta(seconds=FLAG_WITHIN), (live.finished_at, due)
    for bot, name, side, game in (
        (black, "alice", 0, live),
        (white, "bob", 1, live),
        (human, "carol", 0, computer),
    ):
        stored = dict(Move.objects.filter(game=game).values_list("ply", "side"))
        # Every acknowledged move is stored...
        assert seen[name].acks, f"{name} had no move acknowledged"
        for ack in seen[name].acks:
            assert stored.get(ack["ply"]) == side, (
                f"{name}'s acknowledged move at ply {ack['ply']} was not stored"
            )
        assert not bot.errors, bot.errors
        # ...and announced: each socket ends with every move of its game.
        assert bot.snapshot is not None and bot.snapshot["moves"] == game.tokens, (
            f"{name} did not hear every move"
        )
    assert "Unrecoverable error" not in site.log()
