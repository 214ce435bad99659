"""The work a game's new state asks of the Celery workers, queued after commit.

The tasks are ``games.tasks``'s objects, handed to ``use_tasks`` by
``GamesConfig.ready()`` in every process: the tasks module calls the services,
so the services cannot import it (that would be a circle, and a services ->
tasks arrow the layers forbid). What the services may queue is declared once,
in ``Tasks``; no task is looked up by its name.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from celery import Task
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from games import bus
from games.models import Game

logger = logging.getLogger(__name__)

# A move only queues its clock's flag task when that clock has less than this
# left; longer clocks are flagged by the obligations sweep, so most moves
# publish nothing to the broker.
FLAG_HORIZON = timedelta(seconds=75)
# A pending flag task this much later than a new clock's end still stands for it:
# both ends are reckoned from moments a few milliseconds apart (see ``arm_flag``).
FLAG_SLACK_SECONDS = 0.25
# A computer move sent to the broker counts as pending (the sweep does not queue it
# again) until its task starts, or for at most this long: a task lost in a way that
# left the mark (a worker killed after taking it, before running it) is redone by the
# sweep this much later at worst. Lost with Redis, the task and the mark go together.
COMPUTER_PENDING_SECONDS = 60


@dataclass(frozen=True)
class Tasks:
    """The tasks the services queue (``games.tasks``), by what each does."""

    computer_move: Task[[int, int], None]  # (game_id, ply)
    flag: Task[[int, int], None]  # (game_id, ply)
    lapse_draw_offer: Task[[int, str], None]  # (game_id, offered_at)
    analyse_game: Task[[int], None]  # (analysis_id,)
    evaluate_position: Task[[int], None]  # (evaluation_id,)


_tasks: Tasks | None = None


def use_tasks(tasks: Tasks) -> None:
    """Hand the services the tasks they queue (``GamesConfig.ready()``, once per process)."""
    global _tasks
    _tasks = tasks


def tasks() -> Tasks:
    """The tasks handed to ``use_tasks``; an error if the games app is not ready yet."""
    if _tasks is None:
        raise RuntimeError("games.services.queue: no tasks yet (GamesConfig.ready() hands them over)")
    return _tasks


def computer_queue(level: str) -> str | None:
    """The queue of a computer move at ``level``: the quick one for cheap searches, else None (routed).

    Why (issue #38): on one FIFO queue another player's Easy reply (0.05 s of search)
    waited behind every Hard search (1 s) of a flood, 7.8 s at the median. The level
    is only known here, when the move is sent, so the queue is chosen here; Hard
    follows CELERY_TASK_ROUTES.
    """
    return settings.COMPUTER_QUICK_QUEUE if level in settings.COMPUTER_QUICK_LEVELS else None


def _pending_key(game_id: int, ply: int) -> str:
    return f"games:{game_id}:computer-pending:{ply}"


def send_computer_move(game_id: int, ply: int, level: str) -> None:
    """Send the computer's move for ``ply`` to its level's queue, marked pending until its task starts.

    A broker that refuses it clears the mark (and the error goes on to the caller),
    so the sweep queues it again after its grace.
    """
    key = _pending_key(game_id, ply)
    try:
        cache.set(key, 1, timeout=COMPUTER_PENDING_SECONDS)
    except Exception:  # the cache unreachable: the move is sent all the same, the sweep may send another
        logger.warning("computer move of game %s: pending mark not stored", game_id, exc_info=True)
    options: dict[str, Any] = {"queue": name} if (name := computer_queue(level)) else {}
    try:
        tasks().computer_move.apply_async((game_id, ply), **options)
    except BaseException:
        with contextlib.suppress(Exception):  # the same outage, most likely; the mark expires by itself
            cache.delete(key)
        raise


def computer_move_pending(game_id: int, ply: int) -> bool:
    """Whether the computer's move for ``ply`` was sent and its task has not started (nor its mark expired)."""
    try:
        return cache.get(_pending_key(game_id, ply)) is not None
    except Exception:  # the cache unreachable: better a task twice than none
        return False


def computer_move_started(game_id: int, ply: int) -> None:
    """The task runs: from now on a move that does not come was lost with its worker."""
    try:
        cache.delete(_pending_key(game_id, ply))
    except Exception:  # the mark expires by itself
        logger.warning("computer move of game %s: pending mark not cleared", game_id, exc_info=True)


def computer_move(game_id: int, ply: int, level: str) -> None:
    transaction.on_commit(lambda: send_computer_move(game_id, ply, level), robust=True)


def follow_ups(game: Game, *, turn_changed: bool = True) -> list[Callable[[], object]]:
    """What ``game``'s new state asks of the workers: the computer's move, a flag for a clock about to fall,
    and, when a correspondence game's turn passed to a registered player (``turn_changed``), their notice."""
    if game.status != Game.Status.ACTIVE:
        return []
    wanted: list[Callable[[], object]] = []
    game_id, ply, to_move = game.pk, game.ply, game.to_move
    if level := game.ai_of(to_move):
        wanted.append(lambda: send_computer_move(game_id, ply, level))
    mover = game.user_id_of(to_move)
    if turn_changed and game.days_per_move and mover is not None:
        # The mover is seldom on the game's page days later: their notification socket hears it.
        wanted.append(lambda: bus.send_your_turn(mover, game_id))
    left = game.turn_window_ms(to_move)  # before the clocks start, the first move's window
    if game.time_control and left <= FLAG_HORIZON.total_seconds() * 1000:
        countdown = max(0.0, left / 1000) + 0.05
        wanted.append(lambda: arm_flag(game_id, ply, countdown))
    return wanted


def _flag_key(game_id: int) -> str:
    return f"games:{game_id}:flag-due"


def arm_flag(game_id: int, ply: int, countdown: float) -> bool:
    """Queue the flag task of the clock running at ``ply``, unless the game's pending one comes no later.

    Why: a one-minute game queued a task per move, each due up to a minute
    later and nearly all finding the game moved on; hundreds of games made
    thousands of due tasks that held up every other task of the worker
    (tournament results, computer moves). A pending task that comes first
    stands for the later clocks: finding the game moved on, it arms the clock
    running then (``rearm_flag``). Returns whether a task was queued. If the
    cache forgets, a task more is queued (harmless); if a task is lost, the
    obligations sweep flags the clock.
    """
    due = time.time() + countdown
    pending = cache.get(_flag_key(game_id))
    if pending is not None and time.time() < pending <= due + FLAG_SLACK_SECONDS:
        return False
    cache.set(_flag_key(game_id), due, timeout=int(countdown) + 60)
    tasks().flag.apply_async((game_id, ply), countdown=countdown)
    return True


def rearm_flag(game_id: int, *, overdue: bool = True) -> bool:
    """A flag task found its game moved on, or came early: queue the one of the clock running now.

    ``overdue``: also a clock already out (the game moved on to it). A task that
    found its own clock out and yet flagged nothing leaves it to the sweep, rather
    than queueing itself again and again (see ``arm_flag``).
    """
    row = (
        Game.objects.filter(pk=game_id, status=Game.Status.ACTIVE, flag_at__isnull=False)
        .values_list("ply", "flag_at")
        .first()
    )
    if row is None:
        return False
    ply, flag_at = row
    if flag_at is None:  # the filter leaves none out; this tells mypy
        return False
    left = (flag_at - timezone.now()).total_seconds()
    if left <= 0 and not overdue:
        return False
    countdown = max(0.0, left) + 0.05
    if countdown > FLAG_HORIZON.total_seconds():
        return False  # the obligations sweep flags a longer clock
    return arm_flag(game_id, ply, countdown)


def follow_up(game: Game, *, turn_changed: bool = True) -> None:
    """Queue ``follow_ups(game)`` once the transaction commits.

    robust: a task the broker refuses is logged and the change stays committed;
    the obligations sweep queues what the game row still owes (``obligations.attend``).
    """
    for send in follow_ups(game, turn_changed=turn_changed):
        transaction.on_commit(send, robust=True)


def draw_lapse(game_id: int, offered_at: str) -> None:
    countdown = settings.GAMES_DRAW_OFFER_SECONDS
    transaction.on_commit(
        lambda: tasks().lapse_draw_offer.apply_async((game_id, offered_at), countdown=countdown),
        robust=True,
    )
