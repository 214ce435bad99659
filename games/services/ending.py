"""How games end: on the board, by resignation or exit, or called off; and flags."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.identity import Identity
from games.models import CLOCK_START_PLY, EndReason, Game
from games.services.base import Code, GameError, locked
from games.services.envelope import announce_finished, finish, flag_if_expired, player_command

ABORT_MAX_PLY = (
    CLOCK_START_PLY  # either player may abort while fewer plies than this were played (no clock ran yet)
)

__all__ = [
    "ABORT_MAX_PLY",
    "abandon_computer_game",
    "abort",
    "announce_finished",
    "end_for_new_game",
    "finish",
    "flag",
    "flag_if_expired",
    "resign",
]


def flag(game_id: int) -> bool:
    """End the game on time if the mover's clock is at zero (idempotent); True if it did."""
    with transaction.atomic():
        return flag_if_expired(locked(game_id))


def resign(*, game_id: int, identity: Identity, reason: str = EndReason.RESIGN) -> Game:
    """Resign or exit: a loss for the player who does it."""
    if reason not in (EndReason.RESIGN, EndReason.EXIT):
        raise GameError(Code.MALFORMED, _("Unknown way to leave a game."))
    how = EndReason(reason)

    def act(game: Game, side: int) -> Game:
        finish(game, winner=1 - side, reason=how)
        return game

    return player_command(game_id, identity, act)


def abort(*, game_id: int, identity: Identity) -> Game:
    """Call a game off before it really began: no winner, never rated."""

    def act(game: Game, side: int) -> Game:
        if game.ply >= ABORT_MAX_PLY:
            raise GameError(Code.TOO_LATE, _("A game can only be aborted before each side has moved."))
        finish(game, winner=None, reason=EndReason.ABORTED, status=Game.Status.ABORTED)
        return game

    return player_command(game_id, identity, act)


def abandon_computer_game(*, game_id: int, identity: Identity) -> Game:
    """Drop an untimed game against the computer: called off, no result, never rated."""

    def act(game: Game, side: int) -> Game:
        if not game.against_computer or game.time_control:
            raise GameError(Code.NO_ABANDON, _("Only untimed games against the computer can be abandoned."))
        finish(game, winner=None, reason=EndReason.ABANDONED, status=Game.Status.ABORTED)
        return game

    return player_command(game_id, identity, act)


def end_for_new_game(game: Game, side: int) -> None:
    """'New game' while this one runs: resigned once both sides have moved, aborted before (never rated).

    Called inside the command envelope, which has already ended a game whose clock ran out.
    """
    if game.status != Game.Status.ACTIVE:
        return
    if game.ply >= ABORT_MAX_PLY:
        finish(game, winner=1 - side, reason=EndReason.RESIGN)
    else:
        finish(game, winner=None, reason=EndReason.ABORTED, status=Game.Status.ABORTED)
