"""Celery tasks of live play. Each is a thin, idempotent wrapper around a service.

Every task re-checks the game inside a locked transaction (the ply it was
scheduled for, the offer's timestamp), so a late, repeated or redelivered task
(``acks_late``) changes nothing the second time.

Flags and draw lapses run on the ``live`` queue, the computer's moves on
``computer-quick`` (Easy, Medium) and ``computer`` (Hard; queue.computer_queue), each with workers of its own: no background
work holds up a computer move, and no computer search holds up a flag.
"""

from __future__ import annotations

from typing import TypedDict

from celery import shared_task
from django.db import OperationalError

from games import services
from games.models import Game
from games.services import analysis, analysis_board, queue


class _TaskOptions(TypedDict):  # typed, so that shared_task(**RELIABLE) matches celery-types' overloads
    acks_late: bool
    reject_on_worker_lost: bool
    autoretry_for: tuple[type[BaseException], ...]
    retry_backoff: bool
    max_retries: int


# acks_late + reject_on_worker_lost: a task whose worker dies is delivered again;
# harmless, because every task re-checks the game under its row lock.
RELIABLE: _TaskOptions = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(**RELIABLE)
def computer_move(game_id: int, ply: int) -> None:
    # computer_move_for checks that the game is still at ``ply``.
    queue.computer_move_started(game_id, ply)
    services.computer_move_for(game_id, ply)


@shared_task(**RELIABLE)
def flag(game_id: int, ply: int) -> None:
    # Queued for the clock of the mover at ``ply``. Once a move was made that clock
    # stopped, and this task stands for the clock running now (queue.arm_flag); so
    # it does when it comes early for its own ply (a takeback, then the same move again).
    at_ply = Game.objects.filter(pk=game_id, ply=ply).exists()
    if at_ply and services.flag(game_id):
        return
    queue.rearm_flag(game_id, overdue=not at_ply)


@shared_task(name="games.attend_overdue", acks_late=True)
def attend_overdue() -> int:
    """Periodic (beat, every GAMES_SWEEP_SECONDS): whatever overdue games are owed.

    The backstop for every other task here: a computer move, flag or lapse whose
    message was lost with a worker is re-derived from the database and done.
    """
    from games.services import pairing

    # The same beat widens the quick-pairing ranges and pairs whoever now fits.
    return services.attend_overdue() + pairing.sweep()


@shared_task(name="games.correspondence_mails", acks_late=True)
def correspondence_mails() -> int:
    """Periodic (beat, every GAMES_MAIL_SWEEP_SECONDS): the correspondence mails now due, each exactly once."""
    from games.services.correspondence_mail import send_due_mails

    return send_due_mails()


@shared_task(**RELIABLE)
def lapse_draw_offer(game_id: int, offered_at: str) -> None:
    # A game deleted since (with the account that played it) has no offer left to lapse.
    if Game.objects.filter(pk=game_id).exists():
        services.lapse_draw_offer(game_id=game_id, offered_at=offered_at)


@shared_task(**RELIABLE)
def analyse_game(analysis_id: int) -> None:
    """Computer analysis of a finished game; resumable (each position is stored as it is done).

    Always sent to queue ``analysis`` (``games.services.analysis.ANALYSIS_QUEUE``), never in
    front of live games' tasks.
    """
    try:
        analysis.run_analysis(analysis_id)
    except OperationalError:
        raise
    except Exception as exc:
        analysis.mark_failed(analysis_id, f"{type(exc).__name__}: {exc}")
        raise


@shared_task(**RELIABLE)
def evaluate_position(evaluation_id: int) -> None:
    """One position of the analysis board (sent to queue ``analysis``)."""
    analysis_board.run_board_evaluation(evaluation_id)
