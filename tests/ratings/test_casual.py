"""Rated or casual: a casual game between people changes neither Elo nor points, and says so in the history."""

from __future__ import annotations

import pytest
from django.test import Client

from games import bus, services
from games.models import Game
from ratings.enums import Applied
from ratings.models import Rating
from ratings.selectors import points_by_game, ranking
from ratings.services import apply_ratings_for_game
from tests.people import me

pytestmark = pytest.mark.django_db


def won_by_alice(alice, bob, *, casual: bool) -> Game:
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, casual=casual
    )
    services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    services.play_move(game_id=created.pk, identity=me(alice), token="d3", ply=0)
    services.resign(game_id=created.pk, identity=me(bob))
    apply_ratings_for_game(game_id=created.pk)  # what the worker does (again: once only)
    return Game.objects.get(pk=created.pk)


def test_a_casual_win_changes_neither_elo_nor_points(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = won_by_alice(alice, bob, casual=True)
    assert (game.winner, game.casual, game.rated, game.unrated_reason) == (0, True, False, "casual")
    assert apply_ratings_for_game(game_id=game.pk) == Applied.ALREADY_APPLIED
    assert not Rating.objects.filter(rated_games__gt=0).exists()
    assert points_by_game(alice) == {}


def test_a_rated_win_still_counts_beside_casual_ones(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    won_by_alice(alice, bob, casual=True)
    rated = won_by_alice(alice, bob, casual=False)
    assert rated.rated and rated.unrated_reason == ""
    assert points_by_game(alice) == {"reversi": 1}
    assert [(row.user.username, row.points) for row in ranking("reversi")] == [("alice", 1), ("bob", 0)]


def test_the_history_shows_a_casual_game_as_casual(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = won_by_alice(alice, bob, casual=True)
    client = Client()
    client.force_login(alice)
    page = client.get("/history/").content.decode()
    assert f'data-game="{game.pk}"' in page and "unrated: casual" in page
    assert 'class="casual-tag"' in client.get(game.get_absolute_url()).content.decode()


def test_the_form_makes_a_casual_game_between_people_and_the_snapshot_says_so(user_factory):
    client = Client()
    client.force_login(user_factory("alice"))
    client.post(
        "/play/new/",
        {"game": "reversi", "opponent": "link", "minutes": "5", "rated": "casual", "side": "0"},
    )
    game = Game.objects.get()
    assert game.casual and bus.snapshot(game)["casual"] is True


def test_a_game_against_the_computer_is_not_made_casual_by_the_form(user_factory):
    client = Client()
    client.force_login(user_factory("alice"))
    client.post(
        "/play/new/",
        {
            "game": "reversi",
            "opponent": "computer",
            "level": "easy",
            "minutes": "0",
            "rated": "casual",
            "side": "0",
        },
    )
    assert Game.objects.get().casual is False


def test_the_form_refuses_an_unknown_rated_choice(user_factory):
    client = Client()
    client.force_login(user_factory("alice"))
    response = client.post(
        "/play/new/", {"game": "reversi", "opponent": "link", "minutes": "5", "rated": "maybe", "side": "0"}
    )
    assert response.status_code == 400 and not Game.objects.exists()
