"""The chat over real daphne processes sharing Redis and the database (docs/protocol.md, "Chat").

Two servers: a line written on one reaches the opponent's socket on the other,
the blocker's socket there never gets the blocked player's line, and the per-author
limit holds across sockets on both (it lives in Redis, not in a process).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from django.test import Client
from websockets.asyncio.client import connect

from accounts.services import blocks
from chat.models import ChatLine

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


@pytest.fixture
def two_servers(services, database_url_for_processes):
    return [services.start_daphne(database_url_for_processes)[1] for _ in range(2)]


@pytest.fixture
def table(people):
    """The chat conftest's game (alice and bob playing, carol watching), carol having blocked bob."""
    game_id, *identities = people
    alice, bob, carol = (identity.user for identity in identities)
    blocks.block(by=carol, user=bob)
    return game_id, {
        name: session_cookie(user) for name, user in (("alice", alice), ("bob", bob), ("carol", carol))
    }


def open_socket(port: int, game_id: int, cookie: str):
    return connect(
        f"ws://127.0.0.1:{port}/ws/game/{game_id}/",
        origin=f"http://127.0.0.1:{port}",
        additional_headers={"Cookie": f"sessionid={cookie}"},
        open_timeout=10,
    )


async def first(ws, kind: str, timeout: float = 10) -> dict:
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return message


async def chatting(ws) -> dict:
    await first(ws, "state")
    await ws.send(json.dumps({"type": "chat_history"}))
    return await first(ws, "chat_history")


def test_a_line_crosses_processes_to_the_opponent_and_the_limit_holds_across_servers(two_servers, table):
    port_a, port_b = two_servers
    game_id, cookies = table

    async def scenario():
        async with (
            open_socket(port_a, game_id, cookies["alice"]) as alice,
            open_socket(port_b, game_id, cookies["bob"]) as bob,
            open_socket(port_b, game_id, cookies["carol"]) as carol,
            open_socket(port_b, game_id, cookies["alice"]) as alice_again,
        ):
            for ws in (alice, bob, carol, alice_again):
                await chatting(ws)
            await bob.send(json.dumps({"type": "chat", "text": "from bob, whom carol blocked"}))
            await carol.send(json.dumps({"type": "chat", "text": "carol watching"}))
            # carol's first line is her own: bob's never reached her socket.
            assert (await first(carol, "chat"))["line"]["text"] == "carol watching"
            await alice.send(json.dumps({"type": "chat", "text": "hello from server A"}))
            to_bob = []
            while len(to_bob) < 2:
                to_bob.append((await first(bob, "chat"))["line"]["text"])
            # Alice writes five lines, alternating servers; the sixth is refused wherever it comes from.
            for n in range(4):
                await (alice_again if n % 2 else alice).send(json.dumps({"type": "chat", "preset": "thanks"}))
                await first(bob, "chat")
            await alice_again.send(json.dumps({"type": "chat", "preset": "hello", "id": "six"}))
            refusal = await first(alice_again, "error")
            return to_bob, refusal

    to_bob, refusal = asyncio.run(scenario())
    assert to_bob == ["from bob, whom carol blocked", "hello from server A"]
    assert (refusal["code"], refusal["id"]) == ("chat_rate_limited", "six")
    assert ChatLine.objects.filter(game_id=game_id, user__username="alice").count() == 5
