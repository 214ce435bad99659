"""Quick pairing: registered players waiting in a pool (game, clock or days per move) are paired by rating.

A seek is a row (``games.Seek``), so a waiting player survives a daphne or
worker restart. Pairing runs here only, in one transaction per pool: the pool's
seeks are read oldest first (on PostgreSQL ``SELECT ... FOR UPDATE SKIP
LOCKED``, so two pairing runs never hold the same seek; SQLite has one writer),
and each pair's two seeks are deleted in the savepoint that creates their game,
which goes on only if both rows were still there: a player is never paired
twice. It runs when a seek is made and from the obligations sweep
(``sweep``, every GAMES_SWEEP_SECONDS), which is what widens the ranges.

Two seekers are paired when their ratings differ by no more than the narrower
of their two ranges: +/-150, widened by 50 for every 5 s waited. Who waited
longer plays first. Two players of whom one blocked the other are never
paired. "Block all invitations" does not apply: a seeker asks to be paired.
Guests cannot seek (a guest has no rating to pair by).

The live pools are the Fischer presets (1+0, 3+2, 5+3, 10+5, 15+10), like
lichess's; the correspondence pools are 1, 3 and 7 days per move (lichess's
pool buttons are live only, its correspondence seeks choose their days: these
three are a brisk, a middling and a relaxed pace, and 2, 5 and 14 days stay
for challenges, lest seekers spread over six pools). A correspondence pair is
paired by the players' correspondence ratings, with the same ranges, and gets
a correspondence game, as a correspondence challenge does. A player has one seek,
live or correspondence: a press replaces it. A live seek goes when the
seeker's page closes (games/receivers.py); a correspondence seek waits until
it is paired or cancelled, and the seeker hears of its game later (the
"paired" and "your_turn" notices, the "Your move" list, the mails).
Rated or casual is not a pool of its own (few players are online at once, and
two half-empty pools pair nobody): the game is rated unless either seeker asked
for casual, and a seeker is paired first with someone who asked the same, when
one fits (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.utils.translation import gettext as _

from accounts.identity import Identity
from core.ratelimit import take_slot
from games import bus, hooks
from games.kinds import KINDS
from games.models import FISCHER_PRESETS, Game, Seek
from games.services.base import Code, GameError, now
from games.services.setup import create_paired_game

BASE_RANGE = 150
WIDEN_BY = 50
WIDEN_EVERY = timedelta(seconds=5)
POOL_LIMIT = 500  # seeks read per pool and run: the oldest, who are owed a game first

QUICK_POOLS: list[tuple[int, int]] = list(FISCHER_PRESETS)  # (base minutes, increment seconds)
CORRESPONDENCE_POOLS: list[int] = [1, 3, 7]  # days per move, each one of DAYS_PER_MOVE_CHOICES


class _Gone(Exception):
    """One of the pair's seeks was taken meanwhile: undo this pair's savepoint."""


def rating_range(seek: Seek, *, at: datetime) -> int:
    waited = max(timedelta(0), at - seek.created_at)
    return BASE_RANGE + WIDEN_BY * int(waited / WIDEN_EVERY)


def seek(
    *,
    identity: Identity,
    game: str,
    minutes: int = 0,
    increment: int = 0,
    casual: bool = False,
    days_per_move: int = 0,
) -> Game | None:
    """Wait for a quick game (replacing any seek of this player); the game if paired at once.

    ``days_per_move`` (one of CORRESPONDENCE_POOLS) seeks a correspondence game;
    ``minutes`` and ``increment`` are ignored then.
    """
    user = identity.user
    if user is None:
        raise GameError(Code.LOGIN_REQUIRED, _("Log in to play a quick game."))
    if user.is_bot:
        # Issue #41, as lichess: the pools are for people; a BOT is challenged (the Bots page, the API).
        raise GameError(
            Code.BOT_ACCOUNT, _("A BOT account cannot look for a quick game: people challenge it.")
        )
    if game not in KINDS:
        raise GameError(Code.BAD_KIND, _("Unknown game."))
    if days_per_move:
        if days_per_move not in CORRESPONDENCE_POOLS:
            raise GameError(Code.BAD_TIME, _("Choose one of the offered time controls."))
        minutes, increment = 0, 0
    elif (minutes, increment) not in QUICK_POOLS:
        raise GameError(Code.BAD_TIME, _("Choose one of the offered time controls."))
    # Issue #38: 200 seeks in 4.4 s all ran the pairing. A few a minute is plenty for people.
    if not take_slot(f"games:seeks:{user.pk}", getattr(settings, "GAMES_SEEKS_PER_MINUTE", 10), 60):
        raise GameError(Code.RATE_LIMITED, _("You are looking for games too quickly. Please wait a minute."))
    rating = int(hooks.rating_of(user, game, correspondence=bool(days_per_move)))
    with transaction.atomic():
        Seek.objects.filter(user=user).delete()
        Seek.objects.create(
            user=user,
            game=game,
            minutes=minutes,
            increment=increment,
            days_per_move=days_per_move,
            casual=casual,
            rating=rating,
            created_at=now(),
        )
    for made in pair_pool(game, minutes, increment, days_per_move=days_per_move):
        if user.pk in (made.user0_id, made.user1_id):
            return made
    return None


def cancel_seek(*, user_id: int | None) -> bool:
    """The seeker stops waiting (the button); False if they were not waiting."""
    if user_id is None:
        return False
    deleted, _kinds = Seek.objects.filter(user_id=user_id).delete()
    return deleted > 0


def drop_live_seek(*, user_id: int) -> None:
    """The seeker's page closed: a live seek waits for nothing now; a correspondence one stays."""
    Seek.objects.filter(user_id=user_id, days_per_move=0).delete()


