"""The tournament pages: the header link, the list, creating one, the buttons, a winner on the profile."""

from __future__ import annotations

import pytest

from games import services as play
from tests.people import me
from tests.tournaments.conftest import on_the_page
from tournaments import services
from tournaments.models import Participant, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_page_links_to_the_tournaments_and_the_list_shows_them(client, arena):
    home = client.get("/").content.decode()
    assert 'href="/tournaments/"' in home
    page = client.get("/tournaments/").content.decode()
    assert "Friday arena" in page and "Log in to create or join a tournament." in page


def test_a_player_creates_a_private_swiss_tournament_and_is_in_it(client, alice):
    client.force_login(alice)
    answer = client.post(
        "/tournaments/new/",
        {
            "name": "Club night",
            "kind": "swiss",
            "game": "ataxx",
            "minutes": 3,
            "increment": 0,
            "starts_in": 10,
            "duration": 30,
            "rounds": 4,
            "password": "owls",
        },
    )
    made = Tournament.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/tournaments/{made.pk}/"
    assert made.is_private and made.rounds == 4 and made.password != "owls"  # stored hashed
    assert Participant.objects.filter(tournament=made, user=alice).exists()
    assert "Club night" in client.get(answer["Location"]).content.decode()


def test_a_wrong_password_is_said_and_changes_nothing(client, alice, bob):
    private = services.create(user=alice, name="Club", kind="arena", game="ataxx", minutes=3, password="owls")
    client.force_login(bob)
    page = client.post(f"/tournaments/{private.pk}/join/", {"password": "cats"}, follow=True).content.decode()
    assert "That is not the tournament&#x27;s password." in page
    assert not private.participants.filter(user=bob).exists()


def test_the_buttons_need_a_login_and_a_post(client, arena, alice):
    assert client.post(f"/tournaments/{arena.pk}/join/").status_code == 302  # to the login page
    assert not arena.participants.exists()
    client.force_login(alice)
    assert client.get(f"/tournaments/{arena.pk}/join/").status_code == 405
    assert client.post(f"/tournaments/{arena.pk}/explode/").status_code == 404
    client.post(f"/tournaments/{arena.pk}/join/")
    client.post(f"/tournaments/{arena.pk}/pause/")
    assert Participant.objects.get(user=alice).paused
    page = client.get(f"/tournaments/{arena.pk}/").content.decode()
    assert "You are paused" in page and 'data-action="resume"' in page


def test_the_winner_and_places_are_kept_on_the_profiles(client, arena, alice, bob):
    on_the_page(arena, alice, bob)
    services.join(tournament_id=arena.pk, user=alice)
    services.join(tournament_id=arena.pk, user=bob)
    game = Participant.objects.get(user=alice).playing
    Tournament.objects.filter(pk=arena.pk).update(duration_minutes=0)
    play.resign(game_id=game.pk, identity=me(bob))
    winner_page = client.get("/players/alice/").content.decode()
    assert "Friday arena" in winner_page and "Winner" in winner_page and "2 points" in winner_page
    loser_page = client.get("/players/bob/").content.decode()
    assert "Friday arena" in loser_page and "place 2" in loser_page


def test_a_tournament_game_s_page_links_back_to_its_tournament(client, arena, swiss, alice, bob):
    on_the_page(arena, alice, bob)
    for user in (alice, bob):
        services.join(tournament_id=arena.pk, user=user)
    services.pair_arena(arena.pk)
    arena_game = Participant.objects.get(tournament=arena, user=alice).playing
    page = client.get(arena_game.get_absolute_url()).content.decode()
    assert f'<a href="/tournaments/{arena.pk}/">Friday arena</a></p>' in page  # an arena has no rounds

    play.resign(game_id=arena_game.pk, identity=me(bob))
    services.leave(tournament_id=arena.pk, user=alice)
    services.leave(tournament_id=arena.pk, user=bob)
    for user in (alice, bob):
        services.join(tournament_id=swiss.pk, user=user)
    services.start_if_due(swiss.pk)
    services.advance(swiss.pk)
    swiss_game = Participant.objects.get(tournament=swiss, user=alice).playing
    page = client.get(swiss_game.get_absolute_url()).content.decode()
    assert f'<a href="/tournaments/{swiss.pk}/">Sunday Swiss</a>, round 1</p>' in page

    quick = play.create_human_game(identity=me(alice), game="reversi", kind="lobby")
    assert "data-tournament" not in client.get(quick.get_absolute_url()).content.decode()
