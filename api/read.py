"""The read API: profiles, games (one, a player's as NDJSON, those in play), rankings, tournaments.

Everything here is what the site's pages already show anyone: a profile, a game's
record (/play/{id}/record.txt), the Watch list, the rankings and tournament pages.
Nothing private is read: no e-mail, messages, blocks, stars, guest keys or invite
links. Blocks hide nothing here, as on the pages that show public data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from ninja import Query, Router

from accounts.models import User
from accounts.services.profiles import find_player
from api.auth import ApiError, TokenAuth
from api.models import Scope
from api.schemas import (
    GameOut,
    RankingOut,
    TournamentDetailOut,
    TournamentListOut,
    UserOut,
    WatchGameOut,
)
from games.engines import ENGINES
from games.models import Game, time_control_label
from games.store import watchlist
from games.store.selectors import record_text
from ratings import selectors as ratings
from ratings.elo import is_provisional, shown
from ratings.models import Rating, RatingChange
from tournaments import selectors as tournament_reads
from tournaments.models import Tournament

GameSlug = StrEnum("GameSlug", {slug: slug for slug in ENGINES})  # type: ignore[misc]
RANKING_PAGE = 50
EXPORT_DEFAULT = 100
EXPORT_MAX = 1000
WATCH_SHOWN = 100
STANDINGS_MAX = 1000
TOURNAMENTS_FINISHED = 20

ANONYMOUS_TAG = "read"  # the OpenAPI tag of endpoints that also serve callers without a token
read = TokenAuth(Scope.READ, anonymous=True)
router = Router(auth=read, tags=[ANONYMOUS_TAG])


def _errors(*codes: int) -> dict[int, Any]:
    from api.schemas import ErrorOut

    return {code: ErrorOut for code in codes}


COMMON = _errors(400, 401, 403, 429)


def _player(name: str) -> User:
    # Names are at most 30 characters; the check also keeps NUL and other junk out of SQL.
    player = find_player(name) if 0 < len(name) <= 150 and "\x00" not in name else None
    if player is None:
        raise ApiError(404, f"There is no player called {name[:40]!r}.")
    return player


# --- players ------------------------------------------------------------------------------------


@router.get("/user/{name}", response={200: UserOut, **COMMON, **_errors(404)}, summary="A player's profile")
def user(request: HttpRequest, name: str) -> dict[str, Any]:
    """A player's public profile and their ratings in every game and pool they have played rated."""
    player = _player(name)
    rows = list(Rating.objects.filter(user=player, rated_games__gt=0).order_by("correspondence", "game"))
    out: list[dict[str, Any]] = []
    for correspondence in (False, True):
        pool = [row for row in rows if row.correspondence == correspondence]
        places = ratings.places_for(((player.pk, row.game) for row in pool), correspondence=correspondence)
        points = ratings.points_by_game(player, correspondence=correspondence)
        out.extend(
            {
                "game": row.game,
                "pool": "correspondence" if correspondence else "live",
                "rating": shown(row.value),
                "provisional": is_provisional(row.rated_games),
                "rated_games": row.rated_games,
                "wins": row.wins,
                "losses": row.losses,
                "peak": shown(row.peak),
                "place": places.get((player.pk, row.game)),
                "points": points.get(row.game, 0),
            }
            for row in pool
        )
    return {
        "username": player.username,
        "url": request.build_absolute_uri(player.get_absolute_url()),
        "joined": player.date_joined,
        "about": player.about,
        "ratings": out,
    }


# --- games --------------------------------------------------------------------------------------


def _seat(game: Game, side: int, changes: dict[tuple[int, int], RatingChange]) -> dict[str, Any]:
    level = game.ai_of(side)
    user_obj = game.user_of(side)
    if level:
        kind = "computer"
    elif user_obj is not None:
        kind = "user"
    elif game.guest_key_of(side):
        kind = "guest"
    else:
        kind = "none"  # an account deleted since, or a seat never taken
    change = changes.get((game.pk, user_obj.pk)) if user_obj is not None else None
    return {
        "side": side,
        "kind": kind,
        "name": game.side_name(side) if kind != "none" else "",
        "username": user_obj.username if user_obj is not None else None,
        "level": level or None,
        "rating_change": ratings.rating_shift(change) if change is not None else None,
    }