def waiting_correspondence(user) -> Seek | None:
    """The player's correspondence seek, for the home page to show when they come back."""
    if user is None or not user.is_authenticated:
        return None
    return Seek.objects.filter(user=user, days_per_move__gt=0).first()


def pair_pool(game: str, minutes: int, increment: int = 0, *, days_per_move: int = 0) -> list[Game]:
    """Pair whoever can be paired in one pool now; returns the games created."""
    at = now()
    made: list[Game] = []
    with transaction.atomic():
        pool = (
            Seek.objects.filter(game=game, minutes=minutes, increment=increment, days_per_move=days_per_move)
            .order_by("created_at", "pk")
            .select_related("user")
        )
        if connection.features.has_select_for_update_skip_locked:
            pool = pool.select_for_update(skip_locked=True, of=("self",))
        seeks = list(pool[:POOL_LIMIT])
        taken: set[int] = set()
        for i, first in enumerate(seeks):
            if first.pk in taken:
                continue
            for second in _partners(first, [s for s in seeks[i + 1 :] if s.pk not in taken], at=at):
                try:
                    made.append(_start_pair(first, second))
                except _Gone:
                    continue
                taken |= {first.pk, second.pk}
                break
    return made


def _partners(first: Seek, later: list[Seek], *, at: datetime) -> Iterator[Seek]:
    """Who ``first`` may meet, oldest first: those who asked the same (rated or casual) before the others.

    Lazy: the block check is a query, asked only until a pair is made.
    """
    from accounts.services.blocks import either_blocked

    in_range = [
        second
        for second in later
        if abs(first.rating - second.rating) <= min(rating_range(first, at=at), rating_range(second, at=at))
    ]
    same = [s for s in in_range if s.casual == first.casual]
    for second in same + [s for s in in_range if s.casual != first.casual]:
        if not either_blocked(first.user, second.user):
            yield second


def sweep() -> int:
    """Pair every pool with two or more seekers (their ranges have widened since); returns games made."""
    pools = (
        Seek.objects.values_list("game", "minutes", "increment", "days_per_move")
        .order_by()
        .annotate(n=Count("pk"))
    )
    return sum(
        len(pair_pool(game, minutes, increment, days_per_move=days))
        for game, minutes, increment, days, n in pools
        if n >= 2
    )


def _start_pair(first: Seek, second: Seek) -> Game:
    """The pair's game, in a savepoint that also deletes both seeks (or neither)."""
    with transaction.atomic():
        deleted, _kinds = Seek.objects.filter(pk__in=[first.pk, second.pk]).delete()
        if deleted != 2:
            raise _Gone
        # Who waited longer plays first; rated unless either asked for casual.
        new = create_paired_game(
            game=first.game,
            users=(first.user, second.user),
            minutes=first.minutes,
            increment=first.increment,
            casual=first.casual or second.casual,
            days_per_move=first.days_per_move,
        )
        game_id, days = new.pk, new.days_per_move
        # Each player's notice names the other (a correspondence seeker may be on any page, or none).
        told = [
            (first.user_id, second.user.username, second.user.is_bot),
            (second.user_id, first.user.username, first.user.is_bot),
        ]

        def tell_both() -> None:
            for user_id, opponent, bot in told:
                bus.send_paired(user_id, game_id, days_per_move=days, opponent=opponent, bot=bot)

        transaction.on_commit(tell_both, robust=True)
    return new
