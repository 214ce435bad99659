"""What every use case of live play shares: refusals, the row lock, and commit-then-announce."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.identity import Identity
from core.ratelimit import take_slot
from games import bus
from games.models import Game
from games.protocol import EventName
from games.services import deadlines, queue
from games.store import rows


class Code(StrEnum):
    """Why a command was refused: the ``code`` of an ``error`` message (docs/protocol.md)."""

    MALFORMED = "malformed"
    NOT_FOUND = "not_found"
    NO_IDENTITY = "no_identity"
    SPECTATOR = "spectator"
    NOT_STARTED = "not_started"
    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    STALE = "stale"
    ILLEGAL = "illegal"
    TIMEOUT = "timeout"  # the mover's clock ran out before the move arrived
    BAD_LEVEL = "bad_level"
    BAD_TIME = "bad_time"
    BAD_KIND = "bad_kind"
    LOGIN_REQUIRED = "login_required"
    BAD_INVITEE = "bad_invitee"
    INVITATION_REFUSED = "invitation_refused"
    NOT_OPEN = "not_open"
    NOT_INVITED = "not_invited"
    TOO_LATE = "too_late"
    NO_DRAWS = "no_draws"
    OFFER_PENDING = "offer_pending"
    TOO_SOON = "too_soon"
    NO_OFFER = "no_offer"
    NO_UNDO = "no_undo"
    NO_TAKEBACK = "no_takeback"  # no takeback request to answer, or nothing to take back
    TAKEBACK_PENDING = "takeback_pending"
    LOW_TIME = "low_time"  # a takeback in the last seconds of a clock
    NOTHING_TO_UNDO = "nothing_to_undo"
    NOTHING_TO_REDO = "nothing_to_redo"
    NO_REMATCH = "no_rematch"
    NO_ABANDON = "no_abandon"
    BAD_POSITION = "bad_position"
    POSITION_OVER = "position_over"
    TOO_MANY_GAMES = "too_many_games"  # enough games against the computer under way
    RATE_LIMITED = "rate_limited"  # offers, seeks or invitations too quickly
    BOT_ACCOUNT = "bot_account"  # a BOT plays through the API, not the website's pages (issue #41)


# The events after which the side to move may be another player: the mover hears it is their turn.
TURN_EVENTS = frozenset({"start", "move", "takeback"})


class GameError(Exception):
    """A refused command: ``code`` for programs, ``message`` for people."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class MoveResult:
    ply: int  # the ply the move was stored at
    version: int
    duplicate: bool = False  # a resent move that was already applied


def now() -> datetime:
    """The services' clock (tests move it forward)."""
    return timezone.now()


def take_offer_slot(game: Game, side: int, kind: str) -> None:
    """Count an offer that is about to reach the opponent; RATE_LIMITED past the per-minute limit.

    Issue #38: 45 rematch offer/cancel pairs sent 91 events to the opponent. Each
    kind (draw, rematch, takeback) has its own window per player per game, so one
    kind used up never blocks another.
    """
    limit = getattr(settings, "GAMES_OFFERS_PER_MINUTE", 3)
    if not take_slot(f"games:offers:{game.pk}:{side}:{kind}", limit, 60):
        raise GameError(Code.RATE_LIMITED, _("You are making offers too quickly. Please wait a minute."))


def locked(game_id: int) -> Game:
    """The game, its row locked until the transaction ends: commands on one game run one at a time."""
    try:
        return rows.lock_game(game_id)
    except Game.DoesNotExist:
        raise GameError(Code.NOT_FOUND, _("This game does not exist.")) from None


def side_of(game: Game, identity: Identity) -> int:
    side = game.side_of(identity)
    if side is None:
        raise GameError(Code.SPECTATOR, _("You are watching this game, not playing it."))
    return side


def seal(game: Game, *, at: datetime) -> None:
    """The step before storing any change, on either path: the deadlines recomputed, a new version."""
    deadlines.refresh(game, now=at)
    game.version += 1


def commit_and_announce(game: Game, event: EventName) -> None:
    """Store a change of the game under a new version; after commit, broadcast it and queue what it calls for.

    The locked backend of "store and announce" (the compare-and-set one is
    ``games.live.store_and_announce``; both ``seal`` the game and queue
    ``queue.follow_ups``): the snapshot goes to the game's sockets only once
    the transaction commits (nobody ever sees a state that could still roll
    back), and the work the new state asks for (the computer's move, a clock
    about to fall) is queued then too.
    """
    seal(game, at=now())
    rows.save_game(game)
    # After commit, and robust: the follow-ups below still go if the channel layer refuses.
    bus.announce(game, event)
    queue.follow_up(game, turn_changed=event in TURN_EVENTS)
