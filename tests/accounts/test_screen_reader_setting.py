"""The screen-reader mode (issue #27) is a setting: kept with a player's account, in a
cookie for a guest, and switched by the first control of every page."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from django.test import Client

from accounts.models import Preferences
from games.models import Game

pytestmark = pytest.mark.django_db

SWITCH = "/settings/screen-reader/"


def first_control(page: str) -> str:
    """The text of the first button or link in <body>: what the first Tab reaches."""
    body = page[page.index("<body>") :]
    start = min(i for i in (body.find("<button"), body.find("<a ")) if i >= 0)
    return body[start : body.index("</", start)].rsplit(">", 1)[1]


def test_a_guest_switches_it_on_from_the_first_control_and_the_browser_keeps_it():
    guest = Client()
    home = guest.get("/").content.decode()
    assert first_control(home) == "Screen-reader mode"
    response = guest.post(SWITCH, {"on": "1", "next": "/rules/reversi/"})
    assert response.status_code == HTTPStatus.FOUND and response["Location"] == "/rules/reversi/"
    assert response.cookies["sr"].value == "1" and response.cookies["sr"]["httponly"]
    assert not Preferences.objects.exists()  # a guest's choice lives in the browser
    assert first_control(guest.get("/").content.decode()) == "Leave the screen-reader mode"
    guest.post(
        "/play/new/", {"game": "ataxx", "opponent": "computer", "level": "easy", "minutes": 0, "side": "0"}
    )
    board = guest.get(f"/play/{Game.objects.get().pk}/").content.decode()
    assert 'data-screen-reader="true"' in board and 'id="sr-input"' in board
    assert first_control(Client().get("/").content.decode()) == "Screen-reader mode"  # another browser

    guest.post(SWITCH, {"on": "0", "next": "/"})
    assert first_control(guest.get("/").content.decode()) == "Screen-reader mode"
    assert 'id="sr-input"' not in guest.get(f"/play/{Game.objects.get().pk}/").content.decode()


def test_a_player_keeps_it_with_the_account_in_every_browser(alice, client_for):
    laptop = client_for(alice)
    response = laptop.post(SWITCH, {"on": "1", "next": "/history/"})
    assert response["Location"] == "/history/"
    assert "sr" not in response.cookies  # stored on the account, not in this browser
    assert Preferences.objects.get(user=alice).screen_reader is True
    phone = client_for(alice)
    assert phone.get("/").context["site_settings"]["screen_reader"] is True
    assert first_control(phone.get("/").content.decode()) == "Leave the screen-reader mode"
    # Saving the other settings leaves the mode as it is.
    laptop.post("/settings/", {"theme": "dark", "palette": "ocean", "ai_level": "hard"})
    assert Preferences.objects.get(user=alice).screen_reader is True
    phone.post(SWITCH, {"on": "0"})
    assert Preferences.objects.get(user=alice).screen_reader is False
    assert laptop.get("/").context["site_settings"]["screen_reader"] is False


def test_a_guests_cookie_does_not_switch_a_players_pages(alice, client_for):
    client = client_for(alice)
    client.cookies["sr"] = "1"
    assert client.get("/").context["site_settings"]["screen_reader"] is False


def test_a_bad_switch_is_refused_and_changes_nothing(alice, client_for):
    client = client_for(alice)
    response = client.post(SWITCH, {"on": "yes please"})
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "on=1 or on=0" in response.content.decode()
    assert not Preferences.objects.exists()
    assert client.get(SWITCH).status_code == HTTPStatus.METHOD_NOT_ALLOWED
    # A "next" on another site is not followed: back to the settings page instead.
    response = Client().post(SWITCH, {"on": "1", "next": "https://evil.example/"})
    assert response["Location"] == "/settings/"


def test_the_switch_needs_the_pages_csrf_token(alice, client_for):
    strict = client_for(alice, enforce_csrf_checks=True)
    assert strict.post(SWITCH, {"on": "1"}).status_code == HTTPStatus.FORBIDDEN
    assert not Preferences.objects.exists()


def test_a_guest_who_signs_up_in_the_mode_keeps_it():
    client = Client()
    client.post(SWITCH, {"on": "1"})
    client.post("/accounts/signup/", {"username": "Newbie", "password1": "hunter2", "password2": "hunter2"})
    assert Preferences.objects.get(user__username="Newbie").screen_reader is True
