"""Takeback requests between people: ask, accept or decline; accepted, the last move (or two) is taken back.

The rules (docs/protocol.md, "Takeback requests"):

- a player asks; the opponent accepts or declines; any move lapses the request;
- it takes back the asker's last move and everything after it: one move when the
  opponent is to move, two (the opponent's reply too) when it is the asker's
  turn again; forced passes go with the move before them;
- each side may ask at most once per ``TAKEBACK_COOLDOWN_PLIES`` plies;
- never in the last seconds: asking and accepting are refused while either
  clock is under ``TAKEBACK_MIN_CLOCK_MS`` (and, as for every command, a clock
  that has run out ends the game first: the envelope's clock check);
- blocks: a player who blocked the other, or was blocked, neither asks nor is
  asked (the refusal is neutral, as for invitations);
- the clocks: the opponent's clock gets back the time it spent on the moves
  taken back and on the turn under way (it is set to what it was after its last
  remaining move); the asker keeps the time it used, without the increments of
  the moves taken back.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.identity import Identity
from games.models import TAKEBACK_MIN_CLOCK_MS, Game, Move
from games.services.base import Code, GameError, commit_and_announce, now, take_offer_slot
from games.services.decide import SERVER_CLIENT_ID
from games.services.envelope import player_command


def _refuse_in_the_last_seconds(game: Game) -> None:
    if not game.time_control:
        return
    at = now()
    if min(game.remaining_ms(0, now=at), game.remaining_ms(1, now=at)) < TAKEBACK_MIN_CLOCK_MS:
        raise GameError(
            Code.LOW_TIME,
            _("No takebacks while a clock is under %(seconds)d seconds.")
            % {"seconds": TAKEBACK_MIN_CLOCK_MS // 1000},
        )


def _blocked(game: Game) -> bool:
    """Has one of the two players blocked the other (since the game began)?"""
    from accounts.services.blocks import either_blocked

    first, second = game.user_of(0), game.user_of(1)
    return first is not None and second is not None and either_blocked(first, second)


def _cut(moves: list[Move], side: int) -> int | None:
    """Where the moves to take back begin: ``side``'s last real move (not a forced pass); None if it has none."""
    for index in range(len(moves) - 1, -1, -1):
        if moves[index].side == side and moves[index].client_id != SERVER_CLIENT_ID:
            return index
    return None


def request_takeback(*, game_id: int, identity: Identity) -> Game:
    """Ask the opponent to take back your last move."""

    def act(game: Game, side: int) -> Game:
        if game.against_computer:
            raise GameError(Code.NO_TAKEBACK, _("Against the computer, use Undo."))
        if _blocked(game):
            # Neutral on purpose, like invitations: do not reveal that it was a block.
            raise GameError(Code.NO_TAKEBACK, _("Your opponent is not taking takeback requests."))
        if game.takeback_side is not None:
            raise GameError(Code.TAKEBACK_PENDING, _("A takeback request is already waiting for an answer."))
        if wait := game.plies_until_takeback(side):
            raise GameError(
                Code.TOO_SOON,
                ngettext(
                    "You can ask for a takeback again after %(count)d more move.",
                    "You can ask for a takeback again after %(count)d more moves.",
                    wait,
                )
                % {"count": wait},
            )
        if _cut(list(Move.objects.filter(game=game).order_by("ply")), side) is None:
            raise GameError(Code.NOTHING_TO_UNDO, _("There is no move of yours to take back."))
        _refuse_in_the_last_seconds(game)
        take_offer_slot(game, side, "takeback")
        game.takeback_side = side
        game.set_takeback_asked_ply(side, game.ply)
        commit_and_announce(game, "takeback_request")
        return game

    return player_command(game_id, identity, act)


def answer_takeback(*, game_id: int, identity: Identity, accept: bool) -> Game:
    """The opponent's answer to a takeback request."""

    def act(game: Game, side: int) -> Game:
        asker = game.takeback_side
        if asker is None or asker == side:
            raise GameError(Code.NO_TAKEBACK, _("There is no takeback request to answer."))
        if not accept:
            game.takeback_side = None
            commit_and_announce(game, "takeback_declined")
            return game
        _refuse_in_the_last_seconds(game)
        _take_back(game, asker)
        commit_and_announce(game, "takeback")
        return game

    return player_command(game_id, identity, act)


def _take_back(game: Game, asker: int) -> None:
    moves = list(Move.objects.filter(game=game).order_by("ply"))
    cut = _cut(moves, asker)
    if cut is None:  # cannot happen after a request was accepted; refuse rather than guess
        raise GameError(Code.NOTHING_TO_UNDO, _("There is no move of yours to take back."))
    kept, removed = moves[:cut], moves[cut:]
    at = now()
    opponent = 1 - asker
    if game.days_per_move:
        # Per move: whoever is to move after the takeback gets the full days again.
        game.set_clock(asker, game.time_control * 1000)
        game.set_clock(opponent, game.time_control * 1000)
    elif game.time_control:
        # The asker: the turn under way (if it is theirs) is charged; the increments of its
        # moves taken back are removed. The opponent: its clock as after its last kept move.
        asker_ms = game.remaining_ms(asker, now=at)
        asker_ms -= game.increment * 1000 * sum(1 for move in removed if move.side == asker)
        earlier = [move for move in kept if move.side == opponent]
        opponent_ms = earlier[-1].clock_left_ms if earlier else game.time_control * 1000
        game.set_clock(asker, max(asker_ms, 0))
        game.set_clock(opponent, opponent_ms)
    Move.objects.filter(game=game, ply__gte=cut).delete()
    engine = game.engine
    state = game.start_state()
    for move in kept:
        state = engine.play(state, move.token)
    game.tokens = [move.token for move in kept]
    game.ply = len(kept)
    game.set_engine_state(state)
    game.turn_started_at = at
    game.takeback_side = None
    game.clear_draw_offer()  # an offer made in the position taken back goes with it
