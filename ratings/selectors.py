"""Reads: rankings with places, a player's place, history rows, profile blocks.

Places use standard competition ranking ("1, 2, 2, 4") over the *shown* rating
(rounded half up), so two players who see the same number share a place. Only
active players with at least one rated game in that game are ranked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Window
from django.db.models.functions import Coalesce, Floor, Lower, Rank
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.engines import ENGINES
from games.hooks import RatingShift
from games.kinds import game_name
from games.models import Favourite, Game
from games.services.analysis import summaries_for
from ratings.charts import sparkline
from ratings.elo import INITIAL_RATING, is_provisional, shown
from ratings.enums import Result, UnratedReason
from ratings.models import Rating, RatingChange
from ratings.rules import FARMING_LIMIT, FARMING_WINDOW

RESULTS = tuple(Result)


def _farming_reason() -> str:
    # Built from the rule's own constants, so the sentence cannot drift from the rule.
    return gettext(
        "only the first %(limit)d decisive games between the same two players within %(hours)d hours count"
    ) % {"limit": FARMING_LIMIT, "hours": FARMING_WINDOW // timedelta(hours=1)}


RESULT_LABELS = {
    Result.WIN: _("Win"),
    Result.LOSS: _("Loss"),
    Result.DRAW: _("Draw"),
    Result.ABORTED: _("Aborted"),
}
UNRATED_REASONS: dict[str, Promise | str] = {  # keyed by UnratedReason; stored values are plain text
    UnratedReason.ABORTED: _("aborted games never count"),
    UnratedReason.COMPUTER: _("games against the computer are unrated"),
    UnratedReason.CASUAL: _("casual"),
    UnratedReason.GUEST: _("games with a guest are unrated"),
    UnratedReason.DRAW: _("draws leave ratings unchanged"),
    UnratedReason.FARMING: lazy(_farming_reason, str)(),
    UnratedReason.SAME_PLAYER: _("a player cannot be rated against themselves"),
    UnratedReason.NO_PLAYER: _("a player's account no longer exists"),
}


def _ranked(game_slug: str, *, correspondence: bool = False) -> QuerySet[Rating]:
    return Rating.objects.filter(
        game=game_slug, correspondence=correspondence, rated_games__gt=0, user__is_active=True
    )


def _pool(*, correspondence: bool, via: str = "") -> dict[str, int]:
    """The games of one rating pool: correspondence (days per move) or live (``via``: the path to the game)."""
    return {f"{via}days_per_move__gt": 0} if correspondence else {f"{via}days_per_move": 0}


# --- points (seed 004): a point per win over a person, none for draws, casual games or wins over the computer.
# Guests are anonymous (a second browser makes one), so, as with ratings, only wins over
# another registered player earn a point.
def _wins_over_people(side: int, *, correspondence: bool) -> QuerySet[Game]:
    """Finished games ``side`` won against another registered player (for the outer Rating row)."""
    other = 1 - side
    return Game.objects.filter(
        **{f"user{side}": OuterRef("user"), f"user{other}__isnull": False, f"ai{other}": ""},
        **_pool(correspondence=correspondence),
        game=OuterRef("game"),
        status=Game.Status.FINISHED,
        winner=side,
        casual=False,  # a casual game earns no point
    ).exclude(**{f"user{other}": OuterRef("user")})


def _count(games: QuerySet[Game]):
    return Coalesce(Subquery(games.order_by().values("game").annotate(n=Count("pk")).values("n")[:1]), 0)


def points_expression(*, correspondence: bool = False):
    """An annotation for Rating rows: the player's points in that game (in one pool)."""
    return _count(_wins_over_people(0, correspondence=correspondence)) + _count(
        _wins_over_people(1, correspondence=correspondence)
    )


RANKING_ORDERS = ("rating", "points")


