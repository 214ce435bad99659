"""Moves: a player's, the computer's, and the forced passes the server plays for them.

Decided by ``decide.decide_move`` (the same function the fast path uses) inside
the command envelope (``envelope.command``), stored and announced here.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.utils.translation import gettext as _

from accounts.identity import Identity
from games.models import EndReason, Game, Move
from games.services.base import Code, GameError, MoveResult, commit_and_announce
from games.services.decide import (
    COMPUTER_CLIENT_ID,
    SERVER_CLIENT_ID,
    Apply,
    Duplicate,
    MoveDecision,
    apply_move,
    decide_move,
)
from games.services.envelope import command, finish
from games.store import rows

logger = logging.getLogger(__name__)

__all__ = [
    "COMPUTER_CLIENT_ID",
    "SERVER_CLIENT_ID",
    "apply_move",
    "computer_move_for",
    "play_computer_move",
    "play_move",
]


def store_and_announce(game: Game, decision: Apply) -> None:
    """The locked backend for a move: its rows, then the game (ended if the move ended it), announced after commit."""
    for move in decision.moves:
        rows.insert_move(move)
    if decision.outcome is not None:
        finish(game, winner=decision.outcome.winner, reason=EndReason(decision.outcome.reason))
    else:
        commit_and_announce(game, "move")


def _play(
    game_id: int, who: Identity | int, token: str, ply: int, client_id: str, *, by_player: bool
) -> MoveResult:
    if not isinstance(token, str) or not isinstance(ply, int) or isinstance(ply, bool):
        raise GameError(Code.MALFORMED, _("A move needs a move token and the ply number."))

    def decide(game: Game, side: int, at: datetime) -> MoveDecision:
        def already_stored() -> bool:
            return Move.objects.filter(game=game, ply=ply, side=side, client_id=client_id[:40]).exists()

        return decide_move(
            game, side, token, ply, client_id, at=at, by_player=by_player, already_stored=already_stored
        )

    def carry_out(game: Game, side: int, decision: MoveDecision) -> MoveResult:
        if isinstance(decision, Duplicate):
            return MoveResult(ply=decision.ply, version=game.version, duplicate=True)
        assert isinstance(decision, Apply), decision  # the locked path reads the stored moves: never Resent
        store_and_announce(game, decision)
        return MoveResult(ply=ply, version=game.version)

    return command(game_id, who, decide, carry_out)


def play_move(*, game_id: int, identity: Identity, token: str, ply: int, client_id: str = "") -> MoveResult:
    """Apply a player's move made at ``ply``.

    A resent move (same ply and client id, already stored) returns the original
    result and changes nothing.
    """
    return _play(game_id, identity, token, ply, client_id, by_player=True)


def play_computer_move(*, game_id: int, side: int, token: str, ply: int) -> MoveResult:
    """Apply the computer's move for ``side``, chosen for ``ply``: checked like a player's."""
    return _play(game_id, side, token, ply, COMPUTER_CLIENT_ID, by_player=False)


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
