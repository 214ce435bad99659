"""What the server owes each game, redone from the database whenever it is overdue.

The computer's move, a clock that runs out, a draw offer's lapse and the expiry
of untouched games are each queued as a task when they arise; but a task can be
lost with its worker or with the broker's data. The sweep (``attend_overdue``,
run by beat every GAMES_SWEEP_SECONDS) finds every game whose ``attention_at``
has passed and attends it under its row lock, so running it twice, late, or
from two processes at once is harmless.
"""

from __future__ import annotations

import logging
from datetime import datetime
from enum import StrEnum

from django.db import transaction

from games.models import EndReason, Game
from games.services import queue
from games.services.base import GameError, commit_and_announce, locked, now
from games.services.deadlines import (
    COMPUTER_GRACE,
    COMPUTER_RETRY,
    IDLE_COMPUTER_EXPIRY,
    WAITING_EXPIRY,
    next_attention,
)
from games.services.draws import draw_offer_live
from games.services.envelope import finish, flag_if_expired
from games.services.rematch import lapse_rematch_offer
from games.services.setup import expire_waiting_game
from games.store import rows

logger = logging.getLogger(__name__)


class Attended(StrEnum):
    """What ``attend`` did for a game."""

    EXPIRED = "expired"  # an invitation nobody took, or an untimed computer game nobody touched
    FLAGGED = "flagged"
    DRAW_LAPSED = "draw_lapsed"
    COMPUTER_MOVE = "computer_move"  # queued again
    REMATCH_LAPSED = "rematch_lapsed"


def attend(game_id: int) -> Attended | None:
    """Do whatever this game is owed now; returns what was done (None for nothing)."""
    moment = now()
    with transaction.atomic():
        try:
            game = locked(game_id)
        except GameError:
            return None
        if game.status == Game.Status.WAITING and moment >= game.created_at + WAITING_EXPIRY:
            expire_waiting_game(game)
            return Attended.EXPIRED
        if game.is_over and lapse_rematch_offer(game, at=moment):
            return Attended.REMATCH_LAPSED
        if game.status == Game.Status.ACTIVE:
            if flag_if_expired(game):
                return Attended.FLAGGED
            if game.draw_offer_at is not None and not draw_offer_live(game, at=moment):
                game.clear_draw_offer()
                commit_and_announce(game, "draw_lapsed")
                return Attended.DRAW_LAPSED
            idle = moment - (game.turn_started_at or moment)
            if level := game.ai_of(game.to_move):
                if idle >= COMPUTER_GRACE:
                    _store_attention(game, moment + COMPUTER_RETRY)
                    # Still waiting in its queue (issue #38: a flood's queue was multiplied
                    # by this sweep sending every late move again every 10 s): look again later.
                    if queue.computer_move_pending(game_id, game.ply):
                        return None
                    queue.computer_move(game_id, game.ply, level)
                    return Attended.COMPUTER_MOVE
            elif game.against_computer and not game.time_control and idle >= IDLE_COMPUTER_EXPIRY:
                finish(game, winner=None, reason=EndReason.EXPIRED, status=Game.Status.ABORTED)
                return Attended.EXPIRED
        _store_attention(game, next_attention(game, now=moment))
        return None


def _store_attention(game: Game, when: datetime | None) -> None:
    # Bookkeeping only: players see nothing new, so no version bump, no broadcast.
    if game.attention_at != when:
        game.attention_at = when
        rows.save_game(game)


def attend_overdue(*, limit: int = 500) -> int:
    """The obligations sweep: attend every overdue game; returns how many needed something done."""
    overdue = (
        Game.objects.filter(attention_at__lte=now()).order_by("attention_at").values_list("pk", flat=True)
    )
    done = 0
    for game_id in list(overdue[:limit]):
        try:
            done += attend(game_id) is not None
        except Exception:  # one broken game must not starve the others
            logger.exception("obligations sweep: game %s", game_id)
    return done
