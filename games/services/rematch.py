"""Rematches between people: offer, accept, decline, cancel, and the offer's lapse.

The offer lives on the finished game's row (``Game.rematch_offer_side`` and
``rematch_offer_at``), like a draw offer: at most one at a time, for 60 s
(``deadlines.rematch_offer_lifetime``, lapsed by the obligations sweep), or
until either player's last page of the game closes (``lapse_rematch_on_leave``).
An accepted offer starts a new game at once with the same game and time
control and the colours swapped; ``Game.rematch`` points to it, so each game
has at most one rematch and both pages go to it.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.identity import Identity
from games.models import Game
from games.services.base import Code, GameError, commit_and_announce, locked, now, take_offer_slot
from games.services.deadlines import rematch_offer_lifetime
from games.services.envelope import player_command
from games.services.setup import _save_new, _start


def rematch_offer_live(game: Game, *, at: datetime) -> bool:
    return (
        game.rematch_offer_side is not None
        and game.rematch_offer_at is not None
        and at - game.rematch_offer_at < rematch_offer_lifetime(game)
    )


def _refuse_unless_possible(game: Game, side: int) -> None:
    """A rematch needs a finished game between two people, none yet, and no block between them."""
    from accounts.services.blocks import may_invite

    if game.against_computer:
        raise GameError(Code.NO_REMATCH, _("Against the computer, start a new game instead."))
    if game.status != Game.Status.FINISHED:
        raise GameError(Code.NO_REMATCH, _("A rematch can only be offered once the game is over."))
    if game.rematch_id is not None:
        raise GameError(Code.NO_REMATCH, _("The rematch of this game has already started."))
    me, opponent = game.user_of(side), game.user_of(1 - side)
    # Checked again on acceptance: a block made since the game (or the offer) ends it.
    # ``may_invite`` covers blocks either way and "block all invitations"; neutral on
    # purpose, as for invitations: the message does not reveal which it was.
    if me is not None and opponent is not None and not may_invite(sender=me, recipient=opponent):
        raise GameError(Code.INVITATION_REFUSED, _("This player is not accepting your invitations."))


def offer_rematch(*, game_id: int, identity: Identity) -> Game:
    """Offer the opponent a rematch; if they already offered one, this accepts it."""

    def act(game: Game, side: int) -> Game:
        _refuse_unless_possible(game, side)
        moment = now()
        if rematch_offer_live(game, at=moment):
            if game.rematch_offer_side == side:
                raise GameError(Code.OFFER_PENDING, _("Your rematch offer is waiting for an answer."))
            return _start_rematch(game)
        take_offer_slot(game, side, "rematch")
        game.rematch_offer_side = side
        game.rematch_offer_at = moment
        commit_and_announce(game, "rematch_offer")
        return game

    return player_command(game_id, identity, act, needs_active=False)


def answer_rematch(*, game_id: int, identity: Identity, accept: bool) -> Game:
    """Accept (a new game starts, colours swapped) or decline the opponent's offer.

    Accepting returns the new game; declining, the finished one.
    """

    def act(game: Game, side: int) -> Game:
        offerer = game.rematch_offer_side
        if offerer is None or offerer == side or not rematch_offer_live(game, at=now()):
            raise GameError(Code.NO_OFFER, _("There is no rematch offer to answer."))
        if not accept:
            game.clear_rematch_offer()
            commit_and_announce(game, "rematch_declined")
            return game
        try:
            _refuse_unless_possible(game, side)
        except GameError:
            # Blocked since the offer: the offer goes too, so the offerer's page stops waiting.
            game.clear_rematch_offer()
            commit_and_announce(game, "rematch_cancelled")
            raise
        return _start_rematch(game)

    return _committed_then_raised(game_id, identity, act)


def cancel_rematch(*, game_id: int, identity: Identity) -> Game:
    """The offerer takes a pending offer back."""

    def act(game: Game, side: int) -> Game:
        if game.rematch_offer_side != side or not rematch_offer_live(game, at=now()):
            raise GameError(Code.NO_OFFER, _("You have no rematch offer to cancel."))
        game.clear_rematch_offer()
        commit_and_announce(game, "rematch_cancelled")
        return game

    return player_command(game_id, identity, act, needs_active=False)


def lapse_rematch_offer(game: Game, *, at: datetime) -> bool:
    """The sweep's part (inside its locked transaction): drop an offer older than its lifetime."""
    if game.rematch_offer_at is None or rematch_offer_live(game, at=at):
        return False
    game.clear_rematch_offer()
    commit_and_announce(game, "rematch_lapsed")
    return True


def lapse_rematch_on_leave(game_id: int) -> bool:
    """A player's last page of the game closed: a pending offer lapses (whoever made it)."""
    # A correspondence player is seldom on the page: the offer waits for them (its lifetime still runs).
    if not Game.objects.filter(pk=game_id, rematch_offer_side__isnull=False, days_per_move=0).exists():
        return False  # the common case: one indexed read, no lock
    with transaction.atomic():
        game = locked(game_id)
        if game.rematch_offer_side is None or game.days_per_move:
            return False
        game.clear_rematch_offer()
        commit_and_announce(game, "rematch_lapsed")
        return True


def _start_rematch(game: Game) -> Game:
    """The new game (inside the locked transaction of the finished one): same game and clock, colours swapped."""
    new = Game(
        game=game.game,
        kind=game.kind,
        time_control=game.time_control,
        increment=game.increment,
        days_per_move=game.days_per_move,
        casual=game.casual,
        created_by=game.created_by,
    )
    for side in (0, 1):
        other = 1 - side
        new.seat_user(side, game.user_of(other))
        if game.guest_key_of(other):
            new.seat_guest(side, game.guest_key_of(other), game.guest1_name if other else game.guest0_name)
    _start(new)
    _save_new(new)
    game.rematch = new
    game.clear_rematch_offer()
    commit_and_announce(game, "rematch_started")
    return new


def _committed_then_raised(game_id: int, identity: Identity, act) -> Game:
    """``player_command`` on a finished game, where a refusal may follow a change that must stay.

    Accepting an offer after a block was made withdraws the offer (stored and
    announced) and still tells the player why nothing started.
    """
    refusal: list[GameError] = []

    def keep(game: Game, side: int) -> Game:
        try:
            return act(game, side)
        except GameError as exc:
            if game.rematch_offer_side is not None:
                raise  # nothing changed: roll back as usual
            refusal.append(exc)
            return game

    result = player_command(game_id, identity, keep, needs_active=False)
    if refusal:
        raise refusal[0]
    return result
