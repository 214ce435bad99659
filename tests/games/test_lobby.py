"""The lobby: open challenges filtered by game, time control, rated or casual and rating; quick-game buttons."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts.services.blocks import block
from games import services
from games.models import Game, Seek, Speed, clock_speed
from ratings.models import Rating
from tests.people import me

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def challenge(
    user, game: str = "reversi", *, minutes: int = 5, increment: int = 0, casual: bool = False
) -> Game:
    return services.create_human_game(
        identity=me(user), game=game, kind="lobby", minutes=minutes, increment=increment, casual=casual
    )


def listed(client: Client, **query) -> list[str]:
    response = client.get("/lobby.json", query)
    assert response.status_code == 200, response.content
    return [row["by"] for row in response.json()["challenges"]]


@pytest.mark.parametrize(
    ("minutes", "increment", "speed"),
    [
        (1, 0, Speed.BULLET),
        (2, 1, Speed.BULLET),
        (3, 2, Speed.BLITZ),
        (5, 3, Speed.BLITZ),
        (10, 5, Speed.RAPID),
        (15, 10, Speed.RAPID),
        (25, 0, Speed.CLASSICAL),
        (30, 20, Speed.CLASSICAL),
    ],
)
def test_a_clock_s_speed_is_its_base_plus_forty_increments(minutes, increment, speed):
    assert clock_speed(minutes * 60, increment) == speed


def test_a_player_filters_the_challenges_by_game_time_control_and_mode(user_factory):
    alice, bob, carol, dora, me_ = (user_factory(n) for n in ("alice", "bob", "carol", "dora", "erin"))
    challenge(alice, "ataxx", minutes=3, increment=2)
    challenge(bob, "reversi", minutes=1)
    challenge(carol, "reversi", minutes=15, increment=10, casual=True)
    challenge(dora, "reversi", minutes=10, increment=5)
    client = logged_in(me_)
    assert sorted(listed(client)) == ["alice", "bob", "carol", "dora"]
    assert sorted(listed(client, game="reversi")) == ["bob", "carol", "dora"]
    assert listed(client, speed="bullet") == ["bob"]
    assert listed(client, game="reversi", speed="rapid", mode="rated") == ["dora"]
    assert listed(client, speed="blitz") == ["alice"]
    assert listed(client, mode="casual") == ["carol"]
    assert sorted(listed(client, mode="rated", game="reversi")) == ["bob", "dora"]


def test_a_correspondence_challenge_is_listed_under_correspondence_not_as_a_long_classical_game(user_factory):
    alice, bob, me_ = (user_factory(n) for n in ("alice", "bob", "erin"))
    services.create_human_game(identity=me(alice), game="reversi", kind="lobby", days_per_move=3)
    challenge(bob, "reversi", minutes=30)
    client = logged_in(me_)
    assert listed(client, speed="correspondence") == ["alice"]
    assert listed(client, speed="classical") == ["bob"]
    row = client.get("/lobby.json").json()["challenges"]
    assert {r["by"]: (r["speed"], r["days_per_move"]) for r in row} == {
        "alice": ("correspondence", 3),
        "bob": ("classical", 0),
    }


def test_a_player_sees_only_challengers_within_the_rating_range_asked(user_factory):
    alice, bob, carol, me_ = (user_factory(n) for n in ("alice", "bob", "carol", "erin"))
    Rating.objects.create(user=alice, game="reversi", value=1820)
    Rating.objects.create(user=bob, game="reversi", value=1240)
    Rating.objects.create(user=bob, game="ataxx", value=1900)  # another game's rating does not count
    for user in (alice, bob, carol):  # carol: 1500, no rated game yet
        challenge(user, "reversi")
    client = logged_in(me_)
    rows = client.get("/lobby.json").json()["challenges"]
    assert {row["by"]: row["rating"] for row in rows} == {"alice": 1820, "bob": 1240, "carol": 1500}
    assert sorted(listed(client, rating_min=1400, rating_max=1900)) == ["alice", "carol"]
    assert listed(client, rating_max=1300) == ["bob"]
    assert listed(client, rating_min=1800) == ["alice"]


def test_a_newcomer_s_challenge_shows_a_question_mark_beside_the_rating(user_factory):
    seasoned, newcomer, me_ = (user_factory(n) for n in ("alice", "bob", "erin"))
    Rating.objects.create(user=seasoned, game="reversi", value=1612, rated_games=25)
    Rating.objects.create(user=newcomer, game="reversi", value=1544, rated_games=3)
    seasoned_game, newcomer_game = challenge(seasoned), challenge(newcomer)
    client = logged_in(me_)
    rows = client.get("/lobby.json").json()["challenges"]
    assert {r["by"]: (r["rating"], r["provisional"]) for r in rows} == {
        "alice": (1612, False),
        "bob": (1544, True),
    }
    html = client.get("/").content.decode()
    row_of = {
        game.pk: html[html.index(f'data-game-id="{game.pk}"') :] for game in (seasoned_game, newcomer_game)
    }
    assert "alice (1612), 5+0" in row_of[seasoned_game.pk][:400]
    assert (
        'bob (1544<abbr class="provisional" title="Provisional: fewer than 10 rated games">?</abbr>)'
        in (row_of[newcomer_game.pk][:400])
    )


def test_a_correspondence_challenge_shows_the_challenger_s_correspondence_rating(user_factory):
    alice, me_ = user_factory("alice"), user_factory("erin")
    Rating.objects.create(user=alice, game="reversi", value=1820, rated_games=40)
    Rating.objects.create(user=alice, game="reversi", value=1655, rated_games=12, correspondence=True)
    services.create_human_game(identity=me(alice), game="reversi", kind="lobby", days_per_move=3)
    (row,) = logged_in(me_).get("/lobby.json").json()["challenges"]
    assert (row["rating"], row["provisional"]) == (1655, False)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"game": "chess"}, "Select a valid choice"),
        ({"speed": "hyper"}, "Select a valid choice"),
        ({"mode": "serious"}, "Select a valid choice"),
        ({"rating_min": "strong"}, "Enter a whole number"),
        ({"rating_min": "1800", "rating_max": "1200"}, "The highest rating cannot be below the lowest."),
    ],
)
def test_a_bad_filter_gets_a_clear_error(client, user_factory, query, message):
    challenge(user_factory("alice"))
    response = client.get("/lobby.json", query)
    assert response.status_code == 400
    assert response.json()["error"] == "bad_filter" and message in response.json()["message"]


def test_blocks_still_hide_a_challenge_whatever_the_filter(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    challenge(alice, "reversi")
    block(by=alice, user=bob)
    assert listed(logged_in(bob), game="reversi") == []
    assert listed(logged_in(alice), game="reversi") == ["alice"]  # her own, always


def test_the_home_page_marks_casual_challenges_and_filters_from_its_address(user_factory):
    alice, bob, me_ = user_factory("alice"), user_factory("bob"), user_factory("erin")
    casual = challenge(alice, "ataxx", minutes=10, increment=5, casual=True)
    rated = challenge(bob, "reversi", minutes=3, increment=2)
    client = logged_in(me_)
    html = client.get("/").content.decode()
    row = html[html.index(f'data-game-id="{casual.pk}"') :]
    row = row[: row.index("</li>")]
    assert 'alice (1500<abbr class="provisional"' in row and "), 10+5" in row and "casual" in row
    rated_row = html[html.index(f'data-game-id="{rated.pk}"') :]
    assert "casual" not in rated_row[: rated_row.index("</li>")]
    filtered = client.get("/", {"mode": "casual"}).content.decode()
    assert f'data-game-id="{casual.pk}"' in filtered and f'data-game-id="{rated.pk}"' not in filtered
    assert '<option value="casual" selected>' in filtered  # the form shows the filter it applied


def test_the_quick_game_panel_offers_each_game_s_pools_and_casual(user_factory):
    html = logged_in(user_factory("alice")).get("/").content.decode()
    for label, minutes, increment in (
        ("1+0", 1, 0),
        ("3+2", 3, 2),
        ("5+3", 5, 3),
        ("10+5", 10, 5),
        ("15+10", 15, 10),
    ):
        button = f'data-quick-game="ataxx" data-quick-minutes="{minutes}" data-quick-increment="{increment}">{label}<'
        assert button in html
    assert 'id="quick-casual"' in html


def test_pressing_a_quick_button_with_increment_and_casual_pairs_into_that_game(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    waiting = logged_in(alice).post(
        "/quick/seek/", {"game": "quantum_ttt", "minutes": 5, "increment": 3, "casual": "1"}
    )
    assert waiting.json() == {"status": "waiting"}
    assert Seek.objects.get().casual
    paired = logged_in(bob).post("/quick/seek/", {"game": "quantum_ttt", "minutes": 5, "increment": 3})
    game = Game.objects.get()
    assert paired.json() == {"status": "paired", "url": f"/play/{game.pk}/"}
    assert (game.time_control_label, game.casual) == ("5+3", True)


def test_the_panel_offers_correspondence_buttons_of_1_3_and_7_days_for_each_game(user_factory):
    html = logged_in(user_factory("alice")).get("/").content.decode()
    assert ">Correspondence</h3>" in html
    for days, label in ((1, "1 day"), (3, "3 days"), (7, "7 days")):
        assert (
            f'data-quick-game="reversi" data-quick-minutes="0" data-quick-increment="0" data-quick-days="{days}"'
            in html
        )
        assert f'data-quick-days="{days}">{label}<' in html
    assert 'data-quick-days="14"' not in html


def test_a_correspondence_press_waits_and_the_home_page_shows_it_when_the_player_comes_back(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    waiting = logged_in(alice).post("/quick/seek/", {"game": "reversi", "days_per_move": 3})
    assert waiting.json() == {"status": "waiting"}
    assert (Seek.objects.get().days_per_move, Seek.objects.get().minutes) == (3, 0)
    # She left and comes back later: the page says what she is waiting for, with its button pressed.
    home = logged_in(alice).get("/").content.decode()
    assert 'data-waiting-game="reversi" data-waiting-days="3"' in home
    assert "Waiting for a correspondence game: Reversi, 3 days per move." in home
    assert 'data-quick-days="3" aria-pressed="true">3 days<' in home
    assert '<p id="quick-waiting" role="status">' in home  # shown, not hidden
    # Bob's page shows nothing of hers; his press of the same button pairs them.
    assert "data-waiting-game" not in logged_in(bob).get("/").content.decode()
    paired = logged_in(bob).post("/quick/seek/", {"game": "reversi", "days_per_move": 3})
    game = Game.objects.get()
    assert paired.json() == {"status": "paired", "url": f"/play/{game.pk}/"}
    assert (game.time_control_label, game.days_per_move) == ("3 days", 3)
    assert "data-waiting-game" not in logged_in(alice).get("/").content.decode()


def test_a_greek_player_reads_her_waiting_correspondence_seek_in_greek_on_the_page_and_in_script(
    user_factory,
):
    alice = user_factory("alice")
    client = logged_in(alice)
    client.post("/i18n/setlang/", {"language": "el", "next": "/"})
    client.post("/quick/seek/", {"game": "reversi", "days_per_move": 1, "casual": "1"})
    home = client.get("/").content.decode()
    assert "Αναμονή για παιχνίδι δι' αλληλογραφίας:" in home and "1 ημέρα ανά κίνηση." in home
    assert "Φιλικό, χωρίς αλλαγή βαθμολογίας." in home and "Μένει ανοιχτή" in home
    catalogue = client.get(re.search(r'<script src="(/jsi18n/el\.[^"]+)"', home)[1]).content.decode()
    # The script's strings (home.js, notify.js) are in the Greek catalogue, translated.
    for greek in ("%(days)s ημέρες ανά κίνηση.", "Μένει ανοιχτή", "εναντίον του/της %(who)s ξεκίνησε"):
        assert json.dumps(greek)[1:-1] in catalogue or greek in catalogue


@pytest.mark.parametrize(
    "fields",
    [
        {"minutes": 5, "increment": "x"},
        {"minutes": 5, "increment": 1},
        {"minutes": 3},
        {"days_per_move": 14},
        {"days_per_move": "x"},
    ],
)
def test_a_quick_button_that_is_not_offered_is_refused_and_nothing_waits(user_factory, fields):
    response = logged_in(user_factory("alice")).post("/quick/seek/", {"game": "reversi", **fields})
    assert response.status_code == 400 and response.json()["error"] == "bad_time"
    assert not Seek.objects.exists()