def ranking(game_slug: str, *, order: str = "rating", correspondence: bool = False) -> QuerySet[Rating]:
    """The leaderboard of one game, best first by Elo rating or by points.

    Each row is annotated with ``points`` and with ``place`` in the chosen order
    (ties share a place).
    """
    shown_value = Floor(F("value") + 0.5)
    rows = (
        _ranked(game_slug, correspondence=correspondence)
        .select_related("user")
        .annotate(points=points_expression(correspondence=correspondence))
    )
    if order == "points":
        return rows.annotate(place=Window(Rank(), order_by=F("points").desc())).order_by(
            "place", shown_value.desc(), Lower("user__username"), "user_id"
        )
    return rows.annotate(place=Window(Rank(), order_by=shown_value.desc())).order_by(
        "place", Lower("user__username"), "user_id"
    )


def points_by_game(player, *, correspondence: bool = False) -> dict[str, int]:
    """The player's points in each game of one pool (games without a point are absent)."""
    points: dict[str, int] = {}
    for side in (0, 1):
        other = 1 - side
        wins = (
            Game.objects.filter(
                **{f"user{side}": player, f"user{other}__isnull": False, f"ai{other}": ""},
                **_pool(correspondence=correspondence),
                status=Game.Status.FINISHED,
                winner=side,
                casual=False,
            )
            .exclude(**{f"user{other}": player})
            .order_by()
            .values("game")
            .annotate(n=Count("pk"))
        )
        for row in wins:
            points[row["game"]] = points.get(row["game"], 0) + row["n"]
    return points


def place_of(user, game_slug: str, *, correspondence: bool = False) -> int | None:
    """The player's place in that game's ranking (live or correspondence), None when not ranked."""
    if user is None or getattr(user, "pk", None) is None:
        return None
    ranked = _ranked(game_slug, correspondence=correspondence)
    value = ranked.filter(user=user).values_list("value", flat=True).first()
    if value is None:
        return None
    # A shown rating above ours is one rounding to at least shown(value) + 1.
    return 1 + ranked.filter(value__gte=shown(value) + 0.5).count()


def places_for(
    pairs: Iterable[tuple[int | None, str]], *, correspondence: bool = False
) -> dict[tuple[int, str], int]:
    """Places for many (user_id, game_slug) pairs: one query per game. Unranked pairs are absent
    (and so are pairs without a user)."""
    by_game: dict[str, set[int]] = {}
    for user_id, slug in pairs:
        if user_id is not None:
            by_game.setdefault(slug, set()).add(user_id)
    places: dict[tuple[int, str], int] = {}
    for slug, user_ids in by_game.items():
        higher = (
            _ranked(slug, correspondence=correspondence)
            .filter(value__gte=OuterRef("threshold"))
            .order_by()
            .values("game")
            .annotate(n=Count("pk"))
            .values("n")
        )
        rows = (
            _ranked(slug, correspondence=correspondence)
            .filter(user_id__in=user_ids)
            .annotate(threshold=Floor(F("value") + 0.5) + 0.5)
            .annotate(higher=Coalesce(Subquery(higher), 0))
            .values_list("user_id", "higher")
        )
        for user_id, higher_count in rows:
            places[(user_id, slug)] = 1 + higher_count
    return places


# --- history -----------------------------------------------------------------
def _side_q(identity, side: int) -> Q:
    if identity.user is not None:
        return Q(**{f"user{side}": identity.user})
    if identity.guest is not None:
        return Q(**{f"guest{side}_key": identity.guest.key})
    return Q(pk__in=[])


