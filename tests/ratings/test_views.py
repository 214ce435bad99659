"""Rankings pages, the history (colours from the viewer's side), and private stars."""

from __future__ import annotations

from datetime import timedelta
from http import HTTPStatus

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games.models import Favourite, Game
from ratings.models import Rating
from ratings.services import apply_ratings_for_game

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def guest_client(key: str = "guest-key-1", name: str = "Guest 4821") -> Client:
    client = Client()
    session = client.session
    session["guest"] = {"key": key, "name": name}
    session.save()
    return client


def rows_of(response) -> dict[int, object]:
    return {row.game.pk: row for row in response.context["rows"]}


# --- rankings --------------------------------------------------------------------
def test_rankings_index_lists_the_five_games_with_their_leaders(alice, bob, finished_game):
    apply_ratings_for_game(game_id=finished_game(alice, bob, winner=0).pk)
    response = Client().get("/rankings/")
    assert response.status_code == HTTPStatus.OK
    html = response.content.decode()
    for slug in ("reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"):
        assert f'href="/rankings/{slug}/"' in html
    assert "alice" in html and "1530" in html
    assert "css/ratings.css" in html


def test_a_game_ranking_shows_place_player_rating_games_and_record(alice, bob, carol, finished_game):
    apply_ratings_for_game(game_id=finished_game(alice, carol, winner=0).pk)
    apply_ratings_for_game(game_id=finished_game(bob, carol, winner=0).pk)
    response = client_for(bob).get("/rankings/reversi/")
    assert response.status_code == HTTPStatus.OK
    rows = [(r.user.username, r.place, r.rated_games, r.wins, r.losses) for r in response.context["page"]]
    # K 60 (provisional): alice 1530; bob beat carol after she dropped to 1470: +27.41 -> 1527; carol 1442.59.
    assert rows == [("alice", 1, 1, 1, 0), ("bob", 2, 1, 1, 0), ("carol", 3, 2, 0, 2)]
    assert response.context["my_place"] == 2
    html = response.content.decode()
    assert 'class="avatar avatar-initial"' in html
    assert 'href="/players/alice/"' in html


def test_tied_players_share_a_place_on_the_page(player):
    for name, value in [("ann", 1600), ("ben", 1550), ("cat", 1550), ("dan", 1500)]:
        Rating.objects.create(user=player(name), game="ataxx", value=value, rated_games=1, wins=1)
    response = Client().get("/rankings/ataxx/")
    assert [(r.user.username, r.place) for r in response.context["page"]] == [
        ("ann", 1),
        ("ben", 2),
        ("cat", 2),
        ("dan", 4),
    ]
    assert response.content.decode().count('data-place="2"') == 2


def test_rankings_are_paginated_with_places_counted_over_the_whole_list():
    User = get_user_model()
    users = User.objects.bulk_create([User(username=f"u{i:03}") for i in range(55)])
    Rating.objects.bulk_create(
        [Rating(user=u, game="reversi", value=2000 - i, rated_games=1, wins=1) for i, u in enumerate(users)]
    )
    page2 = Client().get("/rankings/reversi/?page=2")
    assert [(r.user.username, r.place) for r in page2.context["page"]] == [
        (f"u{i:03}", i + 1) for i in range(50, 55)
    ]


def test_an_unknown_game_has_no_ranking():
    assert Client().get("/rankings/chess/").status_code == HTTPStatus.NOT_FOUND


# --- history -----------------------------------------------------------------------
def test_history_needs_a_player_or_a_guest_session():
    response = Client().get("/history/")
    assert response.status_code == HTTPStatus.FOUND
    assert "/accounts/login/" in response["Location"]


def test_the_same_game_is_yellow_for_the_winner_and_red_for_the_loser(alice, bob, finished_game):
    game = finished_game(alice, bob, winner=0)
    apply_ratings_for_game(game_id=game.pk)

    win = client_for(alice).get("/history/")
    loss = client_for(bob).get("/history/")

    assert (rows_of(win)[game.pk].css_class, rows_of(win)[game.pk].result_label) == ("result-win", "Win")
    assert (rows_of(loss)[game.pk].css_class, rows_of(loss)[game.pk].result_label) == ("result-loss", "Loss")
    win_html, loss_html = win.content.decode(), loss.content.decode()
    assert (
        'class="history-row result-win"' in win_html and '<span class="result-badge">Win</span>' in win_html
    )
    assert (
        'class="history-row result-loss"' in loss_html
        and '<span class="result-badge">Loss</span>' in loss_html
    )
    assert "+30" in win_html and "\u221230" in loss_html


