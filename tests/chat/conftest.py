from __future__ import annotations

import pytest

from accounts.guests import Guest
from accounts.identity import Identity
from games import services
from games.models import Game


def finish_games(user, opponent, count: int = 3) -> None:
    """``count`` finished games between the two, so neither is a new player any more."""
    for _ in range(count):
        Game.objects.create(
            game="reversi",
            kind=Game.Kind.INVITE_LINK,
            status=Game.Status.FINISHED,
            user0=user,
            user1=opponent,
        )


@pytest.fixture
def people(user_factory):
    """alice (side 0) and bob (side 1) playing, carol watching: all three past their first games."""
    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    finish_games(alice, bob)
    finish_games(carol, bob)
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    return game.pk, Identity(alice, None), Identity(bob, None), Identity(carol, None)


@pytest.fixture
def guest():
    return Identity(None, Guest(key="guest-key-chat", name="Guest 4821"))


# The game socket's fixtures (players with session cookies, guests, a game of two).
from tests.games.conftest import guest_factory, human_game, login_cookie, player_factory  # noqa: E402, F401
