"""Rankings: places with ties (standard competition ranking on the shown rating), who is ranked."""

from __future__ import annotations

import pytest
from django.template import Context, Template

from ratings.charts import sparkline
from ratings.models import Rating
from ratings.selectors import place_of, places_for, profile_ratings, ranking

pytestmark = pytest.mark.django_db


def _rate(user, value, *, game="reversi", games=1):
    return Rating.objects.create(user=user, game=game, value=value, peak=value, rated_games=games, wins=games)


def test_ranking_places_share_ties_and_skip_after_them(player):
    values = {"ann": 1600, "ben": 1550, "cat": 1550, "dan": 1500, "eve": 1500.4, "fay": 1499.6, "gus": 1450}
    users = {name: player(name) for name in values}
    for name, value in values.items():
        _rate(users[name], value)

    rows = [(r.user.username, r.place) for r in ranking("reversi")]

    # 1500.4 and 1499.6 are both shown as 1500, so they share dan's place.
    assert rows == [("ann", 1), ("ben", 2), ("cat", 2), ("dan", 4), ("eve", 4), ("fay", 4), ("gus", 7)]
    assert {name: place_of(u, "reversi") for name, u in users.items()} == dict(rows)
    assert places_for((u.pk, "reversi") for u in users.values()) == {
        (users[n].pk, "reversi"): p for n, p in rows
    }


def test_players_without_a_rated_game_are_not_ranked(player):
    rated, unrated, inactive = player(), player(), player()
    inactive.is_active = False
    inactive.save()
    _rate(rated, 1480)
    Rating.objects.create(user=unrated, game="reversi", value=1500, rated_games=0)
    _rate(inactive, 1700)

    assert [r.user for r in ranking("reversi")] == [rated]
    assert place_of(rated, "reversi") == 1
    assert place_of(unrated, "reversi") is None
    assert place_of(inactive, "reversi") is None
    assert places_for([(unrated.pk, "reversi")]) == {}


def test_rankings_are_per_game(player):
    a, b = player(), player()
    _rate(a, 1600, game="reversi")
    _rate(b, 1700, game="reversi")
    _rate(a, 1520, game="ataxx")
    assert place_of(a, "reversi") == 2
    assert place_of(a, "ataxx") == 1
    assert place_of(b, "ataxx") is None


def test_rating_place_tag_gives_the_place_anywhere(player):
    a, b = player(), player()
    _rate(a, 1600)
    _rate(b, 1700)
    html = Template(
        "{% load ratings_tags %}[{% rating_place a 'reversi' %}][{% rating_place b 'reversi' %}]"
        "[{% rating_place a 'ataxx' %}][{% rating_of a 'reversi' %}]"
    ).render(Context({"a": a, "b": b}))
    assert html == "[2][1][][1600]"


def test_profile_block_shows_rating_place_and_a_chart(alice, bob, finished_game):
    from ratings.services import apply_ratings_for_game

    for winner in (0, 0, 1):
        apply_ratings_for_game(game_id=finished_game(alice, bob, winner=winner).pk)

    blocks = {b.slug: b for b in profile_ratings(alice)}
    assert len(blocks) == 5  # every game, rated or not
    reversi = blocks["reversi"]
    assert reversi.place == 1 and reversi.rating.rated_games == 3
    assert reversi.chart_first == 1500 and len(reversi.chart_points.split()) == 4
    assert blocks["ataxx"].rating is None and blocks["ataxx"].chart_points == ""

    html = Template('{% include "ratings/_profile_ratings.html" with player=p %}').render(
        Context({"p": alice})
    )
    assert "<polyline" in html
    assert f"Rating {round(reversi.rating.value)}" in html
    assert "Place 1" in html
    assert "No rated games yet." in html


def test_sparkline_puts_higher_ratings_higher_up():
    line = sparkline([1500, 1520, 1480], width=100, height=40, pad=0)
    points = [tuple(map(float, p.split(","))) for p in line.split()]
    assert [x for x, _ in points] == [0.0, 50.0, 100.0]
    assert points[1][1] < points[0][1] < points[2][1]  # SVG y grows downwards


def test_points_count_wins_over_people_only(alice, bob, carol, finished_game):
    """Seed 004: a point per win over a person; none for draws, wins over the computer or over guests."""
    from games.models import Game
    from ratings.selectors import points_by_game

    finished_game(alice, bob, winner=0)
    finished_game(bob, alice, winner=1)  # alice wins as the second player
    finished_game(alice, bob, winner=None)  # a draw
    finished_game(alice, None, winner=0, kind=Game.Kind.COMPUTER, ai1="hard")
    finished_game(alice, None, winner=0, kind=Game.Kind.INVITE_LINK, guest1_key="g", guest1_name="Guest 1234")
    finished_game(alice, bob, winner=0, status=Game.Status.ABORTED)
    finished_game(alice, bob, winner=0, game="ataxx")
    finished_game(carol, alice, winner=0)
    for user in (alice, bob, carol):
        _rate(user, 1500)

    assert points_by_game(alice) == {"reversi": 2, "ataxx": 1}
    assert points_by_game(bob) == {}
    rows = {r.user.username: r.points for r in ranking("reversi")}
    assert rows == {"alice": 2, "bob": 0, "carol": 1}
    blocks = {b.slug: b.points for b in profile_ratings(alice)}
    assert blocks["reversi"] == 2 and blocks["ataxx"] == 1


def test_the_ranking_sorts_by_points_or_by_rating(alice, bob, carol, finished_game):
    _rate(alice, 1600)
    _rate(bob, 1550)
    _rate(carol, 1500)
    finished_game(carol, bob, winner=0)
    finished_game(carol, alice, winner=0)
    finished_game(bob, alice, winner=0)
    by_rating = [(r.user.username, r.place, r.points) for r in ranking("reversi")]
    by_points = [(r.user.username, r.place, r.points) for r in ranking("reversi", order="points")]
    assert by_rating == [("alice", 1, 0), ("bob", 2, 1), ("carol", 3, 2)]
    assert by_points == [("carol", 1, 2), ("bob", 2, 1), ("alice", 3, 0)]
