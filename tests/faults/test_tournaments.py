"""Faults in a running arena: the worker killed -9 and the broker's messages wiped while results are due.

The results must come back from the database alone (the tournaments sweep,
beat), each counted exactly once, and the players paired again with nobody
ever in two games at once.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
import redis

from games import services as play
from games.models import Game
from tests.faults.test_kill import BACK_WITHIN, FAULT_SETTINGS, within
from tests.people import me
from tests.processes import QUEUES_WITHOUT_SEARCH
from tests.tournaments.conftest import arena
from tournaments import presence
from tournaments import services as director
from tournaments.models import Pairing, Participant

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

__all__ = ["arena"]  # the fixture, shared with tests/tournaments


def _arena_worker(services, database_url_for_processes, settings, *, sweep_seconds: int):
    settings.REDIS_URL = services.ensure_redis()
    presence._redis.cache_clear()
    env = {**FAULT_SETTINGS, "TOURNAMENTS_SWEEP_SECONDS": str(sweep_seconds)}

    class Worker:
        def start(self) -> None:
            services.start_worker(database_url_for_processes, beat=True, queues=QUEUES_WITHOUT_SEARCH, **env)
            services.wait_for_worker()

        def kill(self) -> None:
            services.kill_worker()

    worker = Worker()
    worker.start()
    yield worker
    services.stop_worker()
    presence._redis.cache_clear()


@pytest.fixture
def arena_worker(services, worker_broker, database_url_for_processes, settings):
    """A worker with embedded beat and a 1-s tournaments sweep, restartable; presence in the site's Redis."""
    yield from _arena_worker(services, database_url_for_processes, settings, sweep_seconds=1)


@pytest.fixture
def worker_without_sweep(services, worker_broker, database_url_for_processes, settings):
    """The same, but its tournaments sweep waits an hour: only a game's own task can pair its players."""
    yield from _arena_worker(services, database_url_for_processes, settings, sweep_seconds=3600)


def on_the_page(tournament, *users) -> None:
    async def arrive() -> None:
        for user in users:
            await presence.arrive(tournament.pk, user.pk, f"page-of-{user.pk}")

    asyncio.run(arrive())


def nobody_in_two_games() -> bool:
    seats = Counter()
    for pair in Game.objects.filter(status=Game.Status.ACTIVE).values_list("user0_id", "user1_id"):
        seats.update(pair)
    return all(n == 1 for n in seats.values())


def test_results_lost_with_a_killed_worker_are_counted_once_and_everyone_is_paired_again(
    arena_worker, services, arena, alice, bob, carol, user_factory
):
    dave = user_factory("dave")
    players = (alice, bob, carol, dave)
    on_the_page(arena, *players)
    for user in players:
        director.join(tournament_id=arena.pk, user=user)
    within(
        BACK_WITHIN, lambda: Pairing.objects.filter(tournament=arena).count() == 2, "the pairing", services
    )
    first_games = list(Pairing.objects.filter(tournament=arena).values_list("game_id", flat=True))

    arena_worker.kill()  # the tasks of the two results below find no worker...
    for game in Game.objects.filter(pk__in=first_games):
        play.resign(game_id=game.pk, identity=me(game.user0))
    redis.Redis.from_url(services.ensure_redis()).flushdb()  # ...and are wiped with the broker's data
    on_the_page(arena, *players)  # the pages are still open: their sockets renew what the wipe took
    arena_worker.start()

    within(
        BACK_WITHIN,
        lambda: not Pairing.objects.filter(game_id__in=first_games, scored_at=None).exists(),
        "both results",
        services,
    )
    within(
        BACK_WITHIN,
        lambda: Pairing.objects.filter(tournament=arena).count() == 4,
        "the new pairings",
        services,
    )
    scores = dict(Participant.objects.filter(tournament=arena).values_list("user__username", "score"))
    assert sorted(scores.values()) == [0, 0, 2, 2]  # each result exactly once
    assert nobody_in_two_games()
    for entry in Participant.objects.filter(tournament=arena):
        assert entry.playing is not None and entry.playing.status == Game.Status.ACTIVE
        assert entry.last_opponent_id != (
            entry.playing.user1_id if entry.playing.user0_id == entry.user_id else entry.playing.user0_id
        )


def test_players_whose_games_end_are_paired_again_by_the_results_task_without_the_sweep(
    worker_without_sweep, services, arena, alice, bob, carol, user_factory
):
    dave = user_factory("dave")
    players = (alice, bob, carol, dave)
    on_the_page(arena, *players)
    for user in players:
        director.join(tournament_id=arena.pk, user=user)
    within(5, lambda: Pairing.objects.filter(tournament=arena).count() == 2, "the first pairing", services)
    first_games = list(Pairing.objects.filter(tournament=arena).values_list("game_id", flat=True))

    for game in Game.objects.filter(pk__in=first_games):
        play.resign(game_id=game.pk, identity=me(game.user0))

    # Each result's task counts it and pairs whoever is free, in the same transaction;
    # the sweep, an hour away, has no part in it.
    within(5, lambda: Pairing.objects.filter(tournament=arena).count() == 4, "the new pairings", services)
    assert not Pairing.objects.filter(game_id__in=first_games, scored_at=None).exists()
    assert nobody_in_two_games()
    for entry in Participant.objects.filter(tournament=arena):
        assert entry.playing is not None and entry.playing.status == Game.Status.ACTIVE
        assert entry.last_opponent_id not in (entry.playing.user0_id, entry.playing.user1_id)
