"""A finished game's page shows the ratings as they were then and the change it made (issue #37, defect 13)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import bus
from games.models import Game
from ratings.models import Rating, RatingChange
from ratings.services import apply_ratings_for_game

pytestmark = pytest.mark.django_db


def rated(finished_game, winner, loser, *, days_ago: int) -> Game:
    """A decisive rated game, applied; days apart, so the farming limit never applies."""
    moment = timezone.now() - timedelta(days=days_ago)
    game = finished_game(winner, loser, finished_at=moment, started_at=moment)
    assert apply_ratings_for_game(game_id=game.pk) == "rated"
    return game


def player_lines(html: str) -> list[str]:
    """The text of each player line's rating and change, side 0 then side 1."""
    lines = re.findall(r'<div class="player" data-side="\d">(.*?)</div>', html, re.S)
    # Without the provisional "?" (their first games): the numbers are what is checked.
    return [" ".join(re.sub(r"<[^>]+>", " ", line).replace("?", " ").split()) for line in lines]


def test_a_finished_game_shows_the_ratings_of_its_time_and_its_change_not_todays(alice, bob, finished_game):
    rated(finished_game, alice, bob, days_ago=5)
    game = rated(finished_game, alice, bob, days_ago=3)
    rated(finished_game, bob, alice, days_ago=1)  # a later game moves both ratings again
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    alice_then, bob_then = round(changes[alice.pk].before), round(changes[bob.pk].before)
    alice_gain = round(changes[alice.pk].after) - alice_then
    bob_loss = bob_then - round(changes[bob.pk].after)
    assert alice_gain > 0 and bob_loss > 0
    today = {r.user_id: round(r.value) for r in Rating.objects.filter(game="reversi")}
    assert today[alice.pk] != alice_then and today[bob.pk] != bob_then  # the page could not pass by luck

    # The snapshot every game page and socket gets carries the change, per side.
    assert bus.snapshot(game)["rating_changes"] == [
        {"before": alice_then, "after": alice_then + alice_gain, "delta": alice_gain},
        {"before": bob_then, "after": bob_then - bob_loss, "delta": -bob_loss},
    ]
    client = Client()
    for url in (f"/play/{game.pk}/", f"/play/{game.pk}/replay/"):
        lines = player_lines(client.get(url).content.decode())
        assert f"{alice_then} +{alice_gain}" in lines[0], url
        assert f"{bob_then} \u2212{bob_loss}" in lines[1], url
        assert str(today[alice.pk]) not in lines[0] and str(today[bob.pk]) not in lines[1], url


def test_an_unrated_game_shows_the_ratings_its_players_had_then(alice, bob, finished_game):
    rated(finished_game, alice, bob, days_ago=5)
    then = {r.user_id: round(r.value) for r in Rating.objects.filter(game="reversi")}
    moment = timezone.now() - timedelta(days=4)
    casual = finished_game(alice, bob, casual=True, finished_at=moment, started_at=moment)
    apply_ratings_for_game(game_id=casual.pk)
    rated(finished_game, bob, alice, days_ago=2)
    lines = player_lines(Client().get(f"/play/{casual.pk}/").content.decode())
    assert f"alice {then[alice.pk]}" in lines[0] and f"bob {then[bob.pk]}" in lines[1]
    assert "+" not in lines[0] and "\u2212" not in lines[1]  # it changed nothing
    assert bus.snapshot(casual)["rating_changes"] == [None, None]
