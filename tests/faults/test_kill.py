"""Faults, for real: kill -9 the worker (pool and beat with it) or wipe the site's Redis, and count.

Every obligation of a game (the computer's move, a flag, a draw offer's lapse, a
rating) must come back from the database alone once the process is back: the
message that carried it may be gone with the worker (Redis keeps an unacked
message for its visibility timeout, an hour) or with Redis itself. "Back" is
when the restarted worker first answers a ping; from then on each obligation
must be met within 10 s.

These run with a worker that embeds beat (as `make run` does) and a 1-s sweep;
in CI they run on the embedded Redis, on PostgreSQL + Redis, and with RabbitMQ
as the broker. The daphne side (kill -9 mid game, nothing lost) is in
tests/games/test_multiprocess.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
import redis

from games import services as play
from games.live import presence
from games.models import Game, Move
from games.services import queue
from launch.processes import ALL_QUEUES
from ratings.models import AppliedGame, RatingChange
from tests.people import me
from tests.processes import QUEUES_WITHOUT_SEARCH

pytestmark = [pytest.mark.heavy, pytest.mark.services, pytest.mark.django_db(transaction=True)]

# Seconds from the worker's return to the obligation being met. The sweep finds it within a
# second; the rest is the new worker loading its compiled cores and Hard's search, which take
# several times longer while `make test`'s four pytest processes share two cores. A lost
# obligation is never met, so the bound only needs to be finite.
BACK_WITHIN = 30.0
FAULT_SETTINGS = {
    "GAMES_SWEEP_SECONDS": "1",
    "GAMES_DRAW_OFFER_SECONDS": "4",
    "RATINGS_BACKSTOP_SECONDS": "3",
}


@pytest.fixture
def fault_worker(services, worker_broker, database_url_for_processes, settings):
    """A worker with embedded beat, restartable: ``restart()`` returns when it answers again.

    On every queue; a story in which nobody plays the computer takes ``fault_worker_without_search``."""
    yield from _restartable_worker(services, database_url_for_processes, settings, ALL_QUEUES)


@pytest.fixture
def fault_worker_without_search(services, worker_broker, database_url_for_processes, settings):
    """``fault_worker`` on the queues where nothing searches: no compiled core to load at each start."""
    yield from _restartable_worker(services, database_url_for_processes, settings, QUEUES_WITHOUT_SEARCH)


def _restartable_worker(services, database_url_for_processes, settings, queues: tuple[str, ...]):
    settings.GAMES_DRAW_OFFER_SECONDS = int(FAULT_SETTINGS["GAMES_DRAW_OFFER_SECONDS"])

    class Worker:
        def start(self) -> float:
            services.start_worker(database_url_for_processes, beat=True, queues=queues, **FAULT_SETTINGS)
            services.wait_for_worker()
            return time.monotonic()

        def kill(self) -> None:
            services.kill_worker()

        def restart(self, *, after: float = 2.0) -> float:
            time.sleep(after)
            return self.start()

    worker = Worker()
    worker.start()
    yield worker
    services.stop_worker()  # later tests get a plain worker again


def within(seconds: float, condition: Callable[[], bool], what: str, services) -> float:
    """Wait until ``condition()`` holds; returns when it did."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} not within {seconds} s\n" + services.tail()
        time.sleep(0.1)
    return time.monotonic()


def runs_finished(services, task: str) -> list[str]:
    """The ids of ``task``'s runs (a Celery task's name) that the worker started last has finished."""
    log = services.logs[-1].read_text()  # the process started last: the worker, in these tests
    return re.findall(re.escape(task) + r"\[([^\]]+)\] succeeded", log)


def ply_of(game_id: int) -> int:
    return Game.objects.get(pk=game_id).ply


def computer_game(user) -> Game:
    """Reversi against the computer (Hard), one minute each, the human (black) first."""
    return play.create_computer_game(identity=me(user), game="reversi", level="hard", side=0, minutes=1)


def move(user, game_id: int, token: str, ply: int) -> None:
    play.play_move(game_id=game_id, identity=me(user), token=token, ply=ply, client_id=f"t{ply}")


