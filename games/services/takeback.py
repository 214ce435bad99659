"""Against the computer: undo your last move (and the computer's reply), redo them."""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.identity import Identity
from games.models import EndReason, Game, Move
from games.services.base import Code, GameError, commit_and_announce, now
from games.services.decide import COMPUTER_CLIENT_ID, SERVER_CLIENT_ID, apply_move
from games.services.envelope import finish, player_command
from games.store import rows

REDO_CLIENT_ID = "redo"


def undo(*, game_id: int, identity: Identity) -> Game:
    """Take back your last move and everything after it (the computer's reply, forced passes).

    Nothing is given back on the clocks: the moves taken back keep the time they
    used, and so does the turn under way (docs/protocol.md, "Undo and the clock").
    """

    def act(game: Game, side: int) -> Game:
        if not game.against_computer:
            raise GameError(Code.NO_UNDO, _("Moves can only be taken back against the computer."))
        if game.to_move != side:
            raise GameError(Code.NOT_YOUR_TURN, _("Wait for the computer's move."))
        moves = list(Move.objects.filter(game=game).order_by("ply"))
        # Drop moves from the end until one of ours (not a forced pass) is gone.
        cut = len(moves)
        while cut > 0:
            cut -= 1
            if moves[cut].side == side and moves[cut].client_id != SERVER_CLIENT_ID:
                break
        else:
            raise GameError(Code.NOTHING_TO_UNDO, _("There is no move of yours to take back."))
        removed = moves[cut:]
        Move.objects.filter(game=game, ply__gte=cut).delete()
        game.redo_moves = [m.token for m in removed] + list(game.redo_moves)
        _rebuild(game, [m.token for m in moves[:cut]], side=side)
        commit_and_announce(game, "undo")
        return game

    return player_command(game_id, identity, act)


def redo(*, game_id: int, identity: Identity) -> Game:
    """Replay what undo took back, up to and including the computer's reply."""

    def act(game: Game, side: int) -> Game:
        if not game.redo_moves:
            raise GameError(Code.NOTHING_TO_REDO, _("There is nothing to redo."))
        at = now()
        engine = game.engine
        redo_moves = list(game.redo_moves)
        # Replay our move, then everything up to our next turn.
        first = True
        while redo_moves:
            state = game.engine_state()
            mover = engine.to_move(state)
            if mover == side and not first:
                break
            token = redo_moves.pop(0)
            if token not in engine.legal_moves(state):
                redo_moves = []
                break
            if token == engine.pass_move:
                client = SERVER_CLIENT_ID
            else:
                client = COMPUTER_CLIENT_ID if mover != side else REDO_CLIENT_ID
            apply_move(game, mover, token, client_id=client, at=at, store=rows.insert_move)
            first = False
        game.redo_moves = redo_moves
        outcome = engine.outcome(game.engine_state())
        if outcome is not None:
            finish(game, winner=outcome.winner, reason=EndReason(outcome.reason))
        else:
            commit_and_announce(game, "redo")
        return game

    return player_command(game_id, identity, act)


def _rebuild(game: Game, tokens: list[str], *, side: int) -> None:
    """The position after ``tokens``, ``side`` to move, its clock charged with the turn under way.

    ``clock_ms(side)`` is what ``side`` had left when the turn began; the time
    since then is spent, so it is charged before the turn starts again now.
    """
    at = now()
    if game.time_control:
        game.set_clock(side, game.remaining_ms(side, now=at))
    engine = game.engine
    state = game.start_state()
    for token in tokens:
        state = engine.play(state, token)
    game.tokens = tokens
    game.ply = len(tokens)
    game.set_engine_state(state)
    game.turn_started_at = at