def _changes(games: Iterable[Game]) -> dict[tuple[int, int], RatingChange]:
    ids = [game.pk for game in games]
    return {(c.game_id, c.user_id): c for c in RatingChange.objects.filter(game_id__in=ids)}


def _game_json(
    game: Game, changes: dict[tuple[int, int], RatingChange], request: HttpRequest
) -> dict[str, Any]:
    return {
        "id": game.pk,
        "url": request.build_absolute_uri(game.get_absolute_url()),
        "game": game.game,
        "status": game.status,
        "rated": game.rated,
        "casual": game.casual,
        "time_control": {
            "base_seconds": game.time_control,
            "increment": game.increment,
            "days_per_move": game.days_per_move,
            "label": time_control_label(game.time_control, game.increment, game.days_per_move),
        },
        "players": [_seat(game, side, changes) for side in (0, 1)],
        "winner": game.winner,
        "end_reason": game.end_reason,
        "ply": game.ply,
        "moves": list(game.tokens),
        "start_fen": game.start_fen,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "record": record_text(game, site=request.get_host()),
    }


@router.get("/game/{game_id}", response={200: GameOut, **COMMON, **_errors(404)}, summary="One game")
def one_game(request: HttpRequest, game_id: int) -> dict[str, Any]:
    """A game that has started (in play, finished or aborted): its metadata and its record."""
    game = (
        Game.objects.select_related("user0", "user1")
        .exclude(status=Game.Status.WAITING)
        .filter(pk=game_id if 0 < game_id < 2**63 else 0)
        .first()
    )
    if game is None:
        raise ApiError(404, "There is no such game (or it has not started).")
    return _game_json(game, _changes([game]), request)


def _aware(value: datetime | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        if timezone.is_naive(value):
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC)
    except (OverflowError, ValueError) as error:
        raise ApiError(400, f"{name}: a date and time this API cannot handle.") from error


def _json_default(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(type(value).__name__)


NDJSON = "application/x-ndjson"


@router.get(
    "/games/user/{name}",
    response={**COMMON, **_errors(404)},
    summary="A player's games, as NDJSON",
    openapi_extra={
        "responses": {
            200: {
                "description": "One JSON object per line, newest game first: the shape of GET /api/game/{id}.",
                "content": {NDJSON: {"schema": {"$ref": "#/components/schemas/GameOut"}}},
            }
        }
    },
)
def user_games(
    request: HttpRequest,
    name: str,
    game: GameSlug | None = None,
    rated: bool | None = None,  # noqa: FBT001  (a query parameter, named by django-ninja)
    since: datetime | None = None,
    until: datetime | None = None,
    max: int = Query(EXPORT_DEFAULT, ge=1, le=EXPORT_MAX),  # noqa: A002  (the lichess parameter's name)
) -> HttpResponse:
    """The player's finished games, newest first, one JSON object a line.

    ``since`` and ``until`` bound when the game ended (``since`` <= end < ``until``), so
    paging backwards is ``until`` = the last line's ``finished_at``.
    """
    player = _player(name)
    since_at, until_at = _aware(since, "since"), _aware(until, "until")
    games = Game.objects.filter(Q(user0=player) | Q(user1=player), status=Game.Status.FINISHED)
    if game is not None:
        games = games.filter(game=game.value)
    if rated is not None:
        games = games.filter(rated=rated)
    if since_at is not None:
        games = games.filter(finished_at__gte=since_at)
    if until_at is not None:
        games = games.filter(finished_at__lt=until_at)
    chosen = list(games.select_related("user0", "user1").order_by("-finished_at", "-pk")[:max])
    changes = _changes(chosen)
    lines = (
        json.dumps(_game_json(g, changes, request), default=_json_default, ensure_ascii=False) for g in chosen
    )
    return HttpResponse("".join(line + "\n" for line in lines), content_type=NDJSON)


@router.get("/watch", response={200: list[WatchGameOut], **COMMON}, summary="The games in play")
def watch(request: HttpRequest) -> list[dict[str, Any]]:
    """The Watch page's list: games between people, then the timed ones against a strong computer; best first."""
    rows = [game.as_json() for game in watchlist.games_in_play()[:WATCH_SHOWN]]
    for row in rows:
        row.pop("spectators", None)  # counted per daphne process for the page; not kept here
    return rows


# --- rankings -----------------------------------------------------------------------------------


class Order(StrEnum):
    rating = "rating"
    points = "points"


class Pool(StrEnum):
    live = "live"
    correspondence = "correspondence"


@router.get(
    "/rankings/{game}", response={200: RankingOut, **COMMON, **_errors(404)}, summary="A game's ranking"
)
def rankings(
    request: HttpRequest,
    game: GameSlug,
    order: Order = Order.rating,
    pool: Pool = Pool.live,
    page: int = Query(1, ge=1, le=100_000),
) -> dict[str, Any]:
    """Ranked players of one game (active, with a rated game), 50 a page, best first."""
    correspondence = pool is Pool.correspondence
    paginator = Paginator(
        ratings.ranking(game.value, order=order.value, correspondence=correspondence), RANKING_PAGE
    )
    if page > max(paginator.num_pages, 1):
        raise ApiError(404, f"There are {paginator.num_pages} pages.")
    rows = paginator.page(page).object_list if paginator.count else []
    return {
        "game": game.value,
        "order": order.value,
        "pool": pool.value,
        "page": page,
        "pages": max(paginator.num_pages, 1) if paginator.count else 1,
        "count": paginator.count,
        "players": [
            {
                "place": row.place,  # type: ignore[attr-defined]  # annotated by ranking()
                "username": row.user.username,
                "rating": shown(row.value),
                "provisional": is_provisional(row.rated_games),
                "rated_games": row.rated_games,
                "points": row.points,  # type: ignore[attr-defined]
            }
            for row in rows
        ],
    }


# --- tournaments --------------------------------------------------------------------------------


def _tournament(tournament: Tournament, players: int) -> dict[str, Any]:
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "url": tournament.get_absolute_url(),
        "kind": tournament.kind,
        "game": tournament.game,
        "status": tournament.status,
        "minutes": tournament.minutes,
        "increment": tournament.increment,
        "starts_at": tournament.starts_at,
        "ends_at": tournament.ends_at,
        "rounds": None if tournament.is_arena else tournament.rounds,
        "round": tournament.round,
        "private": tournament.is_private,
        "winner": tournament.winner.username if tournament.winner else None,
        "players": players,
    }


