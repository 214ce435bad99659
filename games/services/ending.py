"""How games end: on the board, by resignation or exit, or called off."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.identity import Identity
from games.models import EndReason, Game
from games.services.base import Code, GameError, commit_and_announce, locked, now, require_active, side_of
from games.signals import game_finished

ABORT_MAX_PLY = 2  # either player may abort while fewer plies than this were played


def finish(game: Game, *, winner: int | None, reason: EndReason, status: str = Game.Status.FINISHED) -> None:
    """End ``game`` (inside the caller's transaction); ratings hear of it after commit."""
    game.score0, game.score1 = game.engine.score(game.engine_state())
    game.status = status
    game.winner = winner
    game.end_reason = reason
    game.finished_at = now()
    game.clear_draw_offer()
    game.redo_moves = []
    commit_and_announce(game, "end")
    announce_finished(game.pk)


def announce_finished(game_id: int) -> None:
    """Tell the rest of the site (ratings) that the game ended, once the ending commits.

    Every ending sends it, a game called off before it began included: ratings
    then records it as unrated at once instead of the backstop finding it later.
    """
    # Why on_commit: ratings must only ever see a committed result.
    transaction.on_commit(lambda: game_finished.send(sender=Game, game_id=game_id))


def flag_if_expired(game: Game) -> bool:
    """End the game on time if the mover's clock has run out; True if it did."""
    if game.status != Game.Status.ACTIVE or not game.time_control:
        return False
    mover = game.to_move
    if game.remaining_ms(mover, now=now()) > 0:
        return False
    game.set_clock(mover, 0)
    finish(game, winner=1 - mover, reason=EndReason.TIMEOUT)
    return True


def flag(game_id: int) -> bool:
    """End the game on time if the mover's clock is at zero (idempotent); True if it did."""
    with transaction.atomic():
        return flag_if_expired(locked(game_id))


def resign(*, game_id: int, identity: Identity, reason: str = EndReason.RESIGN) -> Game:
    """Resign or exit: a loss for the player who does it."""
    if reason not in (EndReason.RESIGN, EndReason.EXIT):
        raise GameError(Code.MALFORMED, _("Unknown way to leave a game."))
    with transaction.atomic():
        game = locked(game_id)
        side = side_of(game, identity)
        require_active(game)
        if flag_if_expired(game):
            return game
        finish(game, winner=1 - side, reason=EndReason(reason))
    return game


def abort(*, game_id: int, identity: Identity) -> Game:
    """Call a game off before it really began: no winner, never rated."""
    with transaction.atomic():
        game = locked(game_id)
        side_of(game, identity)
        require_active(game)
        if game.ply >= ABORT_MAX_PLY:
            raise GameError(Code.TOO_LATE, _("A game can only be aborted before each side has moved."))
        finish(game, winner=None, reason=EndReason.ABORTED, status=Game.Status.ABORTED)
    return game


def abandon_computer_game(*, game_id: int, identity: Identity) -> Game:
    """Drop an untimed game against the computer: called off, no result, never rated."""
    with transaction.atomic():
        game = locked(game_id)
        side_of(game, identity)
        if not game.against_computer or game.time_control:
            raise GameError(Code.NO_ABANDON, _("Only untimed games against the computer can be abandoned."))
        require_active(game)
        finish(game, winner=None, reason=EndReason.ABANDONED, status=Game.Status.ABORTED)
    return game


def end_for_new_game(game: Game, side: int) -> None:
    """'New game' while this one runs: resigned once both sides have moved, aborted before (never rated)."""
    if game.status != Game.Status.ACTIVE or flag_if_expired(game):
        return
    if game.ply >= ABORT_MAX_PLY:
        finish(game, winner=1 - side, reason=EndReason.RESIGN)
    else:
        finish(game, winner=None, reason=EndReason.ABORTED, status=Game.Status.ABORTED)
