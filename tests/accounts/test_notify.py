"""New messages reach an online recipient's /ws/notify/ socket."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.services.messages import message_send
from config.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True)]


def socket_for(client: Client | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    if client is not None:
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    return WebsocketCommunicator(application, "/ws/notify/", headers=headers)


@sync_to_async
def logged_in_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


async def test_a_new_message_is_pushed_to_the_online_recipient_with_the_unread_count(user_factory):
    alice, bob = await sync_to_async(user_factory)("alice"), await sync_to_async(user_factory)("bob")
    bob_socket = socket_for(await logged_in_client(bob))
    connected, _ = await bob_socket.connect()
    assert connected
    # The group join happens in connect(); a ping round trip proves it is done.
    await bob_socket.send_json_to({"type": "ping"})
    assert await bob_socket.receive_json_from() == {"type": "pong"}

    result = await sync_to_async(message_send)(sender=alice, recipient=bob, body="Your move!")
    assert result.ok
    event = await bob_socket.receive_json_from(timeout=2)
    assert event == {"type": "message", "from": "alice", "id": result.message.pk, "unread": 1}
    await bob_socket.disconnect()


async def test_only_the_recipient_is_notified(user_factory):
    alice, bob = await sync_to_async(user_factory)("alice"), await sync_to_async(user_factory)("bob")
    sockets = [socket_for(await logged_in_client(alice)), socket_for(None)]
    for ws in sockets:
        assert (await ws.connect())[0]
        await ws.send_json_to({"type": "ping"})
        await ws.receive_json_from()
    assert (await sync_to_async(message_send)(sender=alice, recipient=bob, body="hi")).ok
    await asyncio.sleep(0.1)
    for ws in sockets:
        assert await ws.receive_nothing(timeout=0.2)
        await ws.disconnect()
