"""Moves: a player's, the computer's, and the forced passes the server plays for them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.identity import Identity
from games import rows
from games.engines.base import Outcome
from games.models import EndReason, Game, Move
from games.services.base import (
    Code,
    GameError,
    MoveResult,
    commit_and_announce,
    locked,
    now,
    require_active,
    side_of,
)
from games.services.ending import finish, flag_if_expired

logger = logging.getLogger(__name__)

SERVER_CLIENT_ID = "server"  # a forced pass, played by the server
COMPUTER_CLIENT_ID = "computer"


StoreMove = Callable[[Move], None]


def apply_move(
    game: Game, side: int, token: str, *, client_id: str, at: datetime, store: StoreMove = rows.insert_move
) -> None:
    """Store one legal move and its clock; the caller has checked turn and legality.

    ``store`` writes the ``Move`` row: at once inside the caller's transaction, or
    (the fast path, ``games.live``) kept for the one statement that writes the move.
    """
    engine = game.engine
    state = engine.play(game.engine_state(), token)
    used = 0
    if game.turn_started_at is not None:
        used = max(0, int((at - game.turn_started_at).total_seconds() * 1000))
    left = game.clock_ms(side)
    if game.time_control:
        left -= used
        game.set_clock(side, left)
    store(
        Move(
            game=game,
            ply=game.ply,
            token=token,
            side=side,
            client_id=client_id[:40],
            time_used_ms=used,
            clock_left_ms=left,
            created_at=at,
        )
    )
    game.tokens = [*game.tokens, token]
    game.ply += 1
    game.set_engine_state(state)
    game.turn_started_at = at


def check_move(game: Game, side: int, token: str, ply: int) -> None:
    """Refuse a move that is not ``side``'s legal move at ``ply`` of an active game."""
    require_active(game)
    engine = game.engine
    state = game.engine_state()
    if engine.to_move(state) != side:
        raise GameError(Code.NOT_YOUR_TURN, _("It is not your turn."))
    if ply != game.ply:
        raise GameError(Code.STALE, _("The position has changed; your board has been brought up to date."))
    if token not in engine.legal_moves(state):
        raise GameError(Code.ILLEGAL, _("That move is not legal here."))


def make_move(
    game: Game, side: int, token: str, *, client_id: str, at: datetime, by_player: bool, store: StoreMove
) -> Outcome | None:
    """Apply a checked move and the forced passes after it; the game's outcome if it is now over."""
    apply_move(game, side, token, client_id=client_id, at=at, store=store)
    # A move answers any pending draw offer from the other side with "no".
    if game.draw_offer_side is not None and game.draw_offer_side != side:
        game.clear_draw_offer()
    if by_player:
        game.redo_moves = []  # a new move of the player's own replaces what undo took back
    engine = game.engine
    state = game.engine_state()
    while (outcome := engine.outcome(state)) is None:
        moves = engine.legal_moves(state)
        if moves != [engine.pass_move]:
            return None
        # A forced pass is played by the server at once: nobody has to click "pass".
        apply_move(game, engine.to_move(state), moves[0], client_id=SERVER_CLIENT_ID, at=at, store=store)
        state = game.engine_state()
    return outcome


def _play(game_id: int, side_for, token: str, ply: int, client_id: str, *, by_player: bool) -> MoveResult:
    if not isinstance(token, str) or not isinstance(ply, int) or isinstance(ply, bool):
        raise GameError(Code.MALFORMED, _("A move needs a move token and the ply number."))
    with transaction.atomic():
        game = locked(game_id)
        side = side_for(game)
        if client_id and ply < game.ply:
            original = Move.objects.filter(game=game, ply=ply, side=side, client_id=client_id[:40]).first()
            if original is not None:
                return MoveResult(ply=original.ply, version=game.version, duplicate=True)
        require_active(game)
        if flag_if_expired(game):
            return MoveResult(ply=game.ply, version=game.version, flagged=True)
        check_move(game, side, token, ply)
        outcome = make_move(
            game, side, token, client_id=client_id, at=now(), by_player=by_player, store=rows.insert_move
        )
        if outcome is not None:
            finish(game, winner=outcome.winner, reason=EndReason(outcome.reason))
        else:
            commit_and_announce(game, "move")
        return MoveResult(ply=ply, version=game.version)


def play_move(*, game_id: int, identity: Identity, token: str, ply: int, client_id: str = "") -> MoveResult:
    """Apply a player's move made at ``ply``.

    A resent move (same ply and client id, already stored) returns the original
    result and changes nothing.
    """
    return _play(game_id, lambda game: side_of(game, identity), token, ply, client_id, by_player=True)


def play_computer_move(*, game_id: int, side: int, token: str, ply: int) -> MoveResult:
    """Apply the computer's move for ``side``, chosen for ``ply``: checked like a player's."""
    return _play(game_id, lambda game: side, token, ply, COMPUTER_CLIENT_ID, by_player=False)


def computer_move_for(game_id: int, ply: int) -> None:
    """Compute and play the computer's move if it is still its turn at ``ply``.

    The search runs outside any transaction (it can take a second); the move
    then goes through the same checks as a player's, whose ply check makes a
    late or repeated task harmless.
    """
    from games.ai import choose_move

    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.ply != ply:
        return
    engine = game.engine
    state = game.engine_state()
    side = engine.to_move(state)
    level = game.ai_of(side)
    if not level or engine.outcome(state) is not None:
        return
    token = choose_move(engine, state, level, seed=game_id * 1000 + ply)
    try:
        play_computer_move(game_id=game_id, side=side, token=token, ply=ply)
    except GameError as exc:
        logger.info("computer move for game %s at ply %s dropped: %s", game_id, ply, exc.code)
