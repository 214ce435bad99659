"""The games worth watching: the Watch page, its live feed and its TV (reads only).

Listed: every game in play between two people (registered players or guests),
and the computer games worth watching: timed, against the Medium or Hard
computer. Never a game that is not running: an invitation nobody accepted yet,
an open challenge, a finished or aborted game. Every game page can be watched by
its address already (docs/decisions.md), so the list shows nothing new; it only
leaves out what a viewer should not be shown (``for_viewer``: blocks).

Order: games between people first, then computer games; each by strength, the
mean rating of the seats (a player without a rated game in that game, a guest
or the computer counts as 1500, where every rating starts), then the newest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from games import hooks
from games.hooks import Ratings
from games.kinds import KINDS
from games.models import Game, time_control_label

READ_LIMIT = 500  # games in play read per refresh, the most recently started first
SHOWN = 30  # rows a viewer gets: the page shows no more
WATCHED_LEVELS = ("medium", "hard")
START_RATING = hooks.DEFAULT_RATING


@dataclass(frozen=True)
class Seat:
    name: str  # a guest's as stored ("Guest 4821", shown in the reader's language by the page)
    kind: str  # user, guest or computer (as a snapshot's players)
    level: str | None
    user_id: int | None
    rating: int | None  # None: no rated game yet in this game (as the game page shows it)
    provisional: bool  # "?" beside the rating: fewer than 10 rated games
    bot: bool = False  # a BOT account (issue #41): marked BOT beside the name


@dataclass(frozen=True)
class Watchable:
    id: int
    game: str
    players: tuple[Seat, Seat]
    base_seconds: int  # the clock as stored; its label is made when shown, in the viewer's language
    increment: int
    days_per_move: int
    ply: int
    computer: bool
    strength: float
    spectators: int = field(default=0, compare=False)

    @property
    def time_control(self) -> str:
        """ "5+3", or "3 days" for a correspondence game: as every other page writes it."""
        return time_control_label(self.base_seconds, self.increment, self.days_per_move)

    @property
    def user_ids(self) -> set[int]:
        return {seat.user_id for seat in self.players if seat.user_id is not None}

    def as_json(self) -> dict[str, Any]:
        """One row of the feed (docs/protocol.md, "Games to watch"), in the active language."""
        return {
            "id": self.id,
            "game": self.game,
            "url": f"/play/{self.id}/",
            "players": [
                {
                    "name": seat.name,
                    "kind": seat.kind,
                    "level": seat.level,
                    "rating": seat.rating,
                    "provisional": seat.provisional,
                    "bot": seat.bot,
                }
                for seat in self.players
            ],
            "time_control": self.time_control,
            "ply": self.ply,
            "computer": self.computer,
            "spectators": self.spectators,
        }


_COLUMNS = (
    "id",
    "game",
    "ply",
    "time_control",
    "increment",
    "days_per_move",
    *(f"{column}{side}" for side in (0, 1) for column in ("user", "guest", "ai")),
)


def games_in_play(*, limit: int = READ_LIMIT) -> list[Watchable]:
    """Every game worth watching now, best first (two queries: the games, the ratings)."""
    between_people = Q(ai0="", ai1="")
    worth_watching = Q(time_control__gt=0) & (Q(ai0__in=WATCHED_LEVELS) | Q(ai1__in=WATCHED_LEVELS))
    in_play = Game.objects.filter(between_people | worth_watching, status=Game.Status.ACTIVE).order_by(
        "-started_at", "-id"
    )[:limit]
    rows = list(
        in_play.values(
            "id", "game", "ply", "time_control", "increment", "days_per_move", "started_at",
            "user0_id", "user0__username", "user0__is_bot", "guest0_name", "ai0",
            "user1_id", "user1__username", "user1__is_bot", "guest1_name", "ai1",
        )
    )  # fmt: skip
    ratings = hooks.ratings_in(in_play) if rows else {}
    games = [_watchable(row, ratings) for row in rows]
    games.sort(key=lambda game: (game.computer, -game.strength, -game.id))
    return games


def _seat(row: Mapping[str, Any], side: int, ratings: Ratings) -> Seat:
    level = row[f"ai{side}"]
    if level:
        return Seat(name="", kind="computer", level=level, user_id=None, rating=None, provisional=False)
    user_id = row[f"user{side}_id"]
    if user_id is None:
        return Seat(row[f"guest{side}_name"], "guest", None, None, None, provisional=False)
    rating, provisional = ratings.get((user_id, row["game"]), (None, False))
    return Seat(
        row[f"user{side}__username"],
        "user",
        None,
        user_id,
        rating,
        provisional,
        bot=row[f"user{side}__is_bot"],
    )


def _watchable(row: Mapping[str, Any], ratings: Ratings) -> Watchable:
    seats = (_seat(row, 0, ratings), _seat(row, 1, ratings))
    return Watchable(
        id=row["id"],
        game=row["game"],
        players=seats,
        base_seconds=row["time_control"],
        increment=row["increment"],
        days_per_move=row["days_per_move"],
        ply=row["ply"],
        computer=any(seat.kind == "computer" for seat in seats),
        strength=sum(START_RATING if seat.rating is None else seat.rating for seat in seats) / 2,
    )


def for_viewer(games: Iterable[Watchable], blocked: set[int]) -> list[Watchable]:
    """The games a viewer is shown: none with a player they blocked or who blocked them (docs/decisions.md)."""
    return [game for game in games if not (game.user_ids & blocked)]


def featured(games: Iterable[Watchable]) -> dict[str, Watchable | None]:
    """The TV: per kind of game, the best game between people in play, else the best computer game."""
    best: dict[str, Watchable | None] = dict.fromkeys(KINDS)
    for game in games:  # best first: the first of each kind wins, people before the computer
        if best.get(game.game) is None:
            best[game.game] = game
    return best


def with_spectators(games: Iterable[Watchable], counts: dict[int, tuple[int, int]]) -> list[Watchable]:
    return [Watchable(**{**game.__dict__, "spectators": counts.get(game.id, (0, 0))[0]}) for game in games]
