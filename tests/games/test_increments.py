"""Fischer increments ("5+3"): chosen on the form, stored with the game, added after every move in time."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import bus, services
from games.models import FISCHER_PRESETS, Game, Move
from tests.people import me

pytestmark = pytest.mark.django_db


def fischer_game(alice, bob, *, minutes: int, increment: int) -> Game:
    """Alice to move after the first move of each side (d3 c5), when the clocks have started (docs/decisions.md)."""
    created = services.create_human_game(
        identity=me(alice),
        game="reversi",
        kind=Game.Kind.INVITE_LINK,
        side=0,
        minutes=minutes,
        increment=increment,
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)
    game.refresh_from_db()
    return game


def test_a_move_in_time_is_charged_its_time_and_given_the_increment(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = fischer_game(alice, bob, minutes=3, increment=2)
    assert game.time_control_label == "3+2"
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=10))
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    game.refresh_from_db()
    move = Move.objects.get(game=game, ply=2)
    assert move.time_used_ms >= 10_000
    assert game.clock0_ms == move.clock_left_ms == 180_000 - move.time_used_ms + 2_000
    assert game.clock1_ms == 180_000, "the waiting side's clock neither runs nor gains"


def test_a_move_after_the_clock_ran_out_gets_no_increment_and_loses(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = fischer_game(alice, bob, minutes=1, increment=30)
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=61))
    with pytest.raises(services.GameError) as refused:
        services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    game.refresh_from_db()
    assert refused.value.code == "timeout"
    assert (game.end_reason, game.clock0_ms, game.ply) == ("timeout", 0, 2)


@pytest.mark.django_db(transaction=True)
def test_the_computer_s_clock_gets_the_increment_too(user_factory):
    alice = user_factory("alice")
    game = services.create_computer_game(
        identity=me(alice), game="reversi", level="easy", side=0, minutes=1, increment=5
    )
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    game.refresh_from_db()
    assert game.ply == 2, "the eager computer task answered"
    assert Move.objects.get(game=game, ply=1).clock_left_ms == 60_000, "its first move is free, as Alice's"
    opening = game.engine.legal_moves(game.engine_state())[0]
    services.play_move(game_id=game.pk, identity=me(alice), token=opening, ply=2)
    game.refresh_from_db()
    assert game.ply == 4, "the eager computer task answered"
    reply = Move.objects.get(game=game, ply=3)
    assert reply.clock_left_ms == 60_000 - reply.time_used_ms + 5_000 == game.clock1_ms


@pytest.mark.parametrize(("minutes", "increment"), [(61, 0), (0, 5), (5, 61), (5, -1), (-3, 2)], ids=str)
def test_a_clock_outside_the_bounds_is_refused_and_no_game_is_made(user_factory, minutes, increment):
    with pytest.raises(services.GameError) as refused:
        services.create_human_game(
            identity=me(user_factory("alice")),
            game="reversi",
            kind=Game.Kind.INVITE_LINK,
            minutes=minutes,
            increment=increment,
        )
    assert refused.value.code == "bad_time"
    assert not Game.objects.exists()


def test_an_untimed_computer_game_cannot_have_an_increment(user_factory):
    with pytest.raises(services.GameError) as refused:
        services.create_computer_game(
            identity=me(user_factory("alice")), game="reversi", level="easy", minutes=0, increment=3
        )
    assert refused.value.code == "bad_time" and not Game.objects.exists()


def test_new_game_keeps_the_clock_and_its_increment(user_factory):
    alice = user_factory("alice")
    game = services.create_computer_game(
        identity=me(alice), game="reversi", level="easy", side=0, minutes=10, increment=5
    )
    again = services.rematch_computer(game_id=game.pk, identity=me(alice))
    assert (again.time_control, again.increment) == (600, 5)


def test_the_form_makes_a_custom_fischer_game_shown_as_base_plus_increment(user_factory):
    client = Client()
    client.force_login(user_factory("alice"))
    response = client.post(
        "/play/new/",
        {"game": "ataxx", "opponent": "lobby", "minutes": "7", "increment": "4", "side": "0"},
    )
    game = Game.objects.get()
    assert response.status_code == 302 and (game.time_control, game.increment) == (420, 4)
    assert 'class="time-control"' in client.get(game.get_absolute_url()).content.decode()
    assert "7+4" in client.get(game.get_absolute_url()).content.decode()
    assert [c["clock"] for c in client.get("/lobby.json").json()["challenges"]] == ["7+4"]
    snapshot = bus.snapshot(game)
    assert snapshot["clock"]["increment_ms"] == 4_000 and snapshot["clock"]["initial_ms"] == 420_000


def test_the_form_refuses_an_increment_out_of_range_and_makes_nothing(user_factory):
    client = Client()
    client.force_login(user_factory("alice"))
    response = client.post(
        "/play/new/", {"game": "reversi", "opponent": "link", "minutes": "5", "increment": "61", "side": "0"}
    )
    assert response.status_code == 400 and not Game.objects.exists()
    assert 'name="increment"' in response.content.decode()


def test_the_form_offers_a_dozen_time_controls_as_radio_buttons_and_a_custom_pair(client):
    page = client.get("/").content.decode()
    choices = re.findall(r'<input type="radio" name="clock" value="([^"]+)"', page)
    # Every quick-pairing pool is a preset; untimed (the computer's games) and custom complete the set.
    assert {f"{m}+{i}" for m, i in FISCHER_PRESETS} <= set(choices) and len(choices) <= 12
    assert choices[-2:] == ["untimed", "custom"] and 'value="5+0" checked' in page
    assert re.search(r'<input type="number" name="minutes" value="5"[^>]*max="60"', page)
    assert re.search(r'<input type="number" name="increment" value="0"[^>]*max="60"', page)
    assert "<select" not in page.split('id="id_minutes"')[0].rsplit("<fieldset", 1)[1]


def _post_new_game(user_factory, **fields: str):
    client = Client()
    client.force_login(user_factory("alice"))
    return client.post("/play/new/", {"game": "reversi", "opponent": "link", "side": "0", **fields})


def test_a_preset_wins_over_the_custom_numbers_left_in_their_boxes(user_factory):
    response = _post_new_game(user_factory, clock="5+3", minutes="61", increment="x")
    game = Game.objects.get()
    assert response.status_code == 302 and (game.time_control, game.increment) == (300, 3)


def test_a_custom_clock_is_the_two_numbers(user_factory):
    response = _post_new_game(user_factory, clock="custom", minutes="7", increment="2")
    game = Game.objects.get()
    assert response.status_code == 302 and (game.time_control, game.increment) == (420, 2)


@pytest.mark.parametrize(
    ("fields", "where", "message"),
    [
        (
            {"clock": "custom", "minutes": "61", "increment": "0"},
            "minutes",
            "Choose from 1 to 60 minutes per player.",
        ),
        (
            {"clock": "custom", "minutes": "", "increment": "0"},
            "minutes",
            "Choose from 1 to 60 minutes per player.",
        ),
        ({"clock": "custom", "minutes": "5", "increment": "99"}, "increment", "Choose from 0 to 60 seconds"),
        ({"clock": "custom", "minutes": "five"}, "minutes", "Write the minutes as a whole number."),
        ({"clock": "7+7"}, "clock", "Select a valid choice."),  # a forged preset
        ({"clock": "untimed"}, "clock", "Games between people need a clock."),
    ],
    ids=["too-long", "empty", "increment", "words", "forged", "untimed-people"],
)
def test_a_bad_time_control_is_refused_at_its_field_and_makes_nothing(user_factory, fields, where, message):
    response = _post_new_game(user_factory, **fields)
    assert response.status_code == 400 and not Game.objects.exists()
    errors = response.context["form"].errors
    assert list(errors) == [where] and message in errors[where][0]
    # Shown inside the time control's group, which the numbers point at (aria-describedby).
    html = response.content.decode()
    group = html[html.index('id="clock-errors"') : html.index("</fieldset>", html.index('id="clock-errors"'))]
    assert message.split(".")[0] in group.replace("&#x27;", "'")


def test_the_computer_s_untimed_game_is_one_click(user_factory):
    response = _post_new_game(user_factory, opponent="computer", level="easy", clock="untimed", minutes="61")
    game = Game.objects.get()
    assert response.status_code == 302 and (game.time_control, game.increment) == (0, 0)


def test_the_join_page_shows_the_clock_as_base_plus_increment(user_factory):
    game = services.create_human_game(
        identity=me(user_factory("alice")), game="reversi", kind="link", minutes=10, increment=5
    )
    page = Client().get(f"/join/{game.invite_token}/").content.decode()
    assert "Clock: 10 minutes per player." in page and ">10+5</span>" in page
