"""Websockets through the real ASGI application: origins, framing, flood control."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True)]


def communicator(
    origin: str | None = "http://127.0.0.1:8000", path: str = "/ws/notify/"
) -> WebsocketCommunicator:
    headers = [(b"host", b"127.0.0.1:8000")]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return WebsocketCommunicator(application, path, headers=headers)


async def test_a_page_of_the_site_can_open_a_socket_and_get_answers():
    ws = communicator()
    connected, _ = await ws.connect()
    assert connected
    await ws.send_json_to({"type": "ping"})
    assert await ws.receive_json_from() == {"type": "pong"}
    await ws.disconnect()


@pytest.mark.parametrize("origin", ["http://evil.example", None])
async def test_a_socket_from_a_foreign_or_missing_origin_is_refused(origin):
    ws = communicator(origin)
    connected, _ = await ws.connect()
    assert not connected


async def test_malformed_json_and_unknown_types_get_a_clear_error_and_the_socket_stays_open():
    ws = communicator()
    await ws.connect()
    await ws.send_to(text_data="{not json")
    error = await ws.receive_json_from()
    assert error["type"] == "error" and error["code"] == "malformed"
    await ws.send_to(text_data=json.dumps([1, 2, 3]))
    assert (await ws.receive_json_from())["code"] == "unknown_type"
    await ws.send_json_to({"type": "__class__", "id": "x1"})
    error = await ws.receive_json_from()
    assert error["code"] == "unknown_type" and error["id"] == "x1"
    await ws.send_json_to({"type": "ping"})
    assert await ws.receive_json_from() == {"type": "pong"}
    await ws.disconnect()


async def test_an_oversized_frame_closes_the_socket(settings):
    ws = communicator()
    await ws.connect()
    await ws.send_to(text_data=json.dumps({"type": "ping", "pad": "x" * (settings.WS_MAX_MESSAGE_BYTES + 1)}))
    closed = await ws.receive_output()
    assert closed == {"type": "websocket.close", "code": 4009}


async def test_a_flood_closes_only_that_socket(settings):
    settings.WS_RATE_MESSAGES = 5
    flooder, calm = communicator(), communicator()
    await flooder.connect()
    await calm.connect()
    for _ in range(5):
        await flooder.send_json_to({"type": "ping"})
        assert await flooder.receive_json_from() == {"type": "pong"}
    await flooder.send_json_to({"type": "ping"})
    assert await flooder.receive_output() == {"type": "websocket.close", "code": 4008}
    await calm.send_json_to({"type": "ping"})
    assert await calm.receive_json_from() == {"type": "pong"}
    await calm.disconnect()


async def test_deeply_nested_json_and_binary_frames_get_an_error_and_the_socket_stays_open():
    ws = communicator()
    await ws.connect()
    await ws.send_to(text_data="[" * 1024)
    assert (await ws.receive_json_from())["code"] == "malformed"
    await ws.send_to(text_data='{"type": "ping", "x": ' + "[" * 2000 + "]" * 2000 + "}")
    assert (await ws.receive_json_from())["code"] == "malformed"
    await ws.send_to(bytes_data=b'{"type": "ping"}')
    assert (await ws.receive_json_from())["code"] == "binary"
    await ws.send_json_to({"type": "ping"})
    assert await ws.receive_json_from() == {"type": "pong"}
    await ws.disconnect()


async def test_a_failing_handler_answers_server_error_and_the_socket_stays_open(monkeypatch):
    from accounts.consumers import NotificationConsumer

    async def broken(self, message):
        raise RuntimeError("a bug")

    monkeypatch.setattr(NotificationConsumer, "on_ping", broken, raising=False)
    ws = communicator()
    await ws.connect()
    await ws.send_json_to({"type": "ping", "id": 7})
    error = await ws.receive_json_from()
    assert error["code"] == "server_error" and error["id"] == 7
    await ws.disconnect()


async def test_one_address_opening_sockets_too_fast_is_refused_while_others_connect(settings):
    settings.WS_OPENS_PER_ADDRESS, settings.WS_OPENS_SECONDS = 3, 60

    def from_address(address: str) -> WebsocketCommunicator:
        ws = communicator()
        ws.scope["client"] = (address, 50000)
        return ws

    opened = []
    for _ in range(3):
        ws = from_address("203.0.113.9")
        assert (await ws.connect())[0]
        opened.append(ws)
    refused = from_address("203.0.113.9")
    connected, code = await refused.connect()
    assert not connected and code == 4029
    other = from_address("198.51.100.4")
    assert (await other.connect())[0]
    for ws in [*opened, other]:
        await ws.disconnect()


@pytest.mark.services
async def test_two_sites_on_one_redis_with_different_database_numbers_never_hear_each_other(services):
    from config.channel_layer import ProcessChannelLayer
    from config.settings import _default_channel_prefix

    url = services.ensure_redis()
    base = url.rsplit("/", 1)[0]
    site_a = ProcessChannelLayer(hosts=[f"{base}/0"], prefix=_default_channel_prefix(f"{base}/0"))
    site_b = ProcessChannelLayer(hosts=[f"{base}/7"], prefix=_default_channel_prefix(f"{base}/7"))
    same_as_a = ProcessChannelLayer(hosts=[f"{base}/0"], prefix=_default_channel_prefix(f"{base}/0"))
    listener_b, listener_a = await site_b.new_channel(), await same_as_a.new_channel()
    await site_b.group_add("game.1", listener_b)
    await same_as_a.group_add("game.1", listener_a)
    await site_a.group_send("game.1", {"type": "game.event", "text": "for site A"})
    assert (await asyncio.wait_for(same_as_a.receive(listener_a), 5))["text"] == "for site A"
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(site_b.receive(listener_b), 1)
    for layer in (site_a, site_b, same_as_a):
        await layer.flush()


async def test_a_socket_s_messages_are_handled_one_at_a_time_and_its_readers_end_with_it():
    """``dispatch_from``: frames and channel-layer events reach the consumer in turn;
    when the consumer stops, the readers stop too (a layer drops the channel then)."""
    from channels.exceptions import StopConsumer

    from core.websocket import dispatch_from

    frames: asyncio.Queue = asyncio.Queue()
    events: asyncio.Queue = asyncio.Queue()
    cancelled = []

    async def from_events():
        try:
            return await events.get()
        except asyncio.CancelledError:
            cancelled.append("events")
            raise

    handled, running = [], []

    async def dispatch(message):
        assert not running, "one message at a time"
        running.append(message)
        await asyncio.sleep(0.01)  # a handler that awaits the database
        handled.append(message["n"])
        running.clear()
        if message.get("last"):
            raise StopConsumer

    for n in range(3):
        frames.put_nowait({"n": f"frame {n}"})
        events.put_nowait({"n": f"event {n}"})
    loop = asyncio.create_task(dispatch_from([frames.get, from_events], dispatch))
    await asyncio.sleep(0.2)
    frames.put_nowait({"n": "bye", "last": True})
    with pytest.raises(StopConsumer):
        await asyncio.wait_for(loop, 5)
    assert sorted(handled[:6]) == sorted([f"frame {n}" for n in range(3)] + [f"event {n}" for n in range(3)])
    assert [n for n in handled if n.startswith("frame")] == ["frame 0", "frame 1", "frame 2"]
    assert handled[-1] == "bye" and cancelled == ["events"]


async def test_a_failing_source_ends_the_socket_s_loop_with_its_error():
    from core.websocket import dispatch_from

    async def broken():
        raise ConnectionError("redis went away")

    never: asyncio.Queue = asyncio.Queue()
    dispatched = []

    async def dispatch(message):
        dispatched.append(message)

    with pytest.raises(ConnectionError, match="redis went away"):
        await asyncio.wait_for(dispatch_from([never.get, broken], dispatch), 5)
    assert dispatched == []