def test_the_computers_move_survives_a_worker_killed_while_thinking(fault_worker, services, user_factory):
    alice = user_factory("alice")
    game_id = computer_game(alice).pk
    move(alice, game_id, "d3", 0)
    # Killed once its task has started: a task the worker had only received keeps its "sent, not
    # started" mark, and the sweep waits out the mark's minute before sending the move again (a
    # busy run's freshly started worker took longer than a fixed 0.2 s to start it).
    within(20, lambda: not queue.computer_move_pending(game_id, 1), "the computer's task starting", services)
    time.sleep(0.1)  # the computer (Hard) is now searching
    fault_worker.kill()
    back = fault_worker.restart()
    done = within(BACK_WITHIN, lambda: ply_of(game_id) >= 2, "the computer's move", services)

    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.ACTIVE, f"the game ended: {game.end_reason}"
    assert list(Move.objects.filter(game=game).values_list("ply", flat=True)) == list(range(game.ply))
    assert done - back <= BACK_WITHIN


def test_a_draw_offer_lapses_although_the_worker_holding_its_timer_was_killed(
    fault_worker_without_search, services, user_factory
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = play.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    play.join_game(game_id=game.pk, identity=me(bob), token=game.invite_token)
    play.offer_draw(game_id=game.pk, identity=me(alice))
    offered = time.monotonic()
    time.sleep(0.3)  # the lapse task is now held by the worker, waiting for its countdown
    fault_worker_without_search.kill()
    back = fault_worker_without_search.restart()
    lapse_due = offered + int(FAULT_SETTINGS["GAMES_DRAW_OFFER_SECONDS"])
    done = within(
        BACK_WITHIN + 5,
        lambda: Game.objects.get(pk=game.pk).draw_offer_side is None,
        "the draw offer's lapse",
        services,
    )
    assert done - max(back, lapse_due) <= BACK_WITHIN
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def wipe_the_sites_redis(services) -> None:
    redis.Redis.from_url(services.ensure_redis()).flushdb()


def test_a_rating_is_applied_exactly_once_though_its_message_was_lost(
    fault_worker_without_search, services, user_factory
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = play.create_human_game(
        identity=me(alice), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    play.join_game(game_id=game.pk, identity=me(bob), token=game.invite_token)
    fault_worker_without_search.kill()  # the rating task of the resignation below finds no worker...
    play.resign(game_id=game.pk, identity=me(bob))
    wipe_the_sites_redis(services)  # ...and, on a Redis broker, is wiped before one comes back
    fault_worker_without_search.restart(after=0.5)
    within(
        BACK_WITHIN + 10, lambda: AppliedGame.objects.filter(game_id=game.pk).exists(), "the rating", services
    )
    # A second delivery (or a late backstop) changes nothing.
    from ratings.tasks import apply_ratings

    again = apply_ratings.delay(game.pk)
    within(
        BACK_WITHIN,
        lambda: again.id in runs_finished(services, "ratings.apply_ratings"),
        "the second delivery",
        services,
    )
    assert RatingChange.objects.filter(game_id=game.pk).count() == 2  # one per player, once
    assert Game.objects.get(pk=game.pk).rated


def test_the_game_carries_on_after_the_sites_redis_is_wiped(
    fault_worker, services, user_factory, monkeypatch
):
    client = redis.Redis.from_url(services.ensure_redis())
    monkeypatch.setattr(presence, "_redis", lambda: client)  # this process counts presence where daphne does
    alice = user_factory("alice")
    game = computer_game(alice)
    before = presence.change(game.pk, 0, +1)[1]
    fault_worker.kill()
    move(alice, game.pk, "d3", 0)  # the computer's task waits in the broker...
    wipe_the_sites_redis(services)  # ...with presence counters and cached sessions, and is gone
    back = fault_worker.restart(after=0.5)
    done = within(BACK_WITHIN, lambda: ply_of(game.pk) >= 2, "the computer's move after the wipe", services)
    assert done - back <= BACK_WITHIN
    after = presence.change(game.pk, 0, +1)[1]
    assert after > before, "presence numbering went backwards: pages would ignore new notices"
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
