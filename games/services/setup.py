"""Setting games up: against the computer, invitations and challenges, joining, withdrawing."""

from __future__ import annotations

import random

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.identity import Identity
from core.ratelimit import take_slot
from games import bus
from games.engines import get
from games.engines.base import InvalidPosition
from games.models import (
    DAY_SECONDS,
    DAYS_PER_MOVE_CHOICES,
    DEFAULT_TIME_MINUTES,
    MAX_BASE_MINUTES,
    MAX_INCREMENT_SECONDS,
    EndReason,
    Game,
)
from games.services import deadlines, limits, queue
from games.services.base import Code, GameError, commit_and_announce, locked, now
from games.services.ending import end_for_new_game
from games.services.envelope import announce_finished, player_command

AI_LEVELS = ("easy", "medium", "hard")


def _validate_time_control(minutes: int, increment: int, *, computer: bool) -> tuple[int, int]:
    """The clock as stored (base seconds, increment seconds); an untimed game is for the computer only."""
    if minutes == 0 and increment == 0 and computer:
        return 0, 0
    if not (1 <= minutes <= MAX_BASE_MINUTES and 0 <= increment <= MAX_INCREMENT_SECONDS):
        raise GameError(
            Code.BAD_TIME,
            _("Choose a clock of 1 to %(minutes)d minutes and an increment of 0 to %(seconds)d seconds.")
            % {"minutes": MAX_BASE_MINUTES, "seconds": MAX_INCREMENT_SECONDS},
        )
    return minutes * 60, increment


def _validate_days_per_move(days: int) -> int:
    """A correspondence game's days per move, one of the offered choices."""
    if days not in DAYS_PER_MOVE_CHOICES:
        raise GameError(
            Code.BAD_TIME,
            _("Choose %(choices)s days per move.") % {"choices": ", ".join(map(str, DAYS_PER_MOVE_CHOICES))},
        )
    return days


def _people_clock(minutes: int, increment: int, days_per_move: int) -> tuple[int, int]:
    """The clock of a game between people as stored: ``days_per_move`` days a move, else a live clock."""
    if days_per_move:
        return _validate_days_per_move(days_per_move) * DAY_SECONDS, 0
    return _validate_time_control(minutes, increment, computer=False)


def _seat(game: Game, side: int, identity: Identity) -> None:
    if identity.user is not None:
        game.seat_user(side, identity.user)
    elif identity.guest is not None:
        game.seat_guest(side, identity.guest.key, identity.guest.name)
    else:
        raise GameError(Code.NO_IDENTITY, _("Open the site in a browser with cookies enabled to play."))


def _start(game: Game) -> None:
    moment = now()
    game.status = Game.Status.ACTIVE
    game.started_at = moment
    game.turn_started_at = moment
    game.set_clock(0, game.time_control * 1000)
    game.set_clock(1, game.time_control * 1000)
    if not game.state:
        game.state = game.engine.dumps(game.engine.initial())


def _save_new(game: Game) -> None:
    deadlines.refresh(game, now=now())
    game.save()


def create_computer_game(
    *,
    identity: Identity,
    game: str,
    level: str,
    side: int | None = None,
    minutes: int = 0,
    increment: int = 0,
    start_fen: str = "",
    address: str = "",
) -> Game:
    """A game against the computer; it starts at once (from ``start_fen`` when given: "Play from here").

    ``address`` is the client's address block (core.ratelimit): a guest's games are
    also limited per address, since a new cookie is a new guest.
    """
    engine = get(game)  # KeyError for an unknown game is a programming error; views validate first
    if level not in AI_LEVELS:
        raise GameError(Code.BAD_LEVEL, _("Choose Easy, Medium or Hard."))
    start = None
    if start_fen:
        try:
            start = engine.from_fen(start_fen)
        except InvalidPosition as exc:
            raise GameError(
                Code.BAD_POSITION, _("That position is not valid: %(reason)s") % {"reason": exc}
            ) from None
        if engine.outcome(start) is not None:
            raise GameError(Code.POSITION_OVER, _("The game is already over in that position."))
    side = random.randrange(2) if side is None else side
    with transaction.atomic():
        base, extra = _validate_time_control(minutes, increment, computer=True)
        remembered = limits.refuse_too_many_computer_games(identity, address)
        new = Game(game=game, kind=Game.Kind.COMPUTER, time_control=base, increment=extra)
        if start is not None:
            new.start_fen = engine.fen(start)
            new.state = engine.dumps(start)
        _seat(new, side, identity)
        new.seat_computer(1 - side, level)
        new.created_by = identity.user
        _start(new)
        _save_new(new)
        queue.follow_up(new)
        if identity.guest is not None and identity.user is None and address:
            # At once, not on commit: an id whose game was rolled back counts as nothing.
            limits.remember_address_game(address, remembered, new.pk, identity.guest.key)
    return new


