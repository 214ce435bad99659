"""What a command gets: decided once, by the same functions, on whichever path it arrives.

A move reaches the server on one of two paths: the locked transaction
(``services.moves``) or the compare-and-set statement of the fast path
(``games.live.fastpath``). Both hand the game row they hold to ``decide_move`` and act on
the decision it returns; every other player command asks ``gate`` first (the
envelope, ``services.envelope``). The functions here do no I/O: they read the
``Game`` they are given and, for a move that applies, change it in memory (the
caller stores it, or throws the copy away).

The order of the checks is the protocol's (docs/protocol.md): a resent move is
answered as it was first; then the clock (a side whose time has run out loses
before anything else happens, whoever sent the command); then whether the game
is on; then turn, ply and legality.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import gettext as _

from games.engines.base import Outcome
from games.models import Game, Move
from games.services.base import Code, GameError

SERVER_CLIENT_ID = "server"  # a forced pass, played by the server
COMPUTER_CLIENT_ID = "computer"

StoreMove = Callable[[Move], None]


@dataclass(frozen=True, slots=True)
class Go:
    """The command may be carried out."""


@dataclass(frozen=True, slots=True)
class Apply:
    """A legal move, applied to the game in memory: the ``Move`` rows to store, and the outcome if it ended the game."""

    moves: tuple[Move, ...]
    outcome: Outcome | None


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A resent move that was stored already: answered as the first time, nothing changes."""

    ply: int


@dataclass(frozen=True, slots=True)
class Resent:
    """A move for an earlier ply with a client id: only the stored moves can tell a resend from a stale move."""

    ply: int


@dataclass(frozen=True, slots=True)
class Flag:
    """The clock of ``side`` (the side to move) has run out: the game ends on time first."""

    side: int


@dataclass(frozen=True, slots=True)
class Refuse:
    """The command is refused; nothing changes."""

    code: Code
    message: str

    def error(self) -> GameError:
        return GameError(self.code, self.message)


Decision = Go | Apply | Duplicate | Resent | Flag | Refuse
MoveDecision = Apply | Duplicate | Resent | Flag | Refuse

GO = Go()


def expired_side(game: Game, at: datetime) -> int | None:
    """The side to move if its clock (its correspondence deadline, its first move's window) has run out at ``at``, else None."""
    if game.status != Game.Status.ACTIVE or not game.time_control:
        return None
    return game.to_move if game.turn_left_ms(now=at) <= 0 else None


def not_active(game: Game) -> Refuse | None:
    """The refusal for a command that needs a running game, if this one is not running."""
    if game.status == Game.Status.WAITING:
        return Refuse(Code.NOT_STARTED, _("The game has not started yet."))
    if game.is_over:
        return Refuse(Code.GAME_OVER, _("The game is over."))
    return None


def gate(game: Game, at: datetime, *, needs_active: bool = True) -> Flag | Refuse | Go:
    """What every player command passes first: the clock, then (unless it works on a finished game) the status."""
    side = expired_side(game, at)
    if side is not None:
        return Flag(side)
    if needs_active and (refusal := not_active(game)) is not None:
        return refusal
    return GO


def out_of_time(flagged: int, actor: int, *, called_off: bool = False) -> GameError:
    """The refusal of a command that arrived after ``flagged``'s clock ran out (the game has ended on time).

    ``called_off``: it was a first move's window that ran out, and the game was called off instead.
    """
    if called_off:
        return GameError(Code.GAME_OVER, _("The first move was not made in time: the game was called off."))
    if flagged == actor:
        return GameError(Code.TIMEOUT, _("Your time ran out: the game is over."))
    return GameError(Code.GAME_OVER, _("Your opponent's time ran out: the game is over."))


def decide_move(
    game: Game,
    side: int,
    token: str,
    ply: int,
    client_id: str,
    *,
    at: datetime,
    by_player: bool,
    already_stored: Callable[[], bool] | None,
) -> MoveDecision:
    """The decision on ``side``'s move ``token`` made at ``ply``, arriving at ``at``.

    ``already_stored`` says whether a move with this client id was stored at
    ``ply`` by ``side`` (the locked path asks the database); None where the
    stored moves cannot be read (the fast path), which then gets ``Resent``.
    On ``Apply`` the game holds the position after the move and any forced passes.
    """
    if client_id and ply < game.ply:
        if already_stored is None:
            return Resent(ply)
        if already_stored():
            return Duplicate(ply)
    verdict = gate(game, at)
    if not isinstance(verdict, Go):
        return verdict
    engine = game.engine
    state = game.engine_state()
    if engine.to_move(state) != side:
        return Refuse(Code.NOT_YOUR_TURN, _("It is not your turn."))
    if ply != game.ply:
        return Refuse(Code.STALE, _("The position has changed; your board has been brought up to date."))
    if token not in engine.legal_moves(state):
        return Refuse(Code.ILLEGAL, _("That move is not legal here."))
    moves: list[Move] = []
    outcome = make_move(
        game, side, token, client_id=client_id, at=at, by_player=by_player, store=moves.append
    )
    return Apply(tuple(moves), outcome)


def apply_move(game: Game, side: int, token: str, *, client_id: str, at: datetime, store: StoreMove) -> None:
    """Play one legal move on the game in memory and charge its clock; ``store`` receives its ``Move`` row."""
    engine = game.engine
    state = engine.play(game.engine_state(), token)
    used = 0
    if game.turn_started_at is not None:
        used = max(0, int((at - game.turn_started_at).total_seconds() * 1000))
    left = game.charge_clock(side, used)
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


def make_move(
    game: Game, side: int, token: str, *, client_id: str, at: datetime, by_player: bool, store: StoreMove
) -> Outcome | None:
    """Apply a checked move and the forced passes after it; the game's outcome if it is now over."""
    apply_move(game, side, token, client_id=client_id, at=at, store=store)
    # A move answers any pending draw offer from the other side with "no".
    if game.draw_offer_side is not None and game.draw_offer_side != side:
        game.clear_draw_offer()
    game.takeback_side = None  # a move lapses a takeback request, whoever asked
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
