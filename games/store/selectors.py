"""Reads of games for pages outside live play (the profile's recent games, the lobby's open challenges)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import F, Q

from games import hooks
from games.engines.record import dump_record
from games.kinds import game_name
from games.models import SPEED_BOUNDS, SPEED_MOVES, Game, Speed, clock_speed

RECENT_GAMES = 10


def record_text(game: Game, *, site: str) -> str:
    """The game's record in the site's format (games/engines/record.py): its download and the API's."""
    result = "*"
    if game.is_over:
        scores: dict[int | None, str] = {0: "1-0", 1: "0-1"}
        result = scores.get(game.winner, "1/2-1/2") if game.status == Game.Status.FINISHED else "*"
    headers = {
        "Site": site,
        "Date": (game.started_at or game.created_at).strftime("%Y.%m.%d"),
    }
    for side in (0, 1):
        headers[f"Player{side}"] = game.side_name(side)
        player = game.user_of(side)
        if player is not None and player.is_bot:
            # A BOT account is marked in the record too, as lichess's PGN says [WhiteTitle "BOT"] (issue #41).
            headers[f"Player{side}Title"] = "BOT"
    headers |= {
        "Result": result,
        "Termination": game.end_reason or "unterminated",
    }
    if game.start_fen:
        headers["FEN"] = game.start_fen
    return dump_record(game.engine, list(game.tokens), headers, start=game.start_state())


@dataclass(frozen=True)
class RecentGame:
    game: Game
    name: str
    date: datetime
    result: str  # win / loss / draw, from the profile owner's side
    opponent_name: str
    opponent_username: str  # "" unless the opponent is a registered player
    opponent: Any  # the opponent's account (None for a guest or the computer): its BOT mark (issue #41)

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
                name=game_name(game.game),
                date=game.finished_at or game.created_at,
                result=result,
                opponent_name=game.side_name(1 - side),
                opponent_username=opponent.username if opponent is not None else "",
                opponent=opponent,
            )
        )
    return rows


@dataclass(frozen=True)
class YourMove:
    """A game waiting for this player's move: the home page's "Your move" list."""

    game: Game
    side: int
    deadline: datetime | None  # when a correspondence move is due (a live clock's fall is not listed)


# A player seldom has more running games than this; beyond it the list (and the count) stops.
YOUR_MOVE_LIMIT = 100


def your_move(user) -> list[YourMove]:
    """The running games where it is ``user``'s turn: correspondence first, the most urgent first.

    Whose turn it is lives in the position (a Quantum collapse makes one side
    move twice, so the ply's parity does not tell); ``Game.mover`` keeps it
    with every change, so this is one query that parses no position.
    """
    if user is None or not user.is_authenticated:
        return []
    waiting = (
        _your_move_games(user).select_related("user0", "user1").order_by("-days_per_move", "flag_at", "pk")
    )
    items = [
        YourMove(
            game=game,
            side=game.mover,
            deadline=game.flag_at if game.days_per_move else None,
        )
        for game in waiting[:YOUR_MOVE_LIMIT]
    ]
    items.sort(key=lambda item: (item.deadline is None, item.deadline or item.game.started_at))
    return items


def _your_move_games(user):
    return Game.objects.filter(Q(user0=user, mover=0) | Q(user1=user, mover=1), status=Game.Status.ACTIVE)


def your_move_count(user) -> int:
    """How many running games wait for ``user``'s move (one COUNT)."""
    return _your_move_games(user)[:YOUR_MOVE_LIMIT].count()


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
    rating: int  # its creator's rating in that game (correspondence for a correspondence challenge)
    provisional: bool = False  # from fewer than 10 rated games: shown "1500?"

    @property
    def speed(self) -> str:
        return clock_speed(self.game.time_control, self.game.increment, self.game.days_per_move)


def open_challenges(*, viewer, wanted: LobbyFilter | None = None) -> list[Challenge]:
    """The open challenges ``viewer`` may see and asked for, newest first.

    Blocks hide a challenge both ways (the viewer's own always show). The
    rating range applies to the challenger's rating in that game, read through
    the ratings app's reader (games/hooks.py).
    """
    from accounts.services.blocks import either_blocked

    wanted = wanted or LobbyFilter()
    games = Game.objects.filter(status=Game.Status.WAITING, kind=Game.Kind.LOBBY).select_related("created_by")
    if wanted.game:
        games = games.filter(game=wanted.game)
    if wanted.casual is not None:
        games = games.filter(casual=wanted.casual)
    if wanted.speed == Speed.CORRESPONDENCE:
        games = games.filter(days_per_move__gt=0)
    elif wanted.speed:
        low, high = SPEED_BOUNDS[wanted.speed]
        games = games.filter(days_per_move=0)
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
        rating, provisional = (
            hooks.standing_of(creator, game.game, correspondence=game.days_per_move > 0)
            if creator
            else (0, False)
        )
        if wanted.rating_min is not None and rating < wanted.rating_min:
            continue
        if wanted.rating_max is not None and rating > wanted.rating_max:
            continue
        rows.append(Challenge(game=game, rating=rating, provisional=provisional))
        if len(rows) >= LOBBY_LIMIT:
            break
    return rows