def _take_invitation_slot(user) -> None:
    """Count a direct invitation about to reach another player; RATE_LIMITED past the per-minute limit.

    Each one lands on the invited player's pages and event stream. The home page's
    form, the Bots page and the API's ``POST /api/challenge/{username}`` all create
    them here, so one rule counts them together (issue #41: the API limited its own,
    the site's pages none). Taken after every other check: a refused invitation,
    which reaches nobody, costs no slot.
    """
    if not take_slot(f"games:invitations:{user.pk}", settings.GAMES_INVITATIONS_PER_MINUTE, 60):
        raise GameError(
            Code.RATE_LIMITED, _("You are sending invitations too quickly. Please wait a minute.")
        )


def create_human_game(
    *,
    identity: Identity,
    game: str,
    kind: str,
    side: int | None = None,
    minutes: int = DEFAULT_TIME_MINUTES,
    increment: int = 0,
    invited_user=None,
    casual: bool = False,
    days_per_move: int = 0,
) -> Game:
    """An invite link, an open challenge in the lobby, or a direct invitation; rated unless ``casual``.

    ``days_per_move`` (1, 2, 3, 5, 7 or 14) makes it a correspondence game: each
    move may take that many days, and ``minutes`` and ``increment`` are ignored.
    """
    from accounts.services.blocks import may_invite

    get(game)
    if days_per_move:
        _validate_days_per_move(days_per_move)
        # Played over days: a player needs an account to find the game again, and for the mails.
        if identity.user is None:
            raise GameError(Code.LOGIN_REQUIRED, _("Log in to play a correspondence game."))
    if kind not in (Game.Kind.INVITE_LINK, Game.Kind.LOBBY, Game.Kind.DIRECT):
        raise GameError(Code.BAD_KIND, _("Unknown kind of game."))
    if kind == Game.Kind.LOBBY and identity.user is None:
        raise GameError(Code.LOGIN_REQUIRED, _("Log in to post an open challenge."))
    if kind == Game.Kind.DIRECT:
        if identity.user is None:
            raise GameError(Code.LOGIN_REQUIRED, _("Log in to invite a player."))
        if invited_user is None or invited_user.pk == identity.user.pk:
            raise GameError(Code.BAD_INVITEE, _("Choose another registered player to invite."))
        if not may_invite(sender=identity.user, recipient=invited_user):
            # Neutral on purpose: do not reveal whether it was a block or a setting.
            raise GameError(Code.INVITATION_REFUSED, _("This player is not accepting your invitations."))
    base, extra = _people_clock(minutes, increment, days_per_move)
    if kind == Game.Kind.DIRECT:
        _take_invitation_slot(identity.user)
    side = random.randrange(2) if side is None else side
    with transaction.atomic():
        new = Game(
            game=game,
            kind=kind,
            time_control=base,
            increment=extra,
            days_per_move=days_per_move,
            casual=casual,
            invited_user=invited_user if kind == Game.Kind.DIRECT else None,
            created_by=identity.user,
        )
        _seat(new, side, identity)
        new.state = new.engine.dumps(new.engine.initial())
        _save_new(new)
        new_id = new.pk
        bus.announce_lobby(new_id)
    return new


def create_paired_game(
    *,
    game: str,
    users: tuple,
    minutes: int,
    increment: int = 0,
    casual: bool = False,
    days_per_move: int = 0,
) -> Game:
    """A game between two registered players, started at once (``users[0]`` moves first); rated unless casual.

    For whoever pairs players (quick pairing, tournaments): inside the caller's
    transaction, so the game exists only if the caller's own rows commit with it.
    Nothing is announced on the game's socket: neither player has it open yet.
    ``days_per_move`` makes it a correspondence game, clocked as a correspondence
    challenge is; its first mover then hears "your turn" as when a challenge
    starts, since they may be on no page at all.
    """
    first, second = users
    # The live clock is the caller's pool's or tournament's, checked there; days per move are checked here.
    base, extra = _people_clock(0, 0, days_per_move) if days_per_move else (minutes * 60, increment)
    new = Game(
        game=game,
        kind=Game.Kind.LOBBY,
        time_control=base,
        increment=extra,
        days_per_move=days_per_move,
        casual=casual,
        created_by=first,
    )
    new.seat_user(0, first)
    new.seat_user(1, second)
    _start(new)
    _save_new(new)
    if days_per_move:
        queue.follow_up(new)
    return new


