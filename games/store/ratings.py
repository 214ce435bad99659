"""Players' ratings as games reads them (quick pairing, the lobby, the Watch page).

games never imports ratings: the ratings app lends its readers here when it
starts (ratings/apps.py). Until then, and on a site without it, everyone is 1500.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypedDict

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from games.models import Game


class RatingOf(Protocol):
    def __call__(self, user: object, game: str, *, correspondence: bool = False) -> int: ...


def _provisional_rating(user: object, game: str, *, correspondence: bool = False) -> int:
    return 1500


# A player's rating in a game, live or correspondence (ratings.selectors.rating_value once the
# ratings app is ready).
rating_of: RatingOf = _provisional_rating


def _new_player(user: object, game: str, *, correspondence: bool = False) -> tuple[int, bool]:
    return 1500, True


# A player's rating in a game as shown and whether it is still provisional, live or correspondence
# (ratings.selectors.standing): the lobby shows "1500?" beside a newcomer's challenge.
standing_of: Callable[..., tuple[int, bool]] = _new_player


# (user id, game) -> (rating as shown, provisional), for the players with a rated game there.
Ratings = dict[tuple[int, str], tuple[int, bool]]


def _no_ratings(games: QuerySet[Game]) -> Ratings:
    return {}


# The ratings of the registered players of some games, in those games' kind, in one query
# (ratings.selectors.ratings_in); the game page shows no rating before a player's first rated game.
ratings_in: Callable[[QuerySet[Game]], Ratings] = _no_ratings


class RatingShift(TypedDict):
    """One player's rating change in a finished game, as shown (rounded).

    For example {"before": 1500, "after": 1512, "delta": 12}.
    Defined here, below games.live, so that the ratings app (which lends ``changes_of``)
    and the snapshot (games.protocol.Snapshot) name one type.
    """

    before: int
    after: int
    delta: int


def _no_changes(game: Game) -> list[RatingShift | None]:
    return [None, None]


# Per side, the rating change a finished game made, None where it made none (yet): the
# game's snapshot carries it (ratings.selectors.rating_changes_of). Ratings are applied
# after the game ends, by a task, which then pushes them (games.live.bus.send_rating_changes).
changes_of: Callable[[Game], list[RatingShift | None]] = _no_changes
