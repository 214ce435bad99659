"""Issue #38, finding 1: nobody floods the computer's queue with games.

A guest has at most ``GAMES_COMPUTER_GAMES_GUEST`` unfinished games against the
computer, a registered player ``GAMES_COMPUTER_GAMES_PLAYER``, and the guests of
one address together ``GAMES_COMPUTER_GAMES_ADDRESS`` (a new cookie is a new guest).
"""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Game

NEW_GAME = {"game": "reversi", "opponent": "computer", "level": "easy", "side": "0", "minutes": 5}


def start(client: Client, address: str = "203.0.113.7"):
    return client.post("/play/new/", NEW_GAME, REMOTE_ADDR=address)


@pytest.mark.django_db
def test_a_guest_gets_two_computer_games_at_once_then_a_clear_refusal_until_one_ends(settings):
    settings.GAMES_COMPUTER_GAMES_GUEST = 2
    guest = Client()
    assert start(guest).status_code == 302 and start(guest).status_code == 302
    refused = start(guest)
    assert refused.status_code == 400
    assert "You already have 2 games against the computer in progress" in refused.content.decode()
    assert Game.objects.filter(kind=Game.Kind.COMPUTER).count() == 2  # nothing stored
    # Resigning one frees a place.
    game = Game.objects.filter(kind=Game.Kind.COMPUTER).first()
    game.status = Game.Status.FINISHED
    game.save(update_fields=["status"])
    assert start(guest).status_code == 302


@pytest.mark.django_db
def test_a_registered_player_gets_more_but_not_unlimited(settings, alice):
    settings.GAMES_COMPUTER_GAMES_PLAYER = 5
    client = Client()
    client.force_login(alice)
    for _ in range(5):
        assert start(client).status_code == 302
    refused = start(client)
    assert refused.status_code == 400
    assert "You already have 5 games against the computer in progress" in refused.content.decode()
    assert Game.objects.filter(user0=alice).count() + Game.objects.filter(user1=alice).count() == 5


@pytest.mark.django_db
def test_new_guests_from_one_address_are_limited_together_and_other_addresses_are_not(settings, alice):
    """One guest made 100 games; 300 fresh cookies would otherwise each get their two."""
    settings.GAMES_COMPUTER_GAMES_GUEST = 2
    settings.GAMES_COMPUTER_GAMES_ADDRESS = 3
    made = [start(Client()).status_code for _ in range(3)]  # three new guests, one address
    assert made == [302, 302, 302]
    refused = start(Client())
    assert refused.status_code == 400
    assert "from your network" in refused.content.decode()
    # IPv6: the whole /64 is one address.
    v6 = [start(Client(), f"2001:db8::{n}").status_code for n in range(1, 5)]
    assert v6 == [302, 302, 302, 400]
    # Another address, and a registered player on the same one, still play.
    assert start(Client(), "198.51.100.9").status_code == 302
    player = Client()
    player.force_login(alice)
    assert start(player).status_code == 302
    assert Game.objects.filter(kind=Game.Kind.COMPUTER).count() == 3 + 3 + 1 + 1
