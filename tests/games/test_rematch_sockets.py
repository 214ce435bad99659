"""Rematch over a real daphne socket: the offer, the answer, both pages sent to the new game."""

from __future__ import annotations

import asyncio
import json

import pytest

from accounts.identity import Identity
from games import services
from games.models import Game
from tests.config.test_real_sockets import daphne_port, first, open_socket, session_cookie

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

__all__ = ["daphne_port"]  # the fixture, shared with the other real-socket tests


@pytest.fixture
def finished_game(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=3
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    services.resign(game_id=game.pk, identity=Identity(bob, None))
    return game.pk, session_cookie(alice), session_cookie(bob)


async def event(ws, name: str) -> dict:
    while True:
        message = await first(ws, "event")
        if message["event"] == name:
            return message


def test_an_accepted_rematch_sends_both_players_to_the_new_game(daphne_port, finished_game):
    game_id, alice_cookie, bob_cookie = finished_game
    path = f"/ws/game/{game_id}/"

    async def scenario():
        async with (
            open_socket(daphne_port, path, alice_cookie) as alice,
            open_socket(daphne_port, path, bob_cookie) as bob,
        ):
            await first(alice, "state")
            await first(bob, "state")
            await alice.send(json.dumps({"type": "rematch"}))
            offer = await event(bob, "rematch_offer")
            await bob.send(json.dumps({"type": "accept_rematch"}))
            redirect = await first(bob, "redirect")
            started = await event(alice, "rematch_started")
            return offer, redirect, started

    offer, redirect, started = asyncio.run(scenario())
    assert offer["game"]["rematch_offer"] == 0
    assert redirect["url"] == started["game"]["rematch_url"]
    new = Game.objects.get(pk=int(redirect["url"].strip("/").split("/")[-1]))
    assert new.status == Game.Status.ACTIVE and new.user0.username == "bob"


def test_an_offer_lapses_when_the_offerer_leaves_the_page(daphne_port, finished_game):
    game_id, alice_cookie, bob_cookie = finished_game
    path = f"/ws/game/{game_id}/"

    async def scenario():
        async with open_socket(daphne_port, path, bob_cookie) as bob:
            await first(bob, "state")
            async with open_socket(daphne_port, path, alice_cookie) as alice:
                await first(alice, "state")
                await alice.send(json.dumps({"type": "rematch"}))
                await event(bob, "rematch_offer")
            lapsed = await event(bob, "rematch_lapsed")
            await bob.send(json.dumps({"type": "accept_rematch"}))
            return lapsed, await first(bob, "error")

    lapsed, refused = asyncio.run(scenario())
    assert lapsed["game"]["rematch_offer"] is None
    assert refused["code"] == "no_offer"
    assert Game.objects.count() == 1
