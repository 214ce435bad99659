"""A real clocks' worker (``-Q live``, as production's fiveboards-worker-live) flags a game
while the computer's queue is full, and takes none of the computer's moves.

Issue #38: with the computer's moves on the clocks' queue, 60 Hard games kept it
40-68 tasks deep and a human game flagged 6.3 s late.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest
import redis

from games import tasks
from games.models import EndReason, Game
from tests.games.test_takeback_requests import live_game, opened, spend
from tests.processes import EXTERNAL_SITE, needs_redis_broker

# It counts the computer's queue as the Redis broker keeps it (kombu's lists).
pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), needs_redis_broker]

FLOOD = 30


def computer_queue_length(client: redis.Redis) -> int:
    """Messages waiting in queue ``computer`` (kombu's Redis lists, one per priority step)."""
    return sum(client.llen(key) for key in client.keys("computer*") if client.type(key) == b"list")


@pytest.fixture
def clocks_worker(services, worker_broker, database_url_for_processes):
    if EXTERNAL_SITE:
        pytest.skip("starts a worker of its own")
    services.start_worker(database_url_for_processes, queues=("live",))
    services.wait_for_worker()
    client = redis.Redis.from_url(worker_broker)
    client.log = services.logs[-1]  # this worker's own log (the process's earlier workers wrote others)
    yield client
    services.stop_worker()  # the next test that needs a worker gets a plain one, for every queue
    for key in client.keys("computer*"):
        client.delete(key)
    client.close()


def test_a_flag_fires_while_the_computer_s_queue_is_flooded(clocks_worker, user_factory):
    ann, ben = user_factory("ann"), user_factory("ben")
    game = opened(live_game(ann, ben, minutes=1), ann, ben)  # the clocks run from ply 2
    game.refresh_from_db()
    # Ann's minute ran out long ago: the flag task is all that is missing.
    spend(game, 5 * 60)
    for ply in range(FLOOD):  # a guest's computer games, each owed a move
        tasks.computer_move.delay(10**9 + ply, 0)
    assert computer_queue_length(clocks_worker) == FLOOD
    tasks.flag.delay(game.pk, game.ply)
    deadline = time.monotonic() + 60
    while (ended := Game.objects.get(pk=game.pk)).status != Game.Status.FINISHED:
        assert time.monotonic() < deadline, "the clocks' worker never flagged the game"
        time.sleep(0.1)
    assert ended.end_reason == EndReason.TIMEOUT and ended.winner == 1
    # The clocks' worker took none of the computer's moves: they wait for the computer's worker.
    assert computer_queue_length(clocks_worker) == FLOOD


def test_the_clocks_worker_loads_no_computer_player(clocks_worker, services):
    """Nothing on "live" searches, so its worker leaves the compiled cores (numba, LLVM: some 2.5 s
    of CPU and 100 MB per pool process) unloaded, and starts no compiler."""
    tasks.flag.delay(10**9, 0)  # an unknown game: the pool process has run a task, and nothing else
    deadline = time.monotonic() + 30
    while "games.tasks.flag" not in (log := clocks_worker.log.read_text()) or "succeeded" not in log:
        assert time.monotonic() < deadline, log
        time.sleep(0.1)
    assert "this worker consumes live, where nothing searches: no compiled core is loaded" in log
    assert "searches compiled from now on" not in log and "compiled core of" not in log
    for pid in worker_processes(services.worker.pid):
        assert "llvmlite" not in Path(f"/proc/{pid}/maps").read_text(), f"process {pid} loaded LLVM"


def worker_processes(leader: int) -> list[int]:
    """The worker's main process and its pool (its process group)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) == leader:
                    found.append(int(entry.name))
    return found