@router.get("/tournaments", response={200: TournamentListOut, **COMMON}, summary="Tournaments")
def tournaments(request: HttpRequest) -> dict[str, Any]:
    """Running and upcoming tournaments, and the last 20 finished, as the tournaments page lists them."""
    from django.db.models import Count

    base = Tournament.objects.select_related("winner").annotate(n=Count("participants"))
    status = Tournament.Status
    groups = {
        "running": base.filter(status=status.RUNNING).order_by("starts_at"),
        "upcoming": base.filter(status=status.SCHEDULED).order_by("starts_at"),
        "finished": base.filter(status=status.FINISHED).order_by("-finished_at")[:TOURNAMENTS_FINISHED],
    }
    return {key: [_tournament(t, t.n) for t in rows] for key, rows in groups.items()}


@router.get(
    "/tournament/{tournament_id}",
    response={200: TournamentDetailOut, **COMMON, **_errors(404)},
    summary="A tournament and its standings",
)
def tournament(request: HttpRequest, tournament_id: int) -> dict[str, Any]:
    """A tournament, its standings (best first: score, then Buchholz, wins, who joined first) and games in play."""
    found = (
        Tournament.objects.select_related("winner")
        .filter(pk=tournament_id if 0 < tournament_id < 2**63 else 0)
        .first()
    )
    if found is None:
        raise ApiError(404, "There is no such tournament.")
    entries = list(tournament_reads.standings(found)[:STANDINGS_MAX])
    out = _tournament(found, found.participants.count())
    out["standings"] = [
        {
            "rank": rank,
            "username": entry.user.username,
            "score": tournament_reads.score_text(found, entry.score),
            "points": entry.score,
            "games": entry.games,
            "wins": entry.wins,
            "draws": entry.draws,
            "losses": entry.losses,
            "buchholz": tournament_reads.score_text(found, entry.buchholz),
            "paused": entry.paused,
            "withdrawn": entry.withdrawn,
            "place": entry.place,
        }
        for rank, entry in enumerate(entries, start=1)
    ]
    out["games"] = [
        {
            "id": pairing.game_id,
            "url": f"/play/{pairing.game_id}/",
            "white": pairing.white.user.username,
            "black": pairing.black.user.username if pairing.black else "",
        }
        for pairing in tournament_reads.current_games(found)
    ]
    return out
