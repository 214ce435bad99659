"""Draw offers between people: offer, accept or decline, and the offer's lapse."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.identity import Identity
from games.models import EndReason, Game
from games.services import queue
from games.services.base import Code, GameError, commit_and_announce, locked, now, take_offer_slot
from games.services.deadlines import draw_offer_lifetime
from games.services.envelope import finish, player_command


def draw_offer_live(game: Game, *, at: datetime) -> bool:
    return (
        game.draw_offer_side is not None
        and game.draw_offer_at is not None
        and at - game.draw_offer_at < draw_offer_lifetime(game)
    )


def offer_draw(*, game_id: int, identity: Identity) -> Game:
    def act(game: Game, side: int) -> Game:
        moment = now()
        if game.against_computer:
            raise GameError(Code.NO_DRAWS, _("The computer does not take draw offers."))
        if draw_offer_live(game, at=moment):
            raise GameError(Code.OFFER_PENDING, _("A draw offer is already waiting for an answer."))
        if wait := game.plies_until_draw_offer(side):
            raise GameError(
                Code.TOO_SOON,
                ngettext(
                    "Your last offer was declined; you can offer a draw again after %(count)d more move.",
                    "Your last offer was declined; you can offer a draw again after %(count)d more moves.",
                    wait,
                )
                % {"count": wait},
            )
        take_offer_slot(game, side, "draw")
        game.draw_offer_side = side
        game.draw_offer_at = moment
        commit_and_announce(game, "draw_offer")
        if not game.days_per_move:  # days away: the obligations sweep lapses it (no broker countdown)
            queue.draw_lapse(game_id, moment.isoformat())
        return game

    return player_command(game_id, identity, act)


def answer_draw(*, game_id: int, identity: Identity, accept: bool) -> Game:
    def act(game: Game, side: int) -> Game:
        offerer = game.draw_offer_side
        if offerer is None or not draw_offer_live(game, at=now()) or offerer == side:
            raise GameError(Code.NO_OFFER, _("There is no draw offer to answer."))
        if accept:
            finish(game, winner=None, reason=EndReason.DRAW_AGREED)
            return game
        game.set_draw_declined_ply(offerer, game.ply)
        game.clear_draw_offer()
        commit_and_announce(game, "draw_declined")
        return game

    return player_command(game_id, identity, act)


def lapse_draw_offer(*, game_id: int, offered_at: str) -> bool:
    """Withdraw an unanswered offer after its time; a newer offer is left alone."""
    with transaction.atomic():
        game = locked(game_id)
        if game.draw_offer_at is None or game.draw_offer_at.isoformat() != offered_at or game.is_over:
            return False
        if draw_offer_live(game, at=now()):
            return False  # delivered early (e.g. eager tasks): the offer still stands
        game.clear_draw_offer()
        commit_and_announce(game, "draw_lapsed")
        return True
