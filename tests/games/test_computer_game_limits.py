"""Issue #38, finding 1: nobody floods the computer's queue with games.

A guest has at most ``GAMES_COMPUTER_GAMES_GUEST`` unfinished games against the
computer, a registered player ``GAMES_COMPUTER_GAMES_PLAYER``, and the guests of
one address together ``GAMES_COMPUTER_GAMES_ADDRESS`` (a new cookie is a new guest).
"""

from __future__ import annotations

import threading

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


def at_once(requests: list) -> list[int]:
    """Run each request (a function returning a response) in its own thread, all released together."""
    from django.db import connection

    barrier = threading.Barrier(len(requests))
    codes: list[int] = [0] * len(requests)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            codes[index] = requests[index]().status_code
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return codes


@pytest.mark.django_db(transaction=True)
def test_parallel_new_guests_from_one_address_get_no_more_than_its_limit(settings):
    """Issue #38 (the flood benchmark): 8 new guests posting at once from one address all got
    their game, and a 9th after them too: each request wrote back the list it had read."""
    settings.GAMES_COMPUTER_GAMES_GUEST = 2
    settings.GAMES_COMPUTER_GAMES_ADDRESS = 3
    codes = at_once([lambda: start(Client(), "203.0.113.50") for _ in range(8)])
    assert sorted(codes) == [302] * 3 + [400] * 5, codes
    assert Game.objects.filter(kind=Game.Kind.COMPUTER).count() == 3
    # None of them forgotten: the address stays full.
    assert start(Client(), "203.0.113.50").status_code == 400
    assert Game.objects.filter(kind=Game.Kind.COMPUTER).count() == 3


@pytest.mark.django_db(transaction=True)
def test_one_guest_s_parallel_requests_get_no_more_than_a_guest_s_limit(settings):
    settings.GAMES_COMPUTER_GAMES_GUEST = 2
    settings.GAMES_COMPUTER_GAMES_ADDRESS = 100
    first = Client()
    assert start(first, "203.0.113.60").status_code == 302  # the guest exists from now on

    def same_guest():
        client = Client()
        client.cookies = first.cookies  # a copy of the cookie jar per thread
        return start(client, "203.0.113.60")

    codes = at_once([same_guest for _ in range(6)])
    assert sorted(codes) == [302] + [400] * 5, codes
    assert Game.objects.filter(kind=Game.Kind.COMPUTER).count() == 2
