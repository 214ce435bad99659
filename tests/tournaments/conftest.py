from __future__ import annotations

import asyncio

import pytest

from tournaments import presence, services
from tournaments.models import Tournament


@pytest.fixture(autouse=True)
def _nobody_on_a_page():
    presence.forget_local()
    yield
    presence.forget_local()


def on_the_page(tournament: Tournament, *users) -> None:
    """These players keep the tournament's page open (one socket each, in this process)."""
    for user in users:
        asyncio.run(presence.arrive(tournament.pk, user.pk, f"page-of-{user.pk}"))


def leaves_the_page(tournament: Tournament, user) -> None:
    asyncio.run(presence.depart(tournament.pk, user.pk, f"page-of-{user.pk}"))


@pytest.fixture
def arena(alice):
    """A 30-minute Reversi arena of 1-minute games that alice created; it has started."""
    made = services.create(
        user=alice, name="Friday arena", kind="arena", game="reversi", minutes=1, starts_in=0, duration=30
    )
    services.start_if_due(made.pk)
    made.refresh_from_db()
    return made


@pytest.fixture
def swiss(alice):
    return services.create(
        user=alice, name="Sunday Swiss", kind="swiss", game="ataxx", minutes=3, starts_in=0, rounds=3
    )
