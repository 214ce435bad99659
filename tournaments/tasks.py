"""Celery tasks of tournaments: thin wrappers, each idempotent (every service re-checks under the row lock)."""

from __future__ import annotations

from celery import shared_task

from games.tasks import RELIABLE


@shared_task(**RELIABLE)
def after_game(game_id: int) -> None:
    """A tournament game ended: count it and pair its players again (queue ``live``)."""
    from tournaments.services import after_game as run

    run(game_id)


@shared_task(**RELIABLE)
def pair_arena(tournament_id: int) -> None:
    from tournaments.services import pair_arena as run

    run(tournament_id)


@shared_task(name="tournaments.sweep", acks_late=True)
def sweep() -> int:
    """Periodic (beat): starts, lost results, free players, rounds and ends, from the database."""
    from tournaments.services import sweep as run

    return run()


@shared_task(acks_late=True)
def announce_later(tournament_id: int) -> None:
    """The standings to the tournament's pages (``live.announce``: now or after the quiet second)."""
    from tournaments.live import send_standings

    send_standings(tournament_id)
