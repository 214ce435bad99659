"""Quick pairing over a real daphne: both seekers hear "paired" on /ws/notify/; a closed page drops a live seek.

A correspondence seek stays, and its pairing reaches the seeker on whatever page they open later.
"""

from __future__ import annotations

import asyncio
import json
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


def test_a_correspondence_seek_outlives_the_page_and_its_pairing_reaches_the_seeker_on_another_page(
    daphne_port, redis_layer, user_factory
):
    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    alice_cookie, carol_cookie = session_cookie(alice), session_cookie(carol)

    def live_seek_gone() -> bool:
        # Carol's live seek is dropped when her page closes: proof that daphne handled the closes.
        deadline = time.monotonic() + 10
        while Seek.objects.filter(user=carol).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return not Seek.objects.filter(user=carol).exists()

    async def scenario():
        # Alice asks for a 3-day game and Carol for a live one; both close the site.
        async with (
            open_socket(daphne_port, "/ws/notify/", alice_cookie),
            open_socket(daphne_port, "/ws/notify/", carol_cookie),
        ):
            await asyncio.to_thread(
                pairing.seek, identity=Identity(alice, None), game="reversi", days_per_move=3
            )
            await asyncio.to_thread(pairing.seek, identity=Identity(carol, None), game="ataxx", minutes=1)
        assert await asyncio.to_thread(live_seek_gone)
        assert await asyncio.to_thread(Seek.objects.filter(user=alice, days_per_move=3).exists)
        # Later she reads another page of the site when Bob presses the same button.
        async with open_socket(daphne_port, "/ws/notify/", alice_cookie) as alice_ws:
            game = await asyncio.to_thread(
                pairing.seek, identity=Identity(bob, None), game="reversi", days_per_move=3
            )
            heard: dict[str, dict] = {}
            async with asyncio.timeout(10):
                while {"paired", "your_turn"} - heard.keys():
                    message = json.loads(await alice_ws.recv())
                    heard[message["type"]] = message
            return game, heard

    game, heard = asyncio.run(scenario())
    assert game is not None and (game.user0, game.user1, game.days_per_move) == (alice, bob, 3)
    paired = heard["paired"]
    assert (paired["url"], paired["days_per_move"], paired["opponent"]) == (f"/play/{game.pk}/", 3, "bob")
    # She moves first: the same notice as for any correspondence game that waits for her.
    assert (heard["your_turn"]["game_id"], heard["your_turn"]["opponent"]) == (game.pk, "bob")
    assert not Seek.objects.exists()
