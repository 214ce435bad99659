"""Quick pairing over a real daphne: both seekers hear "paired" on /ws/notify/; a closed page drops its seek."""

from __future__ import annotations

import asyncio
import time

import pytest

from accounts.identity import Identity
from games.models import Game, Seek
from games.services import pairing
from tests.config.test_real_sockets import daphne_port, first, open_socket, session_cookie

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

__all__ = ["daphne_port"]  # the fixture, shared with the other real-socket tests


def test_both_seekers_hear_paired_with_the_game_s_url(daphne_port, redis_layer, user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    cookies = session_cookie(alice), session_cookie(bob)

    async def scenario():
        async with (
            open_socket(daphne_port, "/ws/notify/", cookies[0]) as alice_ws,
            open_socket(daphne_port, "/ws/notify/", cookies[1]) as bob_ws,
        ):
            await asyncio.to_thread(
                pairing.seek, identity=Identity(alice, None), game="reversi", minutes=3, increment=2
            )
            await asyncio.to_thread(
                pairing.seek, identity=Identity(bob, None), game="reversi", minutes=3, increment=2
            )
            return await first(alice_ws, "paired"), await first(bob_ws, "paired")

    to_alice, to_bob = asyncio.run(scenario())
    game = Game.objects.get()
    assert to_alice["url"] == to_bob["url"] == f"/play/{game.pk}/"
    assert (game.user0, game.user1) == (alice, bob)


def test_a_seeker_whose_page_closes_stops_waiting(daphne_port, user_factory):
    alice = user_factory("alice")
    cookie = session_cookie(alice)

    async def scenario():
        async with open_socket(daphne_port, "/ws/notify/", cookie):
            await asyncio.to_thread(pairing.seek, identity=Identity(alice, None), game="ataxx", minutes=1)
            assert await asyncio.to_thread(Seek.objects.filter(user=alice).exists)

    asyncio.run(scenario())
    deadline = time.monotonic() + 10
    while Seek.objects.filter(user=alice).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Seek.objects.filter(user=alice).exists()
