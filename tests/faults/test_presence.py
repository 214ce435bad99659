"""A player whose daphne process dies is shown offline, and the opponent is told.

A socket's close is what announced a player offline; kill -9 closes nothing, and
the old counter in Redis kept the player "online" for six hours. Now a process
is online only while its heartbeat is fresh, and a surviving process announces
the players of a dead one (games/live/presence.py). The TTL is 2 s here instead of
45 s, so the whole story takes seconds.
"""

from __future__ import annotations

import asyncio
import json
import signal

import pytest
from django.test import Client
from websockets.asyncio.client import connect

from accounts.identity import Identity
from games import services
from games.models import Game

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

TTL = 2
# Dead once the heartbeat is TTL old, announced at a survivor's next beat (every TTL/3):
# production's 45 s TTL makes that at most 60 s; here at most 2.7 s, and slow machines get room.
ANNOUNCED_WITHIN = 20


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def socket_to(port: int, game_id: int, cookie: str | None = None):
    return connect(
        f"ws://127.0.0.1:{port}/ws/game/{game_id}/",
        origin=f"http://127.0.0.1:{port}",
        additional_headers={"Cookie": f"sessionid={cookie}"} if cookie else {},
        open_timeout=10,
    )


async def next_message(ws, kind: str, timeout: float) -> dict:
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return message


def test_a_player_whose_daphne_is_killed_is_announced_offline_to_the_opponent(
    services, database_url_for_processes, user_factory
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = services_game(alice, bob)
    short_ttl = {"PRESENCE_TTL_SECONDS": str(TTL)}
    proc_a, port_a = services.start_daphne(database_url_for_processes, env=short_ttl)
    _, port_b = services.start_daphne(database_url_for_processes, env=short_ttl)
    alice_cookie, bob_cookie = session_cookie(alice), session_cookie(bob)

    async def scenario() -> tuple[dict, dict, list[bool]]:
        async with socket_to(port_b, game.pk, bob_cookie) as bob_ws:
            await next_message(bob_ws, "state", 10)
            async with socket_to(port_a, game.pk, alice_cookie) as alice_ws:
                await next_message(alice_ws, "state", 10)
                arrived = await next_message(bob_ws, "presence", 10)
                # Past a few heartbeats: alice's live process keeps her online.
                await asyncio.sleep(TTL * 2)
                async with socket_to(port_b, game.pk) as spectator:
                    still = (await next_message(spectator, "state", 10))["online"]
                assert still == [True, True], "a live process's player stays online"
                proc_a.send_signal(signal.SIGKILL)  # no socket of hers closes cleanly
                await asyncio.to_thread(proc_a.wait)
                gone = await next_message(bob_ws, "presence", ANNOUNCED_WITHIN)
            async with socket_to(port_b, game.pk) as spectator:
                seen = (await next_message(spectator, "state", 10))["online"]
        return arrived, gone, seen

    arrived, gone, seen = asyncio.run(scenario())
    assert arrived["side"] == 0 and arrived["online"] is True
    assert gone["side"] == 0 and gone["online"] is False, "bob is told alice went offline"
    assert gone["seq"] > arrived["seq"], "a newer notice than her arrival, so pages take it"
    assert seen == [False, True], "a spectator arriving later sees her offline and bob online"


def services_game(alice, bob) -> Game:
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    return game
