"""The work a game's new state asks of the Celery workers, queued after commit.

Tasks are looked up by name in the Celery app rather than imported: the tasks
module calls the services, so importing it here would make a circle. (By name,
they still run in-process when tests make tasks eager.)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction

from games.models import Game

# A move only queues its clock's flag task when that clock has less than this
# left; longer clocks are flagged by the obligations sweep, so most moves
# publish nothing to the broker.
FLAG_HORIZON = timedelta(seconds=75)


def _task(name: str):
    return current_app.tasks[name]


def computer_move(game_id: int, ply: int) -> None:
    transaction.on_commit(lambda: _task("games.tasks.computer_move").delay(game_id, ply))


def follow_ups(game: Game, *, turn_changed: bool = True) -> list[Callable[[], object]]:
    """What ``game``'s new state asks of the workers: the computer's move, a flag for a clock about to fall,
    and, when a correspondence game's turn passed to a registered player (``turn_changed``), their notice."""
    if game.status != Game.Status.ACTIVE:
        return []
    wanted: list[Callable[[], object]] = []
    game_id, ply, to_move = game.pk, game.ply, game.to_move
    if game.ai_of(to_move):
        wanted.append(lambda: _task("games.tasks.computer_move").delay(game_id, ply))
    mover = game.user_id_of(to_move)
    if turn_changed and game.days_per_move and mover is not None:
        # The mover is seldom on the game's page days later: their notification socket hears it.
        from games.live.events import send_your_turn

        wanted.append(lambda: send_your_turn(mover, game_id))
    left = game.clock_ms(to_move)
    if game.time_control and left <= FLAG_HORIZON.total_seconds() * 1000:
        countdown = max(0.0, left / 1000) + 0.05
        wanted.append(lambda: _task("games.tasks.flag").apply_async((game_id, ply), countdown=countdown))
    return wanted


def follow_up(game: Game, *, turn_changed: bool = True) -> None:
    """Queue ``follow_ups(game)`` once the transaction commits."""
    for send in follow_ups(game, turn_changed=turn_changed):
        transaction.on_commit(send)


def draw_lapse(game_id: int, offered_at: str) -> None:
    countdown = settings.GAMES_DRAW_OFFER_SECONDS
    transaction.on_commit(
        lambda: _task("games.tasks.lapse_draw_offer").apply_async((game_id, offered_at), countdown=countdown)
    )
