"""The channel layer on a real Redis: one pattern subscription per process, not one per socket.

Each ProcessChannelLayer here stands for one daphne process; every test uses a
prefix of its own, so runs sharing a Redis never hear each other.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
from channels.layers import BaseChannelLayer
from redis import asyncio as aioredis

from config.channel_layer import ProcessChannelLayer

pytestmark = [pytest.mark.services]

QUIET = 0.5  # seconds of silence that count as "nothing more arrives"


@pytest.fixture
async def site(services):
    """A factory of layers ("processes") on one prefix, and a plain client to look at Redis with."""
    url = services.ensure_redis()
    prefix = f"layertest.{uuid.uuid4().hex[:8]}."
    plain = aioredis.Redis.from_url(url, decode_responses=True)
    layers: list[ProcessChannelLayer] = []

    def process(name: str) -> ProcessChannelLayer:
        # The client name lets CLIENT LIST tell this process's connections from everyone else's.
        layer = ProcessChannelLayer(hosts=[{"address": url, "client_name": f"{prefix}{name}"}], prefix=prefix)
        layers.append(layer)
        return layer

    yield prefix, process, plain
    for layer in layers:
        await layer.flush()
    await plain.aclose()


async def subscriptions(plain: aioredis.Redis, client_name: str) -> list[tuple[int, int]]:
    """(channels, patterns) subscribed by each pubsub connection of the named process."""
    clients = await plain.client_list(_type="pubsub")
    return [(int(c["sub"]), int(c["psub"])) for c in clients if c["name"] == client_name]


async def nothing_more(layer: ProcessChannelLayer, channel: str) -> bool:
    try:
        await asyncio.wait_for(layer.receive(channel), QUIET)
    except TimeoutError:
        return True
    return False


async def test_a_message_from_another_process_arrives_once(site):
    prefix, process, _ = site
    first, second = process("first"), process("second")
    socket = await first.new_channel()
    await second.send(socket, {"type": "worker.pong", "text": "hello"})
    assert await asyncio.wait_for(first.receive(socket), 5) == {"type": "worker.pong", "text": "hello"}
    assert await nothing_more(first, socket)


async def test_the_names_follow_channels_rules_and_the_part_before_the_bang_names_the_process(site):
    prefix, process, _ = site
    first, second = process("first"), process("second")
    names = [await first.new_channel(), await first.new_channel(), await first.new_channel("healthz.")]
    other = await second.new_channel()
    rules = BaseChannelLayer()
    for name in [*names, other]:
        assert rules.require_valid_channel_name(name) and name.startswith(prefix)
    token = rules.non_local_name(names[0])[len(prefix + "specific.") :]
    assert token.endswith("!") and len(token) > 8
    assert rules.non_local_name(names[1]) == rules.non_local_name(names[0])
    assert rules.non_local_name(names[2]) == f"{prefix}healthz.{token}"
    assert not rules.non_local_name(other).endswith(token)


async def test_a_hundred_sockets_in_one_process_cost_one_pattern_and_no_channel_subscriptions(site):
    prefix, process, plain = site
    daphne, worker = process("daphne"), process("worker")
    sockets = [await daphne.new_channel() for _ in range(100)]
    assert await subscriptions(plain, f"{prefix}daphne") == [(0, 1)]
    assert await plain.pubsub_channels(f"{prefix}*") == []
    # ... and every socket still hears its own messages, and only those.
    for number, socket in enumerate(sockets):
        await worker.send(socket, {"type": "n", "n": number})
    received = [await asyncio.wait_for(daphne.receive(socket), 5) for socket in sockets]
    assert [message["n"] for message in received] == list(range(100))


async def test_a_closed_socket_gets_nothing_leaves_no_subscription_and_sending_to_it_is_harmless(site):
    prefix, process, plain = site
    daphne, worker = process("daphne"), process("worker")
    closing, staying = await daphne.new_channel(), await daphne.new_channel()
    receiving = asyncio.create_task(daphne.receive(closing))
    await asyncio.sleep(0.1)
    receiving.cancel()  # what channels does when the socket closes
    with pytest.raises(asyncio.CancelledError):
        await receiving

    await worker.send(closing, {"type": "late", "from": "worker"})
    await daphne.send(closing, {"type": "late", "from": "same process"})
    await worker.send(staying, {"type": "still here"})
    assert (await asyncio.wait_for(daphne.receive(staying), 5))["type"] == "still here"
    assert await nothing_more(daphne, closing)
    # The pattern stays for the process's other sockets; no channel was ever subscribed.
    assert await subscriptions(plain, f"{prefix}daphne") == [(0, 1)]
    assert await plain.pubsub_channels(f"{prefix}*") == []


async def test_a_send_within_the_process_does_not_go_through_redis(site, monkeypatch):
    _, process, _ = site
    daphne, worker = process("daphne"), process("worker")
    socket = await daphne.new_channel()
    elsewhere = await worker.new_channel()

    async def no_publish(channel, message):
        raise ConnectionError(f"PUBLISH {channel} is not allowed in this test")

    for shard in daphne._get_layer()._shards:
        monkeypatch.setattr(shard, "publish", no_publish)
    with pytest.raises(ConnectionError):  # the broken PUBLISH is really in the way ...
        await daphne.send(elsewhere, {"type": "x"})
    await daphne.send(socket, {"type": "local", "text": "hi"})  # ... yet this arrives
    assert await asyncio.wait_for(daphne.receive(socket), 5) == {"type": "local", "text": "hi"}
    assert await nothing_more(daphne, socket)


async def test_a_group_message_reaches_every_member_in_both_processes_once(site):
    prefix, process, plain = site
    first, second = process("first"), process("second")
    members = {first: [await first.new_channel(), await first.new_channel()]}
    members[second] = [await second.new_channel(), await second.new_channel()]
    for layer, channels in members.items():
        for channel in channels:
            await layer.group_add("game.7", channel)
    # Groups are as before: one subscription per process and group, beside the pattern.
    assert await subscriptions(plain, f"{prefix}first") == [(1, 1)]

    await first.group_send("game.7", {"type": "game.event", "move": "e4"})
    for layer, channels in members.items():
        for channel in channels:
            assert (await asyncio.wait_for(layer.receive(channel), 5))["move"] == "e4"
    for layer, channels in members.items():
        for channel in channels:
            assert await nothing_more(layer, channel)


async def test_after_redis_drops_the_pubsub_connection_messages_arrive_again(site):
    prefix, process, plain = site
    daphne, worker = process("daphne"), process("worker")
    socket = await daphne.new_channel()
    await worker.send(socket, {"type": "before"})
    assert (await asyncio.wait_for(daphne.receive(socket), 5))["type"] == "before"

    # Only this process's connection: CLIENT KILL TYPE pubsub would cut everyone's on a shared Redis.
    killed = {c["id"] for c in await plain.client_list(_type="pubsub") if c["name"] == f"{prefix}daphne"}
    assert len(killed) == 1
    for client_id in killed:
        await plain.client_kill_filter(_id=client_id)

    async def resubscribed() -> None:
        while True:
            clients = await plain.client_list(_type="pubsub")
            mine = [c for c in clients if c["name"] == f"{prefix}daphne"]
            if mine and mine[0]["id"] not in killed and mine[0]["psub"] == "1":
                return
            await asyncio.sleep(0.1)

    await asyncio.wait_for(resubscribed(), 10)  # redis-py's PubSub.on_connect PSUBSCRIBEs again
    await worker.send(socket, {"type": "after"})
    # The socket is told it may have missed something (the test below), then hears as before.
    assert (await asyncio.wait_for(daphne.receive(socket), 5))["type"] == "layer.resubscribed"
    assert (await asyncio.wait_for(daphne.receive(socket), 5))["type"] == "after"
    assert await nothing_more(daphne, socket)


async def test_publishes_do_not_wait_for_each_other_s_round_trips_yet_one_sender_s_stay_in_order(
    site, monkeypatch
):
    """Moves of different games are announced at once, not one per Redis round trip;
    what one coroutine sends one after the other arrives in that order."""
    from config.channel_layer import PUBLISHING

    _, process, _ = site
    daphne, other = process("daphne"), process("other")
    listener = await other.new_channel()
    await other.group_add("game.1", listener)
    shard = daphne._get_layer()._shards[0]
    shard._ensure_redis()
    original = shard._redis.publish
    in_flight, most = 0, 0

    async def slow_publish(channel, message):
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        try:
            await asyncio.sleep(0.05)  # Redis on a busy core
            return await original(channel, message)
        finally:
            in_flight -= 1

    monkeypatch.setattr(shard._redis, "publish", slow_publish)
    await asyncio.gather(*(daphne.group_send(f"game.{n}", {"type": "x", "n": n}) for n in range(2, 30)))
    assert most == PUBLISHING

    for n in range(20):
        await daphne.group_send("game.1", {"type": "move", "n": n})
    received = [(await asyncio.wait_for(other.receive(listener), 5))["n"] for _ in range(20)]
    assert received == list(range(20))


async def test_once_a_lost_subscription_is_back_every_socket_of_that_process_is_told_and_hears_again(site):
    """Pub/sub delivers at most once: what was published while the connection was down is gone,
    so each local channel is told (``layer.resubscribed``), once Redis has the subscriptions again."""
    from config.channel_layer import RESUBSCRIBED

    prefix, process, plain = site
    daphne, other, worker = process("daphne"), process("other"), process("worker")
    sockets = [await daphne.new_channel() for _ in range(3)]
    await daphne.group_add("game.7", sockets[0])
    elsewhere = await other.new_channel()
    await other.group_add("game.7", elsewhere)
    await worker.group_send("game.7", {"type": "before"})
    assert (await asyncio.wait_for(daphne.receive(sockets[0]), 5))["type"] == "before"
    assert (await asyncio.wait_for(other.receive(elsewhere), 5))["type"] == "before"

    killed = {c["id"] for c in await plain.client_list(_type="pubsub") if c["name"] == f"{prefix}daphne"}
    assert len(killed) == 1
    for client_id in killed:
        await plain.client_kill_filter(_id=client_id)

    for socket in sockets:
        assert await asyncio.wait_for(daphne.receive(socket), 10) == RESUBSCRIBED
    # The confirmation is looked for no more: each message costs what it did before the cut.
    assert all("handle_message" not in vars(shard._pubsub) for shard in daphne._get_layer()._shards)
    # Told only when Redis has the subscriptions again: a move published now reaches the socket.
    await worker.group_send("game.7", {"type": "after"})
    assert (await asyncio.wait_for(daphne.receive(sockets[0]), 5))["type"] == "after"
    for socket in sockets:
        assert await nothing_more(daphne, socket)
    # The other process never lost its connection: it heard everything and is told nothing.
    assert (await asyncio.wait_for(other.receive(elsewhere), 5))["type"] == "after"
    assert await nothing_more(other, elsewhere)