def join_game(*, game_id: int, identity: Identity, token: str | None = None) -> Game:
    """Take the free seat of a waiting game (invite link, lobby or direct invitation).

    An invite-link game can only be joined with its secret ``token`` (game ids
    are guessable, the token is not).
    """
    from accounts.services.blocks import either_blocked

    with transaction.atomic():
        game = locked(game_id)
        if game.side_of(identity) is not None:
            return game  # already seated: opening the link again just shows the game
        if game.status != Game.Status.WAITING:
            raise GameError(Code.NOT_OPEN, _("This game is no longer open to join."))
        free = 0 if not game.side_is_taken(0) else 1
        creator = game.user_of(1 - free)
        if game.kind == Game.Kind.DIRECT and (
            identity.user is None or identity.user.pk != game.invited_user_id
        ):
            raise GameError(Code.NOT_INVITED, _("This invitation is for another player."))
        if game.days_per_move and identity.user is None:
            raise GameError(Code.LOGIN_REQUIRED, _("Log in to play a correspondence game."))
        if game.kind == Game.Kind.LOBBY:
            if identity.user is None:
                raise GameError(Code.LOGIN_REQUIRED, _("Log in to take an open challenge."))
            if creator is not None and either_blocked(creator, identity.user):
                raise GameError(Code.NOT_OPEN, _("This game is no longer open to join."))
        if game.kind == Game.Kind.INVITE_LINK and token != game.invite_token:
            raise GameError(Code.NOT_INVITED, _("Open the invite link you were sent to join this game."))
        if (
            game.kind == Game.Kind.INVITE_LINK
            and identity.user is not None
            and creator is not None
            and either_blocked(creator, identity.user)
        ):
            raise GameError(Code.NOT_OPEN, _("This game is no longer open to join."))
        _seat(game, free, identity)
        _start(game)
        commit_and_announce(game, "start")
        bus.announce_lobby(game_id)
    return game


def _call_off(game: Game, reason: EndReason) -> None:
    """A waiting game that will never start: no result, nothing to rate."""
    game.status = Game.Status.ABORTED
    game.end_reason = reason
    game.finished_at = now()
    commit_and_announce(game, "end")
    announce_finished(game.pk)
    game_id = game.pk
    bus.announce_lobby(game_id)


def decline_invitation(*, game_id: int, identity: Identity) -> Game:
    with transaction.atomic():
        game = locked(game_id)
        if (
            game.status != Game.Status.WAITING
            or identity.user is None
            or game.invited_user_id != identity.user.pk
        ):
            raise GameError(Code.NOT_INVITED, _("There is no invitation to decline."))
        _call_off(game, EndReason.DECLINED)
    return game


def cancel_waiting_game(*, game_id: int, identity: Identity) -> Game:
    """The creator withdraws an invitation or open challenge nobody took."""
    with transaction.atomic():
        game = locked(game_id)
        if game.status != Game.Status.WAITING or game.side_of(identity) is None:
            raise GameError(Code.NOT_OPEN, _("This game is no longer open."))
        _call_off(game, EndReason.CANCELLED)
    return game


def expire_waiting_game(game: Game) -> None:
    """An invitation or challenge nobody took in time (inside the caller's locked transaction)."""
    _call_off(game, EndReason.EXPIRED)


def rematch_computer(*, game_id: int, identity: Identity) -> Game:
    """'New game' against the computer with the same settings, sides swapped.

    A game still running is ended first, in the same transaction (see
    ``ending.end_for_new_game``), so it never lingers "in progress" until its
    clock runs out.
    """

    def act(game: Game, side: int) -> Game:
        level = game.ai_of(1 - side)
        if not level:
            raise GameError(Code.NO_REMATCH, _("'New game' is for games against the computer."))
        end_for_new_game(game, side)
        return create_computer_game(
            identity=identity,
            game=game.game,
            level=level,
            side=1 - side,
            minutes=game.time_control // 60,
            increment=game.increment,
            start_fen=game.start_fen,
        )

    # Works on a finished game too: a clock that ran out ends the game first, then the new one starts.
    return player_command(game_id, identity, act, needs_active=False)
