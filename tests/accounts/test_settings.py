"""The settings page: stored for players, kept in the session for guests, used by every page."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from django.test import Client

from accounts.guests import get_guest
from accounts.models import Preferences

pytestmark = pytest.mark.django_db

CHOICES = {"theme": "dark", "palette": "ocean", "ai_level": "hard", "sound": "on"}


def test_everyone_gets_default_settings_without_anything_being_stored(alice, client_for):
    for client in (Client(), client_for(alice)):
        settings = client.get("/").context["site_settings"]
        assert settings == {
            "theme": "auto",
            "palette": "classic",
            "ai_level": "medium",
            "hints": True,
            "sound": True,
            "block_invitations": False,
            "chat": True,
            "chat_spectators": False,
            "correspondence_mail": False,
            "screen_reader": False,
        }
    assert not Preferences.objects.exists()


def test_a_player_saves_settings_in_the_database_and_every_page_uses_the_theme(alice, client_for):
    client = client_for(alice)
    assert client.get("/settings/").status_code == HTTPStatus.OK
    response = client.post("/settings/", {**CHOICES, "block_invitations": "on"})
    assert response.status_code == HTTPStatus.FOUND
    prefs = Preferences.objects.get(user=alice)
    assert (
        prefs.theme,
        prefs.palette,
        prefs.ai_level,
        prefs.hints,
        prefs.sound,
        prefs.block_invitations,
    ) == (
        "dark",
        "ocean",
        "hard",
        False,
        True,
        True,
    )
    assert b'data-theme="dark"' in client.get("/").content


def test_a_guest_keeps_settings_in_the_session_and_has_no_invitation_switch():
    client = Client()
    assert "block_invitations" not in client.get("/settings/").context["form"].fields
    client.post("/settings/", {**CHOICES, "block_invitations": "on"})
    assert not Preferences.objects.exists()
    settings = client.get("/").context["site_settings"]
    assert settings["theme"] == "dark" and settings["hints"] is False
    assert settings["block_invitations"] is False
    assert Client().get("/").context["site_settings"]["theme"] == "auto"  # another browser


def test_invalid_values_are_refused_next_to_the_field(alice, client_for):
    response = client_for(alice).post("/settings/", {**CHOICES, "theme": "hotpink"})
    assert response.status_code == HTTPStatus.OK
    assert response.context["form"].errors["theme"]
    assert not Preferences.objects.exists()


def test_a_guest_who_signs_up_keeps_their_settings():
    client = Client()
    session = client.session
    get_guest(session)
    session.save()
    client.cookies["sessionid"] = session.session_key
    client.post("/settings/", CHOICES)
    client.post("/accounts/signup/", {"username": "Newbie", "password1": "hunter2", "password2": "hunter2"})
    assert Preferences.objects.get(user__username="Newbie").theme == "dark"