def test_a_draw_is_blue_for_both_players(alice, bob, finished_game):
    game = finished_game(alice, bob, winner=None)
    apply_ratings_for_game(game_id=game.pk)
    for viewer in (alice, bob):
        response = client_for(viewer).get("/history/")
        row = rows_of(response)[game.pk]
        assert (row.css_class, row.result_label) == ("result-draw", "Draw")
        html = response.content.decode()
        assert 'class="history-row result-draw"' in html and '<span class="result-badge">Draw</span>' in html
        assert "draws leave ratings unchanged" in html


def test_history_shows_opponent_places_then_and_now_and_links_the_replay(alice, bob, carol, finished_game):
    apply_ratings_for_game(game_id=finished_game(bob, carol, winner=0).pk)  # bob 1st, carol 2nd
    game = finished_game(alice, bob, winner=0)
    apply_ratings_for_game(game_id=game.pk)  # bob (1530) was 1st when it ended
    response = client_for(alice).get("/history/")
    row = rows_of(response)[game.pk]
    assert row.opponent_name == "bob" and row.opponent_kind == "user"
    assert row.opponent_place_at_end == 1
    assert row.opponent_place_now == 2  # alice 1533 ahead of bob 1497, carol 1470 behind
    assert f'href="/play/{game.pk}/replay/"' in response.content.decode()


def test_history_names_the_computer_and_guests(alice, finished_game):
    ai = finished_game(alice, None, ai1="hard", kind=Game.Kind.COMPUTER, winner=1)
    guest = finished_game(None, alice, guest0_key="gk", guest0_name="Guest 1234", winner=None)
    for g in (ai, guest):
        apply_ratings_for_game(game_id=g.pk)
    response = client_for(alice).get("/history/")
    rows = rows_of(response)
    assert rows[ai.pk].opponent_name == "Computer (Hard)" and rows[ai.pk].opponent_kind == "computer"
    assert rows[ai.pk].css_class == "result-loss"
    assert rows[guest.pk].opponent_name == "Guest 1234" and rows[guest.pk].opponent_kind == "guest"
    html = response.content.decode()
    assert "Computer (Hard)" in html and "games against the computer are unrated" in html


def test_a_guest_sees_the_games_of_its_session(alice, finished_game):
    mine = finished_game(None, None, guest0_key="guest-key-1", guest0_name="Guest 4821", ai1="easy", winner=0)
    other = finished_game(None, None, guest0_key="someone-else", guest0_name="Guest 1", ai1="easy", winner=0)
    response = guest_client("guest-key-1").get("/history/")
    assert response.status_code == HTTPStatus.OK
    assert set(rows_of(response)) == {mine.pk}
    assert rows_of(response)[mine.pk].css_class == "result-win"
    assert other.pk not in rows_of(response)


def test_history_lists_newest_first_and_filters_by_game_and_result(alice, bob, finished_game):
    now = timezone.now()
    old_win = finished_game(alice, bob, winner=0, finished_at=now - timedelta(days=3))
    ataxx_loss = finished_game(alice, bob, winner=1, game="ataxx", finished_at=now - timedelta(days=2))
    draw = finished_game(bob, alice, winner=None, finished_at=now - timedelta(days=1))
    new_win = finished_game(bob, alice, winner=1, finished_at=now)
    finished_game(bob, alice, status=Game.Status.ACTIVE, winner=None, finished_at=None)  # not in history yet
    client = client_for(alice)

    def ids(query=""):
        return [row.game.pk for row in client.get("/history/" + query).context["rows"]]

    assert ids() == [new_win.pk, draw.pk, ataxx_loss.pk, old_win.pk]
    assert ids("?result=win") == [new_win.pk, old_win.pk]
    assert ids("?result=loss") == [ataxx_loss.pk]
    assert ids("?result=draw") == [draw.pk]
    assert ids("?game=ataxx") == [ataxx_loss.pk]
    assert ids("?game=reversi&result=loss") == []


