"""Correspondence over a real daphne: the opponent's move reaches a player's notification socket as "your_turn"."""

from __future__ import annotations

import asyncio
import json

import pytest

from games import services
from games.models import Game
from tests.config.test_real_sockets import daphne_port, first, open_socket, session_cookie
from tests.people import me

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

__all__ = ["daphne_port"]  # the fixture, shared with the other real-socket tests


def test_bob_s_notification_socket_hears_it_is_his_turn_when_alice_moves(daphne_port, user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, days_per_move=3
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    cookies = session_cookie(alice), session_cookie(bob)

    async def scenario():
        # Bob is on another page of the site (his notification socket), not on the game.
        async with (
            open_socket(daphne_port, "/ws/notify/", cookies[1]) as bob_notify,
            open_socket(daphne_port, f"/ws/game/{game.pk}/", cookies[0]) as alice_game,
        ):
            await first(alice_game, "state")
            await alice_game.send(json.dumps({"type": "move", "move": "d3", "ply": 0, "id": "m1"}))
            return await first(bob_notify, "your_turn")

    notice = asyncio.run(scenario())
    game.refresh_from_db()
    assert notice["game_id"] == game.pk and notice["url"] == f"/play/{game.pk}/"
    assert (notice["game"], notice["opponent"], notice["your_move"]) == ("reversi", "alice", 1)
    assert notice["deadline"] == int(game.deadline().timestamp() * 1000)