def history_for(
    identity,
    *,
    game: str = "",
    result: str = "",
    starred_only: bool = False,
    guest_starred: Iterable[int] = (),
) -> QuerySet[Game]:
    """The identity's finished (and started-then-aborted) games, newest first, filtered."""
    side0, side1 = _side_q(identity, 0), _side_q(identity, 1)
    started_then_aborted = Q(status=Game.Status.ABORTED) & (Q(ply__gt=0) | Q(started_at__isnull=False))
    qs = Game.objects.filter(side0 | side1).filter(Q(status=Game.Status.FINISHED) | started_then_aborted)
    if game:
        qs = qs.filter(game=game)
    finished = Q(status=Game.Status.FINISHED)
    if result == Result.WIN:
        qs = qs.filter(finished & ((side0 & Q(winner=0)) | (side1 & Q(winner=1))))
    elif result == Result.LOSS:
        qs = qs.filter(finished & ((side0 & Q(winner=1)) | (side1 & Q(winner=0))))
    elif result == Result.DRAW:
        qs = qs.filter(finished, winner__isnull=True)
    elif result == Result.ABORTED:
        qs = qs.filter(status=Game.Status.ABORTED)
    if starred_only:
        if identity.user is not None:
            qs = qs.filter(Exists(Favourite.objects.filter(user=identity.user, game=OuterRef("pk"))))
        else:
            qs = qs.filter(pk__in=list(guest_starred))
    return qs.select_related("user0", "user1").order_by(Coalesce("finished_at", "created_at").desc(), "-pk")


@dataclass
class HistoryRow:
    game: Game
    date: datetime
    game_name: str
    result: Result  # from the viewer's side
    result_label: str
    opponent_name: str
    opponent_kind: str  # user / guest / computer / none
    opponent_user: object | None
    opponent_place_at_end: int | None
    opponent_place_now: int | None
    change: RatingChange | None
    unrated_reason: str
    starred: bool
    analysis: dict | None = None  # the viewer's accuracy and error counts, once the game is analysed

    @property
    def css_class(self) -> str:
        return f"result-{self.result}"

    @property
    def replay_url(self) -> str:
        return f"/play/{self.game.pk}/replay/"


def result_for_side(game: Game, side: int) -> Result:
    if game.status == Game.Status.ABORTED:
        return Result.ABORTED
    if game.winner is None:
        return Result.DRAW
    return Result.WIN if game.winner == side else Result.LOSS


def history_rows(identity, games: Iterable[Game], *, starred_ids: Iterable[int]) -> list[HistoryRow]:
    """Everything a history page shows for ``games`` (one page), in a few queries."""
    games = list(games)
    starred = set(starred_ids)
    changes: dict[int, RatingChange] = {}
    if identity.user is not None:
        changes = {
            c.game_id: c
            for c in RatingChange.objects.filter(user=identity.user, game_id__in=[g.pk for g in games])
        }
    sides = {g.pk: g.side_of(identity) for g in games}
    places_now = places_for(
        (g.user_id_of(1 - side), g.game) for g in games if (side := sides[g.pk]) is not None
    )
    analysed = summaries_for([g.pk for g in games])
    rows = []
    for g in games:
        me = sides[g.pk]
        if me is None:  # cannot happen for history_for's games; be safe rather than wrong
            continue
        opp = 1 - me
        opp_user = g.user_of(opp)
        opp_id = g.user_id_of(opp)
        if g.ai_of(opp):
            kind = "computer"
        elif opp_user is not None:
            kind = "user"
        elif g.guest_key_of(opp):
            kind = "guest"
        else:
            kind = "none"
        result = result_for_side(g, me)
        reason = "" if g.rated else UNRATED_REASONS.get(g.unrated_reason, g.unrated_reason)
        rows.append(
            HistoryRow(
                game=g,
                date=g.finished_at or g.created_at,
                game_name=game_name(g.game),
                result=result,
                result_label=str(RESULT_LABELS[result]),
                opponent_name=g.side_name(opp),
                opponent_kind=kind,
                opponent_user=opp_user,
                opponent_place_at_end=g.place0_at_end if opp == 0 else g.place1_at_end,
                opponent_place_now=None if opp_id is None else places_now.get((opp_id, g.game)),
                change=changes.get(g.pk),
                unrated_reason=str(reason),
                starred=g.pk in starred,
                analysis=analysed[g.pk][me] if g.pk in analysed else None,
            )
        )
    return rows