def test_history_is_paginated(alice, bob, finished_game):
    games = [finished_game(alice, bob, winner=None) for _ in range(30)]
    client = client_for(alice)
    first, second = client.get("/history/"), client.get("/history/?page=2")
    assert len(first.context["rows"]) == 25 and len(second.context["rows"]) == 5
    assert {r.game.pk for r in first.context["rows"]} | {r.game.pk for r in second.context["rows"]} == {
        g.pk for g in games
    }


def test_a_player_cannot_view_another_players_history(alice, bob, carol, finished_game):
    theirs = finished_game(bob, carol, winner=0)
    response = client_for(alice).get(f"/history/?user={bob.pk}&player=bob")
    assert theirs.pk not in rows_of(response)


# --- stars ---------------------------------------------------------------------------
def star(client, game, **data):
    return client.post(f"/history/{game.pk}/star/", data, HTTP_ACCEPT="application/json")


def test_starring_works_without_a_reload_and_persists(alice, bob, finished_game):
    game = finished_game(alice, bob, winner=0)
    client = client_for(alice)
    response = star(client, game)
    assert response.status_code == HTTPStatus.OK and response.json() == {"starred": True}
    assert Favourite.objects.filter(user=alice, game=game).exists()
    row = rows_of(client.get("/history/"))[game.pk]
    assert row.starred is True
    assert star(client, game).json() == {"starred": False}  # a toggle
    assert star(client, game, starred="0").json() == {"starred": False}  # explicit state: idempotent
    assert not Favourite.objects.filter(user=alice, game=game).exists()


def test_stars_are_per_player_and_private(alice, bob, finished_game):
    game = finished_game(alice, bob, winner=0)
    star(client_for(alice), game)
    bob_client = client_for(bob)
    assert rows_of(bob_client.get("/history/"))[game.pk].starred is False
    assert [r.game.pk for r in bob_client.get("/history/?starred=on").context["rows"]] == []
    assert [r.game.pk for r in client_for(alice).get("/history/?starred=on").context["rows"]] == [game.pk]


def test_a_player_cannot_star_a_game_they_did_not_play(alice, bob, carol, finished_game):
    game = finished_game(bob, carol, winner=0)
    assert star(client_for(alice), game).status_code == HTTPStatus.NOT_FOUND
    assert star(Client(), game).status_code == HTTPStatus.NOT_FOUND
    assert star(guest_client(), game).status_code == HTTPStatus.NOT_FOUND
    assert not Favourite.objects.exists()


def test_starring_needs_post_and_a_csrf_token(alice, bob, finished_game):
    game = finished_game(alice, bob, winner=0)
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get(f"/history/{game.pk}/star/").status_code == HTTPStatus.METHOD_NOT_ALLOWED
    assert star(client, game).status_code == HTTPStatus.FORBIDDEN
    assert not Favourite.objects.exists()


def test_starring_without_javascript_redirects_back(alice, bob, finished_game):
    game = finished_game(alice, bob, winner=0)
    client = client_for(alice)
    response = client.post(f"/history/{game.pk}/star/", {"starred": "1", "next": "/history/?result=win"})
    assert response.status_code == HTTPStatus.FOUND and response["Location"] == "/history/?result=win"
    response = client.post(f"/history/{game.pk}/star/", {"next": "https://evil.example/"})
    assert response["Location"] == "/history/"
    assert not Favourite.objects.exists()  # starred then toggled off


def test_a_guest_can_star_its_own_games_in_its_session(finished_game):
    game = finished_game(None, None, guest0_key="guest-key-1", guest0_name="Guest 4821", ai1="easy", winner=0)
    client = guest_client("guest-key-1")
    assert star(client, game).json() == {"starred": True}
    assert rows_of(client.get("/history/"))[game.pk].starred is True
    assert [r.game.pk for r in client.get("/history/?starred=on").context["rows"]] == [game.pk]
    assert not Favourite.objects.exists()
    assert star(guest_client("another-guest"), game).status_code == HTTPStatus.NOT_FOUND


def test_a_guest_who_signs_up_keeps_its_stars(finished_game):
    game = finished_game(None, None, guest0_key="guest-key-1", guest0_name="Guest 4821", ai1="easy", winner=0)
    client = guest_client("guest-key-1")
    star(client, game)
    response = client.post(
        "/accounts/signup/", {"username": "newcomer", "password1": "secret-pass", "password2": "secret-pass"}
    )
    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:2000]
    user = get_user_model().objects.get(username="newcomer")
    assert Favourite.objects.filter(user=user, game=game).exists()
