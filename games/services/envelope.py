"""The one way a player's command reaches a game, and the one way a game ends.

Every player action (a move, resign, exit, abort, a draw offer or answer,
undo, redo, "New game", abandon) runs inside ``command``: the transaction, the
row locked, the player's side, then the command's decision, which always
starts with the clock (``decide.gate``). If the side to move has run out of
time when any command arrives, the game ends on time first and is stored and
announced; the command is then refused (``decide.out_of_time``: ``timeout``
for the player whose clock fell, ``game_over`` for the opponent), after the
flag has committed. A correspondence game's deadline is its mover's clock
(``Game.charge_clock`` resets it to the days per move after each move), so an
expired move is caught here like any fallen flag. A command that works on a finished game ("New game") goes
on after the flag. The fast path (``games.live.fastpath``) decides moves with the same
``decide_move`` and hands over to the locked path whatever it cannot store.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from django.db import transaction

from accounts.identity import Identity
from games.models import CLOCK_START_PLY, EndReason, Game
from games.services.base import GameError, commit_and_announce, locked, now, side_of
from games.services.decide import Decision, Flag, Go, Refuse, expired_side, gate, out_of_time
from games.signals import game_finished

T = TypeVar("T")
D = TypeVar("D", bound=Decision)


def finish(game: Game, *, winner: int | None, reason: EndReason, status: str = Game.Status.FINISHED) -> None:
    """End ``game`` (inside the caller's transaction); ratings hear of it after commit."""
    game.score0, game.score1 = game.engine.score(game.engine_state())
    game.status = status
    game.winner = winner
    game.end_reason = reason
    game.finished_at = now()
    game.clear_draw_offer()
    game.takeback_side = None  # nothing is left to take back in a finished game
    game.redo_moves = []
    commit_and_announce(game, "end")
    announce_finished(game.pk)


def announce_finished(game_id: int) -> None:
    """Tell the rest of the site (ratings) that the game ended, once the ending commits.

    Every ending sends it, a game called off before it began included: ratings
    then records it as unrated at once instead of the backstop finding it later.
    """
    # Why on_commit: ratings must only ever see a committed result.
    # robust: a receiver that fails (the broker out of reach) is logged; the ratings
    # backstop and the tournaments sweep find the game from the database.
    transaction.on_commit(lambda: game_finished.send(sender=Game, game_id=game_id), robust=True)


def flag_on_time(game: Game, side: int) -> None:
    """``side``'s clock has run out: a loss on time (inside the caller's transaction).

    Before each side has moved (``Game.clocks_started``) it was the first move's
    window (or a correspondence game's first deadline): the game is called off,
    never rated, as lichess does (docs/decisions.md).
    """
    if game.ply < CLOCK_START_PLY:
        finish(game, winner=None, reason=EndReason.ABORTED, status=Game.Status.ABORTED)
        return
    game.set_clock(side, 0)
    finish(game, winner=1 - side, reason=EndReason.TIMEOUT)


def flag_if_expired(game: Game, at: datetime | None = None) -> bool:
    """End the game on time if the mover's clock has run out; True if it did."""
    side = expired_side(game, now() if at is None else at)
    if side is None:
        return False
    flag_on_time(game, side)
    return True


def command(
    game_id: int,
    who: Identity | int,
    decide: Callable[[Game, int, datetime], D],
    carry_out: Callable[[Game, int, D], T],
    *,
    goes_on_after_flag: bool = False,
) -> T:
    """Run one command on the game, under its row lock.

    ``who`` is the player (an ``Identity``: a spectator is refused) or, for the
    server's own players (the computer), the side. ``decide`` gets the locked
    game, the side and the moment, and returns the decision (its first check
    is ``decide.gate``); a ``Refuse`` changes nothing, a ``Flag`` ends the game
    on time and refuses the command after commit (or, with
    ``goes_on_after_flag``, then carries it out on the finished game);
    anything else goes to ``carry_out``.
    """
    refusal: GameError
    with transaction.atomic():
        game = locked(game_id)
        side = who if isinstance(who, int) else side_of(game, who)
        decision = decide(game, side, now())
        if isinstance(decision, Refuse):
            raise decision.error()
        if not isinstance(decision, Flag):
            return carry_out(game, side, decision)
        flag_on_time(game, decision.side)
        refusal = out_of_time(decision.side, side, called_off=game.status == Game.Status.ABORTED)
        if goes_on_after_flag:
            try:
                with transaction.atomic():  # a refusal now must not undo the flag
                    return carry_out(game, side, decision)
            except GameError as exc:
                refusal = exc
    raise refusal  # after commit: the game has ended on time


def player_command(
    game_id: int, identity: Identity, act: Callable[[Game, int], T], *, needs_active: bool = True
) -> T:
    """``command`` for everything but moves: the gate (clock, then a running game), then ``act(game, side)``.

    ``needs_active=False``: the command also works on a finished game ("New game").
    """

    def decide(game: Game, side: int, at: datetime) -> Flag | Refuse | Go:
        return gate(game, at, needs_active=needs_active)

    def carry_out(game: Game, side: int, _decision: Flag | Refuse | Go) -> T:
        return act(game, side)

    return command(game_id, identity, decide, carry_out, goes_on_after_flag=not needs_active)
