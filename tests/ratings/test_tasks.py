"""The Celery side: enqueued on game end, idempotent under redelivery, races and a real worker."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from games.models import Game
from games.signals import game_finished
from ratings.models import AppliedGame, Rating, RatingChange
from ratings.services import apply_ratings_for_game, games_missing_ratings
from ratings.tasks import apply_missing_ratings, apply_ratings


@pytest.mark.django_db
def test_the_ratings_task_is_acked_late_and_requeued_if_its_worker_dies():
    assert apply_ratings.acks_late is True
    assert apply_ratings.reject_on_worker_lost is True


@pytest.mark.django_db
def test_a_finished_game_signal_enqueues_the_rating_update(
    alice, bob, finished_game, rating_of, django_capture_on_commit_callbacks
):
    game = finished_game(alice, bob, winner=0)
    with django_capture_on_commit_callbacks(execute=True):
        game_finished.send(sender=Game, game_id=game.pk)
    assert rating_of(alice).value == 1530.0


@pytest.mark.django_db
def test_the_task_delivered_twice_applies_the_change_once(alice, bob, finished_game, rating_of):
    game = finished_game(alice, bob, winner=0)
    assert apply_ratings(game.pk) == "rated"
    assert apply_ratings(game.pk) == "already_applied"  # redelivery after a lost ack
    apply_ratings.delay(game.pk)  # and once more through Celery (eager in unit tests)
    assert (rating_of(alice).value, rating_of(alice).rated_games) == (1530.0, 1)
    assert RatingChange.objects.filter(game=game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_workers_applying_the_same_game_at_once_apply_it_once(alice, bob, finished_game, monkeypatch):
    """Two threads, two connections. On PostgreSQL the game's row lock makes the second
    wait for the first to commit; on SQLite the IMMEDIATE transactions queue up."""
    import ratings.services

    game = finished_game(alice, bob, winner=0)
    real_is_farming = ratings.services._is_farming

    both_inside = threading.Event()  # the second call has begun while the first holds the locks
    entered = []
    overlapped = []

    def slow_is_farming(g):
        # Runs inside the first call's locked transaction: wait until the other call has
        # started too, so the two really overlap, then hold the locks a little longer.
        overlapped.append(both_inside.wait(timeout=10))
        time.sleep(0.3)
        return real_is_farming(g)

    monkeypatch.setattr(ratings.services, "_is_farming", slow_is_farming)
    barrier = threading.Barrier(2)
    results, errors = [], []

    def worker():
        try:
            barrier.wait(timeout=10)
            entered.append(threading.get_ident())
            if len(entered) == 2:
                both_inside.set()
            results.append(apply_ratings_for_game(game_id=game.pk))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)

    assert errors == []
    assert overlapped == [True], "the two calls never overlapped: the test proved nothing"
    assert sorted(results) == ["already_applied", "rated"]
    assert Rating.objects.get(user=alice, game="reversi").value == 1530.0
    assert Rating.objects.get(user=bob, game="reversi").rated_games == 1
    assert RatingChange.objects.filter(game=game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_games_sharing_players_applied_at_once_both_count(alice, bob, carol, finished_game):
    """Locks are taken in user-id order, so crossing games do not deadlock and no update is lost."""
    games = [
        finished_game(alice, bob, winner=0),
        finished_game(bob, alice, winner=0),
        finished_game(carol, alice, winner=1),
    ]
    barrier = threading.Barrier(len(games))
    errors = []

    def worker(game_id):
        try:
            barrier.wait(timeout=10)
            apply_ratings_for_game(game_id=game_id)
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(g.pk,)) for g in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)

    assert errors == []
    alice_rating = Rating.objects.get(user=alice, game="reversi")
    assert (alice_rating.rated_games, alice_rating.wins, alice_rating.losses) == (3, 2, 1)
    assert Rating.objects.get(user=bob, game="reversi").rated_games == 2
    assert AppliedGame.objects.count() == 3


@pytest.mark.django_db
def test_games_whose_task_never_ran_are_picked_up_by_the_backstop(alice, bob, finished_game, rating_of):
    from datetime import timedelta

    from django.utils import timezone

    old = finished_game(alice, bob, winner=0, finished_at=timezone.now() - timedelta(hours=1))
    recent = finished_game(alice, bob, winner=0)
    assert games_missing_ratings() == [old.pk]
    assert apply_missing_ratings() == 1
    assert rating_of(alice).value == 1530.0
    assert games_missing_ratings() == []
    assert not AppliedGame.objects.filter(game=recent).exists()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_applies_the_ratings_of_a_game_that_ended(celery_worker, alice, bob, finished_game):
    game = finished_game(alice, bob, winner=1, end_reason="resignation")
    game_finished.send(sender=Game, game_id=game.pk)  # not in a transaction: enqueued at once

    deadline = time.monotonic() + 20
    while not AppliedGame.objects.filter(game=game).exists():
        assert time.monotonic() < deadline, "the worker did not apply the game:\n" + celery_worker.tail()
        time.sleep(0.2)

    assert Rating.objects.get(user=bob, game="reversi").value == 1530.0
    assert Rating.objects.get(user=alice, game="reversi").value == 1470.0
    game.refresh_from_db()
    assert game.rated is True
