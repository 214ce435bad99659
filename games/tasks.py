"""Celery tasks of live play. Each is a thin, idempotent wrapper around a service.

Every task re-checks the game inside a locked transaction (the ply it was
scheduled for, the offer's timestamp), so a late, repeated or redelivered task
(``acks_late``) changes nothing the second time.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from celery import shared_task
from channels.layers import get_channel_layer
from django.db import OperationalError

from accounts.identity import Identity
from games import services

# acks_late + reject_on_worker_lost: a task whose worker dies is delivered again;
# harmless, because every task re-checks the game under its row lock.
RELIABLE = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


def _reply_error(channel_name: str | None, exc: services.GameError) -> None:
    if channel_name:
        async_to_sync(get_channel_layer().send)(
            channel_name, {"type": "game.error", "code": exc.code, "message": exc.message}
        )


def _identity(user_id: int | None, guest_key: str | None) -> Identity:
    from accounts.guests import Guest
    from accounts.models import User

    user = User.objects.filter(pk=user_id).first() if user_id else None
    guest = Guest(key=guest_key, name="") if guest_key and user is None else None
    return Identity(user=user, guest=guest)


@shared_task(**RELIABLE)
def computer_move(game_id: int, ply: int) -> None:
    services.computer_move_for(game_id, ply)


@shared_task(**RELIABLE)
def flag(game_id: int, ply: int) -> None:
    services.flag(game_id)


@shared_task(name="games.schedule_flags", acks_late=True, expires=25)
def schedule_flags() -> int:
    """Periodic (beat): queue flag tasks for clocks about to run out."""
    return services.schedule_flags()


@shared_task(**RELIABLE)
def lapse_draw_offer(game_id: int, offered_at: str) -> None:
    services.lapse_draw_offer(game_id=game_id, offered_at=offered_at)


@shared_task(**RELIABLE)
def draw_command(game_id: int, command: str, user_id: int | None, guest_key: str | None,
                 reply_channel: str | None = None) -> None:
    """Offer, accept or decline a draw on behalf of a player (refusals go to their socket)."""
    identity = _identity(user_id, guest_key)
    try:
        if command == "offer":
            services.offer_draw(game_id=game_id, identity=identity)
        elif command in ("accept", "decline"):
            services.answer_draw(game_id=game_id, identity=identity, accept=command == "accept")
    except services.GameError as exc:
        _reply_error(reply_channel, exc)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=5,
)
def analyse_game(analysis_id: int) -> None:
    """Computer analysis of a finished game; resumable (each position is stored as it is done).

    Always sent to queue ``analysis`` (``games.analysis.ANALYSIS_QUEUE``), never in
    front of live games' tasks.
    """
    from games import analysis

    try:
        analysis.run_analysis(analysis_id)
    except OperationalError:
        raise
    except Exception as exc:
        analysis.mark_failed(analysis_id, f"{type(exc).__name__}: {exc}")
        raise


@shared_task(acks_late=True, reject_on_worker_lost=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def evaluate_position(evaluation_id: int) -> None:
    """One position of the analysis board (sent to queue ``analysis``)."""
    from games import analysis

    analysis.run_board_evaluation(evaluation_id)
