"""An invitation says what the game is: its clock, rated or casual, and the invitee's colour."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.identity import Identity
from games import services
from games.models import Game

pytestmark = pytest.mark.django_db


def test_the_lobby_feed_and_home_page_word_the_invitation_in_the_invitee_s_language(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = services.create_human_game(
        identity=Identity(user=alice, guest=None),
        game="reversi",
        kind=Game.Kind.DIRECT,
        invited_user=bob,
        side=1,
        days_per_move=2,
        casual=True,
    )
    client = Client()
    client.force_login(bob)
    client.cookies["django_language"] = "el"
    (item,) = client.get("/lobby.json").json()["invitations"]
    assert item["terms"] == "2 ημέρες, φιλικό, παίζετε με Μαύρα"
    assert f'data-game-id="{game.pk}"' in (page := client.get("/").content.decode())
    assert "(2 ημέρες, φιλικό, παίζετε με Μαύρα)" in page


def test_an_x_and_o_game_names_the_mark():
    game = Game(game="four_tac_toe", time_control=180, increment=2)
    game.seat_user(0, None)
    game.guest0_key = "someone"  # the creator holds X: the invitee gets O
    assert game.invitation_terms() == "3+2, rated, you play O"
