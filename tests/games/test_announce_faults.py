"""A move stored while its announcement fails (issue #38, 4): acknowledged as played, announced late, and
what it calls for (the computer's reply, a flag) still happens.

The channel layer here refuses the first broadcast with redis-py's ``ConnectionError``, as Redis
did when it restarted under a game; the broker refuses the follow-ups as kombu does without it.
tests/faults/test_redis_blip.py does the same with a real Redis stopped and started again.
Every story here runs on both move paths (the ``move_path`` fixture).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.utils import timezone
from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from games import services
from games.engines import get as get_engine
from games.models import Game
from games.services import queue
from tests.games.test_consumers import next_of, open_socket, shown

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("move_path")]


def refuse_broadcasts(monkeypatch, count: int) -> list[str]:
    """The channel layer refuses the next ``count`` game events (Redis out of reach); the events refused."""
    layer = get_channel_layer()
    original = layer.group_send
    refused: list[str] = []

    async def group_send(group, message):
        if message.get("type") == "game.event" and len(refused) < count:
            refused.append(message["event"])
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        return await original(group, message)

    monkeypatch.setattr(layer, "group_send", group_send)
    return refused


def refuse_tasks(monkeypatch) -> list[str]:
    """The broker refuses every task (the names of those refused)."""
    from celery.app.task import Task

    refused: list[str] = []

    def apply_async(self, *args, **kwargs):
        refused.append(self.name)
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(Task, "apply_async", apply_async)
    return refused


def later(monkeypatch, **delta) -> None:
    """Let the services believe time has passed."""
    moment = timezone.now() + timedelta(**delta)
    monkeypatch.setattr(timezone, "now", lambda: moment)


async def test_a_move_whose_broadcast_fails_is_acknowledged_as_played_and_reaches_the_opponent(
    human_game, monkeypatch, move_path
):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, state = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    v = state["v"]
    refused = refuse_broadcasts(monkeypatch, 1)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    # Before: a "server_error" ("Your move ... was not played") for a move that was stored.
    ack = await next_of(a, "ack", "error")
    assert ack == {"type": "ack", "id": "m1", "ply": 0, "v": v + 1, "duplicate": False}
    assert refused == ["move"]
    if move_path.fast:
        # Both boards hear of it from the retry, a fraction of a second later.
        for ws in (a, b):
            seen = await next_of(ws, "event")
            assert seen["v"] == v + 1 and shown(seen, state["game"])["moves"] == ["d3"]
        assert "ack" not in seen
    else:
        # The locked path does not retry (docs/decisions.md, issue #38): the board catches up at its ping.
        await b.send_json_to({"type": "ping", "v": v})
        caught_up = await next_of(b, "state")
        assert caught_up["v"] == v + 1 and caught_up["game"]["moves"] == ["d3"]
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.tokens == ["d3"] and game.version == v + 1
    # The game goes on: bob answers as usual.
    await b.send_json_to({"type": "move", "move": "c3", "ply": 1, "id": "m2"})
    assert (await next_of(b, "ack", "error"))["v"] == v + 2
    assert move_path.fast_moves == move_path.on_fast(["d3", "c3"])
    await a.disconnect()
    await b.disconnect()


async def test_the_sweep_brings_the_computer_s_reply_to_a_move_whose_announcement_and_task_were_lost(
    player_factory, monkeypatch
):
    alice, cookie = await database_sync_to_async(player_factory)("alice")
    game = await database_sync_to_async(services.create_computer_game)(
        identity=alice, game="reversi", level="easy", side=0, minutes=5
    )
    a, state = await open_socket(game.pk, cookie)
    broadcasts = refuse_broadcasts(monkeypatch, 1)
    tasks = refuse_tasks(monkeypatch)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    assert (await next_of(a, "ack", "error"))["v"] == state["v"] + 1
    assert broadcasts == ["move"] and tasks == ["games.tasks.computer_move"]
    await a.disconnect()
    monkeypatch.undo()  # Redis and the broker are back (eager tasks, as in every unit test)

    def sweep_after(seconds: float) -> int:
        with monkeypatch.context() as m:
            later(m, seconds=seconds)
            return services.attend_overdue()

    assert await database_sync_to_async(sweep_after)(1) == 0  # the computer may still be thinking
    assert await database_sync_to_async(sweep_after)(6) == 1  # past its grace: queued again, and it plays
    played = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert played.ply == 2 and played.tokens[0] == "d3" and played.to_move == 0


async def test_the_sweep_flags_a_clock_whose_move_announcement_and_flag_task_were_lost(
    human_game, monkeypatch
):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)(minutes=1)
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    # The clocks start once each side has moved (docs/decisions.md): two opening moves first.
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    await next_of(a, "ack", "error")
    await b.send_json_to({"type": "move", "move": "c5", "ply": 1, "id": "m2"})
    await next_of(b, "ack", "error")
    await b.disconnect()
    reversi = get_engine("reversi")
    third = reversi.legal_moves(reversi.play(reversi.play(reversi.initial(), "d3"), "c5"))[0]
    # alice's own flag task, pending since ply 2, would stand for bob's later clock (queue.arm_flag).
    await database_sync_to_async(cache.delete)(queue._flag_key(game_id))
    refuse_broadcasts(monkeypatch, 1)
    tasks = refuse_tasks(monkeypatch)
    await a.send_json_to({"type": "move", "move": third, "ply": 2, "id": "m3"})
    await next_of(a, "ack", "error")
    assert tasks == ["games.tasks.flag"]  # bob's clock (under 75 s) would have had its task
    await a.disconnect()
    monkeypatch.undo()

    def sweep_after(seconds: float) -> int:
        with monkeypatch.context() as m:
            later(m, seconds=seconds)
            return services.attend_overdue()

    assert await database_sync_to_async(sweep_after)(59) == 0
    assert await database_sync_to_async(sweep_after)(61) == 1
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.end_reason == "timeout" and game.winner == 0


def publish_to_nobody(monkeypatch, count: int) -> list[str]:
    """The next ``count`` game events are published while nobody is subscribed (Redis back, the
    subscriptions not yet): the broadcast succeeds and no socket hears it. The events lost."""
    layer = get_channel_layer()
    original = layer.group_send
    lost: list[str] = []

    async def group_send(group, message):
        if message.get("type") == "game.event" and len(lost) < count:
            lost.append(message["event"])
            return None
        return await original(group, message)

    monkeypatch.setattr(layer, "group_send", group_send)
    return lost


async def test_a_move_lost_while_the_layer_was_away_reaches_every_board_when_the_layer_is_back(
    human_game, guest_factory, monkeypatch, move_path
):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, before = await open_socket(game_id, bob)
    _, visitor = await database_sync_to_async(guest_factory)()
    watcher, _ = await open_socket(game_id, visitor)
    lost = publish_to_nobody(monkeypatch, 1)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    if not move_path.fast:  # the locked path's ack comes straight to the mover, not inside the event
        assert (await next_of(a, "ack"))["duplicate"] is False

    def stored() -> bool:
        return Game.objects.get(pk=game_id).tokens == ["d3"]

    while not await database_sync_to_async(stored)():
        await asyncio.sleep(0.05)
    assert lost == ["move"]
    # Bob's board waits for a move it will never hear of (a watcher's notice may come meanwhile).
    while not await b.receive_nothing(timeout=0.3):
        assert (await b.receive_json_from())["type"] in ("presence", "watchers")
    # The process's channel layer subscribed to Redis again: each of its sockets is told
    # (config/channel_layer.py sends this to every channel of the process; here to the game's).
    await get_channel_layer().group_send(f"game.{game_id}", {"type": "layer.resubscribed"})
    for ws in (b, watcher, a):
        state = await next_of(ws, "state")
        assert state["v"] == before["v"] + 1 and state["game"]["moves"] == ["d3"]
    # The mover's resend (on the fast path its ack rode in the lost event) is acknowledged as a duplicate, played once.
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    ack = await next_of(a, "ack", "error")
    assert ack == {"type": "ack", "id": "m1", "ply": 0, "v": before["v"] + 1, "duplicate": True}
    for ws in (a, b, watcher):
        await ws.disconnect()
