"""Celery tasks: thin wrappers around ratings.services."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import OperationalError

logger = logging.getLogger(__name__)


# acks_late: the message is acknowledged only after the task returns, so a worker
# killed mid-task leaves it on the broker to be delivered again. reject_on_worker_lost:
# the same when only the pool's child process dies (Celery would otherwise ack it).
# Both are safe because the service is idempotent (see apply_ratings_for_game).
@shared_task(
    name="ratings.apply_ratings",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),  # a lock timeout or a dropped connection: try again
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=8,
)
def apply_ratings(game_id: int) -> str:
    from ratings.services import apply_ratings_for_game

    return apply_ratings_for_game(game_id=game_id)


@shared_task(name="ratings.apply_missing_ratings", acks_late=True)
def apply_missing_ratings() -> int:
    """Backstop for a periodic schedule: enqueue games whose ratings task never ran."""
    from datetime import timedelta

    from django.conf import settings

    from ratings.services import games_missing_ratings

    # Older than one backstop period: a game that just ended has its own task in flight.
    game_ids = games_missing_ratings(older_than=timedelta(seconds=settings.RATINGS_BACKSTOP_SECONDS))
    for game_id in game_ids:
        apply_ratings.delay(game_id)
    if game_ids:
        logger.warning("ratings: re-enqueued %d ended games that were never applied", len(game_ids))
    return len(game_ids)