def starred_ids_among(identity, game_ids: Iterable[int], *, guest_starred: Iterable[int] = ()) -> set[int]:
    game_ids = list(game_ids)
    if identity.user is not None:
        return set(
            Favourite.objects.filter(user=identity.user, game_id__in=game_ids).values_list(
                "game_id", flat=True
            )
        )
    return set(game_ids) & set(guest_starred)


# --- profile -------------------------------------------------------------------
@dataclass
class ProfileRating:
    slug: str
    name: str
    rating: Rating | None
    place: int | None
    points: int
    chart_points: str
    chart_first: int | None
    chart_last: int | None
    correspondence: bool = False


CHART_GAMES = 100  # the graph shows the last hundred rated games


def profile_ratings(player) -> list[ProfileRating]:
    """One block per game (live), then one per game the player has a correspondence rating in."""
    blocks = _pool_blocks(player, correspondence=False)
    return blocks + [b for b in _pool_blocks(player, correspondence=True) if b.rating is not None]


def _pool_blocks(player, *, correspondence: bool) -> list[ProfileRating]:
    """Rating, place and the points of a small rating graph, per game, in one pool."""
    ratings = {r.game: r for r in Rating.objects.filter(user=player, correspondence=correspondence)}
    places = places_for(((player.pk, slug) for slug in ratings), correspondence=correspondence)
    points = points_by_game(player, correspondence=correspondence)
    blocks = []
    for slug in ENGINES:
        rating = ratings.get(slug)
        values: list[float] = []
        if rating is not None and rating.rated_games:
            changes = list(
                RatingChange.objects.filter(
                    user=player, game__game=slug, **_pool(correspondence=correspondence, via="game__")
                )
                .order_by("-created_at", "-pk")
                .values_list("before", "after")[:CHART_GAMES]
            )
            changes.reverse()
            if changes:
                values = [changes[0][0], *(after for _, after in changes)]
        blocks.append(
            ProfileRating(
                slug=slug,
                name=game_name(slug),
                rating=rating if rating is not None and rating.rated_games else None,
                place=places.get((player.pk, slug)),
                points=points.get(slug, 0),
                chart_points=sparkline(values) if len(values) > 1 else "",
                chart_first=shown(values[0]) if values else None,
                chart_last=shown(values[-1]) if values else None,
                correspondence=correspondence,
            )
        )
    return blocks


def rating_value(user: object, game: str, *, correspondence: bool = False) -> int:
    """``user``'s rating in ``game`` as shown, live or correspondence (1500 before their first rated game there)."""
    return standing(user, game, correspondence=correspondence)[0]


def standing(user: object, game: str, *, correspondence: bool = False) -> tuple[int, bool]:
    """``user``'s rating in ``game`` as shown, and whether it is provisional (1500? before a rated game)."""
    user_id = getattr(user, "pk", None)
    row = None
    if isinstance(user_id, int):
        row = (
            Rating.objects.filter(user_id=user_id, game=game, correspondence=correspondence)
            .values_list("value", "rated_games")
            .first()
        )
    value, rated_games = row if row is not None else (INITIAL_RATING, 0)
    return shown(value), is_provisional(rated_games)


def ratings_in(games: QuerySet[Game]) -> dict[tuple[int, str], tuple[int, bool]]:
    """(user id, game) -> (rating as shown, provisional) for the registered players of ``games``, in their game.

    The Watch page's reader (games/store/watchlist.py), one query: the games are a
    subquery, not a list of ids (Django compiles a list of a thousand ids slower
    than the database answers). A player without a rated game in that game is left
    out, as the game page shows no rating for them.
    """
    rows = Rating.objects.filter(
        Q(user_id__in=games.values("user0_id")) | Q(user_id__in=games.values("user1_id")),
        game__in=games.values("game"),
        rated_games__gt=0,
        correspondence=False,  # the live rating, beside a correspondence game too (as the game page)
    ).values_list("user_id", "game", "value", "rated_games")
    return {
        (user_id, game): (shown(value), is_provisional(rated_games))
        for user_id, game, value, rated_games in rows
    }


