"""Spectators on a real Redis, several processes simulated in this one (games/live/spectators.py).

As in tests/games/test_presence.py, a process is ``presence.PROCESS`` and its own
socket counts are its memory, which a dead process takes with it.
"""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games import bus
from games.live import presence, spectators
from tests.games.test_presence import shared_redis

pytestmark = [pytest.mark.services]

__all__ = ["shared_redis"]  # the fixture

GAME = 4343


def as_process(monkeypatch, name: str) -> None:
    monkeypatch.setattr(presence, "PROCESS", name)
    monkeypatch.setattr(presence, "_local_counts", presence.Counter())
    monkeypatch.setattr(spectators, "_local", spectators.Counter())


def change(viewer: str, delta: int) -> int:
    return async_to_sync(spectators.change)(GAME, viewer, delta)[0]


def count() -> int:
    return spectators.counts_now([GAME])[GAME][0]


def test_one_person_with_two_tabs_counts_once_and_until_the_last_tab_closes(shared_redis, monkeypatch):
    as_process(monkeypatch, "daphne-1")
    assert change("u7", +1) == 1
    assert change("u7", +1) == 1, "the second tab is the same person"
    assert change("u8", +1) == 2
    assert change("u7", -1) == 2, "one of carol's tabs is still open"
    assert change("u7", -1) == 1
    assert change("u7", -1) == 1, "a close too many changes nothing"


def test_a_spectator_held_only_by_a_dead_process_stops_counting_and_the_survivor_announces_it(
    shared_redis, monkeypatch
):
    as_process(monkeypatch, "daphne-1")
    change("u7", +1)  # carol, on the process about to die
    change("u8", +1)  # dan, who also has a tab on the survivor
    as_process(monkeypatch, "daphne-2")
    change("u8", +1)
    assert count() == 2
    shared_redis.zadd(presence.PROCS_KEY, {"daphne-1": shared_redis.time()[0] - 60})
    assert count() == 1, "read at once: nobody live holds carol"

    async def survivor_beats() -> dict:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(bus.game_group(GAME), channel)
        await presence.beat()
        return await layer.receive(channel)

    message = async_to_sync(survivor_beats)()
    assert (message["type"], message["count"]) == ("game.watchers", 1)
    assert shared_redis.smembers(f"presence:{GAME}:watch") == {b"daphne-2|u8"}, "the dead process's are gone"


def test_after_redis_restarts_empty_a_live_process_puts_its_spectators_back(shared_redis, monkeypatch):
    as_process(monkeypatch, "daphne-1")
    presence.change(GAME, 0, +1)  # a player here too: the heartbeat registers the process again
    change("u7", +1)
    for key in shared_redis.scan_iter("presence:*"):
        shared_redis.delete(key)
    assert count() == 0
    async_to_sync(presence.beat)()
    assert count() == 1, "carol's socket is still open here"
