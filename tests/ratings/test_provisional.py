"""Provisional ratings: a "?" beside a rating from fewer than 10 rated games, and K 60 until then."""

from __future__ import annotations

import pytest
from django.test import Client

from ratings.models import Rating
from ratings.services import apply_ratings_for_game

pytestmark = pytest.mark.django_db


def value_of(user) -> float:
    return Rating.objects.get(user=user, game="reversi").value


@pytest.mark.parametrize(
    ("games_before", "gain"),
    [(0, 30.0), (9, 30.0), (10, 20.0)],  # K 60 for the first 10 rated games, then FIDE's 40
)
def test_a_new_player_moves_fast_for_ten_games_then_at_fides_pace(
    alice, bob, finished_game, games_before, gain
):
    Rating.objects.create(user=alice, game="reversi", rated_games=games_before, wins=games_before)
    Rating.objects.create(user=bob, game="reversi", rated_games=100, losses=100)
    apply_ratings_for_game(game_id=finished_game(alice, bob, winner=0).pk)
    assert value_of(alice) == pytest.approx(1500 + gain)
    assert value_of(bob) == pytest.approx(1500 - 10.0)  # an established player keeps K 20


def rankings_cell(html: str, username: str) -> str:
    row = html[html.index(f'href="/players/{username}/"') :]
    cell = row[row.index('class="rating"') :]
    return cell[: cell.index("</td>")]


def test_the_rankings_mark_a_provisional_rating_with_a_question_mark(alice, bob, client):
    Rating.objects.create(user=alice, game="reversi", value=1600, rated_games=9, wins=9)
    Rating.objects.create(user=bob, game="reversi", value=1550, rated_games=10, wins=10)
    html = client.get("/rankings/reversi/").content.decode()
    assert 'class="provisional"' in rankings_cell(html, "alice") and ">?</abbr>" in rankings_cell(
        html, "alice"
    )
    assert "provisional" not in rankings_cell(html, "bob")


def test_a_profile_and_a_game_page_show_the_question_mark_too(alice, bob, finished_game):
    Rating.objects.create(user=alice, game="reversi", value=1530, rated_games=1, wins=1)
    Rating.objects.create(user=bob, game="reversi", value=1470, rated_games=30, losses=30)
    profile = Client().get("/players/alice/").content.decode()
    assert "Rating 1530" in profile and ">?</abbr>" in profile
    game = finished_game(alice, bob, winner=0)
    page = Client().get(game.get_absolute_url()).content.decode()
    assert '<span class="player-rating">1530<abbr class="provisional"' in page
    assert '<span class="player-rating">1470</span>' in page


def test_the_rules_page_says_how_provisional_ratings_work(client):
    html = client.get("/rules/ataxx/").content.decode()
    assert "K-factor 60 instead of 40" in html and "5+3" in html