def rating_values(user_ids: Iterable[int], game: str) -> dict[int, int]:
    """Each player's rating in ``game`` as shown, in one query (1500 before their first rated game)."""
    ids = list(user_ids)
    found = dict(
        Rating.objects.filter(user_id__in=ids, game=game, correspondence=False).values_list(
            "user_id", "value"
        )
    )
    return {user_id: shown(found.get(user_id, INITIAL_RATING)) for user_id in ids}


def rating_shift(change: RatingChange) -> RatingShift:
    """A game's change of one player's rating as pages show it: before, after, and the difference of the two."""
    before, after = shown(change.before), shown(change.after)
    return {"before": before, "after": after, "delta": after - before}


def rating_changes_of(game: Game) -> list[RatingShift | None]:
    """Per side, the rating change ``game`` made (None: unrated, not applied yet, or not a registered player).

    Registered with games as its ``changes_of`` hook (games/hooks.py): the game page's
    snapshot and game-over panel show it without importing ratings.
    """
    by_user = {change.user_id: change for change in RatingChange.objects.filter(game_id=game.pk)}
    shifts: list[RatingShift | None] = []
    for side in (0, 1):
        user_id = game.user_id_of(side)  # None: a guest's or the computer's side, which no rating moves
        change = by_user.get(user_id) if user_id is not None else None
        shifts.append(rating_shift(change) if change is not None else None)
    return shifts


@dataclass(frozen=True)
class RatingAtTheTime:
    value: float  # the rating when the game was played, before its own change
    rated_games: int  # rated games in that pool before it (for the "?")
    change: RatingChange | None  # the game's own change, when it was rated


def rating_at_the_time(game: Game, side: int) -> RatingAtTheTime | None:
    """The player's rating in ``game``'s pool when it ended, before its own change (None: unrated then and since).

    A finished game's page shows this, not today's rating: the changes after
    it (later games) are left out. The last change before the game gives the
    rating then; with none before it, the first change after it says what it
    was until that game; with none at all, today's rating is then's.
    """
    user_id = game.user_id_of(side)
    if user_id is None or game.against_computer:
        return None
    own = RatingChange.objects.filter(game_id=game.pk, user_id=user_id).first()
    pool = RatingChange.objects.filter(user_id=user_id, game__game=game.game).exclude(game_id=game.pk)
    pool = (
        pool.filter(game__days_per_move__gt=0) if game.correspondence else pool.filter(game__days_per_move=0)
    )
    # Ordered by when their games ended, not when the task applied them (a retry may apply one late).
    moment = game.finished_at or game.created_at
    earlier = pool.filter(game__finished_at__lt=moment)
    later = pool.filter(game__finished_at__gte=moment)
    today = Rating.objects.filter(user_id=user_id, game=game.game, correspondence=game.correspondence).first()
    # Rated games then: today's count less the games rated since (and this one), so the "?"
    # is the one the page showed then even where the count did not start from changes.
    count = max(0, (today.rated_games if today else 0) - later.count() - (own is not None))
    if own is not None:
        return RatingAtTheTime(own.before, count, own)
    last = earlier.order_by("-game__finished_at", "-pk").first()
    if last is not None:
        return RatingAtTheTime(last.after, count, None)
    first_after = later.order_by("game__finished_at", "pk").first()
    if first_after is not None:
        return RatingAtTheTime(first_after.before, count, None)  # what it was until that game
    if today is not None and today.rated_games:
        return RatingAtTheTime(today.value, count, None)  # no change recorded since: today's is then's
    return None  # no rated game then: the page shows no rating, as before a first rated game
