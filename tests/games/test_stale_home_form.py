"""The home page's form after the player's account changed: a clear refusal, never a silent guest game.
And guests are not offered the correspondence field they cannot use."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Game

pytestmark = pytest.mark.django_db

NEW_GAME = {"game": "reversi", "opponent": "computer", "level": "easy", "minutes": "0", "side": "0"}


def test_a_form_from_a_tab_opened_before_logging_out_is_refused_and_says_why(user_factory):
    alice = user_factory("alice")
    client = Client()
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert '<input type="hidden" name="as_player" value="alice">' in page
    client.post("/accounts/logout/")  # in another tab: the old tab's form still has its CSRF token

    response = client.post("/play/new/", {**NEW_GAME, "as_player": "alice"})
    assert response.status_code == 409
    text = response.content.decode()
    assert "you have logged out since. Nothing was started" in text
    assert not Game.objects.exists(), "no guest game started behind the player's back"
    assert 'name="as_player"' not in text, "the page is now the guest's"

    # Pressing Start again on that page is the guest's knowing choice.
    response = client.post("/play/new/", NEW_GAME)
    assert response.status_code == 302
    assert Game.objects.get().guest0_key


def test_a_form_from_another_account_s_page_is_refused(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    client = Client()
    client.force_login(bob)  # alice logged out and bob logged in, in another tab
    response = client.post("/play/new/", {**NEW_GAME, "as_player": alice.username})
    assert response.status_code == 409
    assert "you are now logged in as bob" in response.content.decode()
    assert not Game.objects.exists()


def test_a_guest_is_not_offered_correspondence_and_an_old_form_s_days_are_refused(user_factory):
    guest = Client()
    assert 'name="days"' not in guest.get("/").content.decode()
    response = guest.post("/play/new/", {**NEW_GAME, "opponent": "link", "minutes": "5", "days": "3"})
    assert response.status_code == 400
    assert "Log in to play a correspondence game." in response.content.decode()
    assert not Game.objects.exists()

    player = Client()
    player.force_login(user_factory("alice"))
    assert 'name="days"' in player.get("/").content.decode(), "a registered player still has it"
