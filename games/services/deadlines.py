"""When the server next owes a game something, computed from the game row alone.

``Game.attention_at`` holds the earliest of these; the obligations sweep
(``obligations.attend_overdue``) finds overdue games through its index.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from games.models import Game

COMPUTER_GRACE = timedelta(seconds=5)  # the computer normally answers well within this
# After the sweep re-queues a computer move that never came, it waits this long
# before queueing another: a busy worker is not handed the same search again and again.
COMPUTER_RETRY = timedelta(seconds=10)
WAITING_EXPIRY = timedelta(days=1)  # an invitation or challenge nobody took
IDLE_COMPUTER_EXPIRY = timedelta(days=30)  # an untimed computer game nobody touched
REMATCH_OFFER_LIFETIME = timedelta(seconds=60)  # a rematch offer nobody answered lapses


def draw_offer_lifetime(game: Game) -> timedelta:
    """How long a draw offer waits for its answer: minutes in a live game; in a
    correspondence game the days of a move, since the opponent answers on its own turn."""
    if game.days_per_move:
        return timedelta(days=game.days_per_move)
    return timedelta(seconds=settings.GAMES_DRAW_OFFER_SECONDS)


def rematch_offer_lifetime(game: Game) -> timedelta:
    """A live game's rematch is offered to a player still at the board (60 s); a
    correspondence game's to one who comes back within the days of a move."""
    if game.days_per_move:
        return timedelta(days=game.days_per_move)
    return REMATCH_OFFER_LIFETIME


def next_attention(game: Game, *, now: datetime) -> datetime | None:
    """The next moment the server owes ``game`` something, or None."""
    if game.status == Game.Status.WAITING:
        return (game.created_at or now) + WAITING_EXPIRY
    if game.status != Game.Status.ACTIVE:
        # A finished game owes nothing but the lapse of a rematch offer.
        if game.rematch_offer_at is not None:
            return game.rematch_offer_at + rematch_offer_lifetime(game)
        return None
    due = []
    if game.flag_at is not None:
        due.append(game.flag_at)
    if game.draw_offer_at is not None:
        due.append(game.draw_offer_at + draw_offer_lifetime(game))
    turn_started = game.turn_started_at or now
    if game.ai_of(game.to_move):
        due.append(turn_started + COMPUTER_GRACE)
    elif game.against_computer and not game.time_control:
        due.append(turn_started + IDLE_COMPUTER_EXPIRY)
    return min(due, default=None)


def refresh(game: Game, *, now: datetime) -> None:
    """Recompute ``flag_at``, ``attention_at`` and ``mover`` after any change to the game."""
    game.mover = game.to_move if game.status == Game.Status.ACTIVE else None
    if game.status != Game.Status.ACTIVE or not game.time_control or game.turn_started_at is None:
        game.flag_at = None
    else:
        game.flag_at = game.deadline()
    game.attention_at = next_attention(game, now=now)
