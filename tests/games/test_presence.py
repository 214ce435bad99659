"""Presence on a real Redis, several processes simulated in this one (games/live/presence.py).

The processes are told apart by ``presence.PROCESS``; each one's own socket counts
are its memory, which a dead process takes with it.
"""

from __future__ import annotations

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games import bus
from games.live import presence

pytestmark = [pytest.mark.services]

GAME = 4242


@pytest.fixture
def shared_redis(services, settings, monkeypatch):
    url = services.ensure_redis()
    client = redis.Redis.from_url(url)
    for key in client.scan_iter("presence:*"):
        client.delete(key)
    settings.REDIS_URL = url
    monkeypatch.setattr(presence, "_redis", lambda: client)
    monkeypatch.setattr(presence, "_local_counts", presence.Counter())
    monkeypatch.setattr(presence, "_touched", set())
    yield client
    for key in client.scan_iter("presence:*"):
        client.delete(key)


def as_process(monkeypatch, name: str) -> None:
    """From now on this test speaks as process ``name``, with a memory of its own."""
    monkeypatch.setattr(presence, "PROCESS", name)
    monkeypatch.setattr(presence, "_local_counts", presence.Counter())
    monkeypatch.setattr(presence, "_touched", set())


def test_a_player_held_only_by_a_dead_process_is_offline_and_announced_once(shared_redis, monkeypatch):
    as_process(monkeypatch, "daphne-1")
    presence.change(GAME, 0, +1)  # alice's socket, on the process about to die
    as_process(monkeypatch, "daphne-2")
    online, arrived = presence.change(GAME, 1, +1)  # bob's, on the survivor
    assert online == [True, True]
    # daphne-1 is killed: its last heartbeat grows old (a minute ago, in Redis's clock).
    now = shared_redis.time()[0]
    shared_redis.zadd(presence.PROCS_KEY, {"daphne-1": now - 60})
    assert presence.online(GAME)[0] == [False, True], "read at once: nobody live holds alice"

    async def survivor_beats() -> tuple[list, dict, list]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(bus.game_group(GAME), channel)
        announced = await presence.beat()
        message = await layer.receive(channel)
        return announced, message, await presence.beat()

    announced, message, second = async_to_sync(survivor_beats)()
    assert [(game, side, online) for game, side, online, _ in announced] == [(GAME, 0, False)]
    assert message == {"type": "game.presence", "side": 0, "online": False, "seq": announced[0][3]}
    assert announced[0][3] > arrived, "newer than bob's arrival, so pages take it"
    assert second == [], "a dead process is reaped once"
    assert presence.online(GAME)[0] == [False, True]


def test_a_player_with_a_second_socket_on_a_live_process_stays_online_when_the_first_process_dies(
    shared_redis, monkeypatch
):
    as_process(monkeypatch, "daphne-1")
    presence.change(GAME, 0, +1)
    as_process(monkeypatch, "daphne-2")
    presence.change(GAME, 0, +1)  # alice's second tab
    shared_redis.zadd(presence.PROCS_KEY, {"daphne-1": shared_redis.time()[0] - 60})
    announced = async_to_sync(presence.beat)()
    assert [(side, online) for _, side, online, _ in announced] == [(0, True)]
    assert presence.online(GAME)[0] == [True, False]


def test_closing_one_of_two_tabs_in_a_process_keeps_the_player_online(shared_redis, monkeypatch):
    as_process(monkeypatch, "daphne-1")
    presence.change(GAME, 0, +1)
    presence.change(GAME, 0, +1)
    assert presence.change(GAME, 0, -1)[0] == [True, False]
    assert presence.change(GAME, 0, -1)[0] == [False, False]
    assert presence.change(GAME, 0, -1)[0] == [False, False], "a close too many changes nothing"
    assert shared_redis.smembers(presence._held_key("daphne-1")) == set()


def test_after_redis_restarts_empty_a_live_process_registers_its_players_again(shared_redis, monkeypatch):
    as_process(monkeypatch, "daphne-1")
    _, before = presence.change(GAME, 0, +1)
    for key in shared_redis.scan_iter("presence:*"):
        shared_redis.delete(key)  # what a restart without persistence leaves
    assert presence.online(GAME)[0] == [False, False]
    announced = async_to_sync(presence.beat)()
    assert presence.online(GAME)[0] == [True, False], "her socket is still open here"
    assert [(side, online) for _, side, online, _ in announced] == [(0, True)], (
        "she is announced online again, in case a survivor had announced her gone"
    )
    assert presence.change(GAME, 1, +1)[1] > before, "numbering never goes backwards"
