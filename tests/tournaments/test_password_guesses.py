"""Issue #38, finding 2: private tournaments' passwords cost no lock, no held connection, and few guesses.

40 parallel wrong guesses, each hashed under the tournament's row lock, held as
many pooled connections until an unrelated page failed. Now the hash is checked
before the lock, with the thread's connection handed back, and guesses are
throttled per player and per address.
"""

from __future__ import annotations

import pytest
from django.db import connections

from tournaments import services
from tournaments.services import entries

pytestmark = pytest.mark.django_db(transaction=True)  # no test transaction around the service


@pytest.fixture
def private(alice):
    return services.create(user=alice, name="Club", kind="arena", game="ataxx", minutes=3, password="owls")


@pytest.fixture
def steps(monkeypatch):
    """What the join does, in order: hand the connection back, hash, take the row lock."""
    done: list[str] = []
    real_locked, real_check, real_close = entries.locked, entries.check_password, connections["default"].close

    def locked(*args, **kwargs):
        done.append("lock")
        return real_locked(*args, **kwargs)

    def check_password(*args, **kwargs):
        done.append("hash" if not connections["default"].in_atomic_block else "hash inside a transaction")
        return real_check(*args, **kwargs)

    def close():
        done.append("close")
        real_close()

    monkeypatch.setattr(entries, "locked", locked)
    monkeypatch.setattr(entries, "check_password", check_password)
    monkeypatch.setattr(connections["default"], "close", close)
    return done


def guess_wrong(tournament, user, address: str) -> None:
    """A wrong password guess, hashed and refused as wrong (not as one too many)."""
    with pytest.raises(services.TournamentError, match="not the tournament's password"):
        services.join(tournament_id=tournament.pk, user=user, password="cats", address=address)


def refused_as_one_too_many(tournament, user, address: str, password: str = "cats") -> None:
    with pytest.raises(services.TournamentError) as refused:
        services.join(tournament_id=tournament.pk, user=user, password=password, address=address)
    assert refused.value.code == "too_many_guesses"


def test_a_wrong_password_is_hashed_without_a_connection_and_never_takes_the_lock(private, bob, steps):
    with pytest.raises(services.TournamentError) as refused:
        services.join(tournament_id=private.pk, user=bob, password="cats", address="203.0.113.7")
    assert refused.value.code == "bad_password"
    assert steps == ["close", "hash"]
    assert not private.participants.filter(user=bob).exists()
    steps.clear()
    services.join(tournament_id=private.pk, user=bob, password="owls", address="203.0.113.7")
    assert steps == ["close", "hash", "lock"]
    assert private.participants.filter(user=bob).exists()


def test_guesses_are_throttled_per_player_and_per_address_with_a_clear_message(
    private, bob, carol, steps, settings, client
):
    settings.TOURNAMENTS_PASSWORD_GUESSES_PER_MINUTE = 5
    for _ in range(5):
        guess_wrong(private, bob, "203.0.113.7")
    # The sixth is refused before any hashing, even with the right password, from anywhere.
    refused_as_one_too_many(private, bob, "198.51.100.1", password="owls")
    assert steps.count("hash") == 5 and "lock" not in steps
    # Another player from the same address is refused too; the page says why.
    client.force_login(carol)
    page = client.post(
        f"/tournaments/{private.pk}/join/", {"password": "owls"}, REMOTE_ADDR="203.0.113.7", follow=True
    ).content.decode()
    assert "Too many password attempts. Wait a minute and try again." in page
    assert not private.participants.filter(user=carol).exists()
    # From elsewhere, carol is in.
    client.post(f"/tournaments/{private.pk}/join/", {"password": "owls"}, REMOTE_ADDR="192.0.2.5")
    assert private.participants.filter(user=carol).exists()


def test_a_guess_refused_for_the_player_leaves_the_address_its_guesses(private, bob, carol, steps, settings):
    settings.TOURNAMENTS_PASSWORD_GUESSES_PER_MINUTE = 2
    for _ in range(2):
        guess_wrong(private, bob, "203.0.113.7")
    # Bob's third, from the café's address, is refused for bob, before any hashing...
    refused_as_one_too_many(private, bob, "198.51.100.1")
    # ...and carol at the café still has both her guesses there.
    for _ in range(2):
        guess_wrong(private, carol, "198.51.100.1")
    assert steps.count("hash") == 4
