"""Reads of games for pages outside live play (the profile's recent games, the lobby's open challenges)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, Q

from games.models import SPEED_BOUNDS, SPEED_MOVES, Game, clock_speed
from games.names import GAME_NAMES

RECENT_GAMES = 10


@dataclass(frozen=True)
class RecentGame:
    game: Game
    name: str
    date: datetime
    result: str  # win / loss / draw, from the profile owner's side
    opponent_name: str
    opponent_username: str  # "" unless the opponent is a registered player

    @property
    def replay_url(self) -> str:
        return f"/play/{self.game.pk}/replay/"


def recent_games(player, *, limit: int = RECENT_GAMES) -> list[RecentGame]:
    """The player's last finished games, newest first (games called off are left out)."""
    games = (
        Game.objects.filter(Q(user0=player) | Q(user1=player), status=Game.Status.FINISHED)
        .select_related("user0", "user1")
        .order_by("-finished_at", "-pk")[:limit]
    )
    rows = []
    for game in games:
        side = 0 if game.user0_id == player.pk else 1
        opponent = game.user_of(1 - side)
        result = "draw" if game.winner is None else ("win" if game.winner == side else "loss")
        rows.append(
            RecentGame(
                game=game,
                name=str(GAME_NAMES.get(game.game, game.game)),
                date=game.finished_at or game.created_at,
                result=result,
                opponent_name=game.side_name(1 - side),
                opponent_username=opponent.username if opponent is not None else "",
            )
        )
    return rows


LOBBY_LIMIT = 50  # open challenges listed at once, newest first
LOBBY_SCAN = 200  # read to fill the list when a rating range leaves some out


@dataclass(frozen=True)
class LobbyFilter:
    """What a lobby page asks to see; an empty field does not filter."""

    game: str = ""
    speed: str = ""  # a games.models.Speed
    casual: bool | None = None  # None: rated and casual both
    rating_min: int | None = None
    rating_max: int | None = None


@dataclass(frozen=True)
class Challenge:
    game: Game
    rating: int  # its creator's rating in that game

    @property
    def speed(self) -> str:
        return clock_speed(self.game.time_control, self.game.increment)


def open_challenges(*, viewer, wanted: LobbyFilter | None = None) -> list[Challenge]:
    """The open challenges ``viewer`` may see and asked for, newest first.

    Blocks hide a challenge both ways (the viewer's own always show). The
    rating range applies to the challenger's rating in that game, read through
    quick pairing's reader (the ratings app lends it: games never imports ratings).
    """
    from accounts.services.blocks import either_blocked
    from games.services import pairing

    wanted = wanted or LobbyFilter()
    games = Game.objects.filter(status=Game.Status.WAITING, kind=Game.Kind.LOBBY).select_related("created_by")
    if wanted.game:
        games = games.filter(game=wanted.game)
    if wanted.casual is not None:
        games = games.filter(casual=wanted.casual)
    if wanted.speed:
        low, high = SPEED_BOUNDS[wanted.speed]
        games = games.alias(estimate=F("time_control") + SPEED_MOVES * F("increment")).filter(
            estimate__gte=low
        )
        if high is not None:
            games = games.filter(estimate__lt=high)
    user = viewer if viewer is not None and viewer.is_authenticated else None
    rows: list[Challenge] = []
    for game in games[:LOBBY_SCAN]:
        creator = game.created_by
        mine = user is not None and game.created_by_id == user.pk
        if user is not None and creator is not None and not mine and either_blocked(creator, user):
            continue
        rating = int(pairing.rating_of(creator, game.game)) if creator is not None else 0
        if wanted.rating_min is not None and rating < wanted.rating_min:
            continue
        if wanted.rating_max is not None and rating > wanted.rating_max:
            continue
        rows.append(Challenge(game=game, rating=rating))
        if len(rows) >= LOBBY_LIMIT:
            break
    return rows
