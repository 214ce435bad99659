"""What other apps may add to games: declared here, provided from their ``AppConfig.ready()``.

games never imports ratings, tournaments or chat (the layers in pyproject.toml); they
build on games. Where a games page or socket shows something of theirs, games reads
it here, and the app fills it in when it starts:

- ``ratings``: the rating readers (``register_rating_readers``): quick pairing, the
  lobby, the Watch page and a finished game's snapshot read players' ratings. Until
  they are registered, and on a site without the ratings app, everyone is
  ``DEFAULT_RATING`` and provisional, and no game changed a rating.
- ``tournament_of``: the tournament a game was paired in, as the game page names it
  (``register_tournament_reader``); none without the tournaments app.
- ``game_socket``: parts of the game socket (``/ws/game/<id>/``): chat registers its
  commands and group events (core/socket_parts.py), and the game's consumer answers
  them; the route stays games'.

Each hook has one provider: a second, different one is refused at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, Protocol, TypedDict, TypeVar

from django.core.exceptions import ImproperlyConfigured

from core.socket_parts import SocketPart, SocketParts

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from games.models import Game

T = TypeVar("T")

# Where every rating starts, and what everyone is on a site without the ratings app.
DEFAULT_RATING = 1500


class Hook(Generic[T]):
    """One thing another app may provide, and what games uses until it does."""

    def __init__(self, name: str, default: T) -> None:
        self.name = name
        self.default = default
        self.value = default

    def provide(self, value: T) -> None:
        if self.value is not self.default and self.value != value:
            raise ImproperlyConfigured(f"{self.name} are provided already ({self.value!r})")
        self.value = value

    @contextmanager
    def overridden(self, value: T) -> Iterator[T]:
        """``value`` in place of the provider's, for a test's story."""
        before, self.value = self.value, value
        try:
            yield value
        finally:
            self.value = before


# --- ratings ---------------------------------------------------------------------------


class RatingShift(TypedDict):
    """One player's rating change in a finished game, as shown (rounded).

    For example {"before": 1500, "after": 1512, "delta": 12}. The ratings app
    (``changes_of``) and the snapshot (games.protocol.Snapshot) name this one type.
    """

    before: int
    after: int
    delta: int


# (user id, game) -> (rating as shown, provisional), for the players with a rated game there.
Ratings = dict[tuple[int, str], tuple[int, bool]]


class RatingOf(Protocol):
    def __call__(self, user: Any, game: str, *, correspondence: bool = False) -> int: ...


class StandingOf(Protocol):
    def __call__(self, user: Any, game: str, *, correspondence: bool = False) -> tuple[int, bool]: ...


@dataclass(frozen=True)
class RatingReaders:
    # A player's rating in a game, live or correspondence (quick pairing's window).
    rating_of: RatingOf
    # The rating as shown and whether it is still provisional: the lobby shows "1500?"
    # beside a newcomer's challenge.
    standing_of: StandingOf
    # The ratings of the registered players of some games, in those games' kind, in one
    # query; the game page shows no rating before a player's first rated game.
    ratings_in: Callable[[QuerySet[Game]], Ratings]
    # Per side, the rating change a finished game made, None where it made none (yet).
    # Ratings are applied after the game ends, by a task, which then pushes them
    # (games.live.events.send_rating_changes).
    changes_of: Callable[[Game], list[RatingShift | None]]


def _default_rating(user: Any, game: str, *, correspondence: bool = False) -> int:
    return DEFAULT_RATING


def _newcomer(user: Any, game: str, *, correspondence: bool = False) -> tuple[int, bool]:
    return DEFAULT_RATING, True


def _no_ratings(games: QuerySet[Game]) -> Ratings:
    return {}


def _no_changes(game: Game) -> list[RatingShift | None]:
    return [None, None]


ratings: Hook[RatingReaders] = Hook(
    "the rating readers",
    RatingReaders(
        rating_of=_default_rating, standing_of=_newcomer, ratings_in=_no_ratings, changes_of=_no_changes
    ),
)


def register_rating_readers(readers: RatingReaders) -> None:
    """The ratings app's readers, from its ``ready()``."""
    ratings.provide(readers)


def rating_of(user: Any, game: str, *, correspondence: bool = False) -> int:
    return ratings.value.rating_of(user, game, correspondence=correspondence)


def standing_of(user: Any, game: str, *, correspondence: bool = False) -> tuple[int, bool]:
    return ratings.value.standing_of(user, game, correspondence=correspondence)


def ratings_in(games: QuerySet[Game]) -> Ratings:
    return ratings.value.ratings_in(games)


def changes_of(game: Game) -> list[RatingShift | None]:
    return ratings.value.changes_of(game)


# --- tournaments -----------------------------------------------------------------------


class TournamentLink(NamedTuple):
    """The tournament a game was paired in, as the game page names it ("Tea-time arena, round 3")."""

    name: str
    url: str
    round: int  # a Swiss round; 0 in an arena


def _no_tournament(game_id: int) -> TournamentLink | None:
    return None


tournaments: Hook[Callable[[int], TournamentLink | None]] = Hook("the tournament reader", _no_tournament)


def register_tournament_reader(reader: Callable[[int], TournamentLink | None]) -> None:
    """The tournaments app's reader, from its ``ready()``."""
    tournaments.provide(reader)


def tournament_of(game_id: int) -> TournamentLink | None:
    return tournaments.value(game_id)


# --- the game socket -------------------------------------------------------------------

# games.live.consumers.GameConsumer declares these as its parts.
game_socket = SocketParts("the game socket")


def register_game_socket_part(part: type[SocketPart[Any]]) -> None:
    """Commands and group events another app answers on the game socket (chat's lines)."""
    game_socket.register(part)
