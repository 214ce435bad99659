"""Quick pairing: registered players waiting in a pool (game, minutes) are paired by rating.

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
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import Count
from django.utils.translation import gettext as _

from accounts.identity import Identity
from games.live import events
from games.models import GAME_CHOICES, TIME_CONTROL_CHOICES, Game, Seek
from games.services.base import Code, GameError, now
from games.services.setup import create_paired_game

BASE_RANGE = 150
WIDEN_BY = 50
WIDEN_EVERY = timedelta(seconds=5)
POOL_LIMIT = 500  # seeks read per pool and run: the oldest, who are owed a game first

GAMES = {slug for slug, _name in GAME_CHOICES}


# A player's rating in a game. games never imports ratings: the ratings app puts
# its own reader here when it starts (ratings/apps.py); 1500 until then.
def _provisional_rating(user: object, game: str) -> int:
    return 1500


rating_of: Callable[[object, str], int] = _provisional_rating


class _Gone(Exception):
    """One of the pair's seeks was taken meanwhile: undo this pair's savepoint."""


def rating_range(seek: Seek, *, at: datetime) -> int:
    waited = max(timedelta(0), at - seek.created_at)
    return BASE_RANGE + WIDEN_BY * int(waited / WIDEN_EVERY)


def seek(*, identity: Identity, game: str, minutes: int) -> Game | None:
    """Wait for a quick game (replacing any seek of this player); the game if paired at once."""
    user = identity.user
    if user is None:
        raise GameError(Code.LOGIN_REQUIRED, _("Log in to play a quick game."))
    if game not in GAMES:
        raise GameError(Code.BAD_KIND, _("Unknown game."))
    if minutes not in TIME_CONTROL_CHOICES:
        raise GameError(Code.BAD_TIME, _("Choose one of the offered time controls."))
    rating = int(rating_of(user, game))
    with transaction.atomic():
        Seek.objects.filter(user=user).delete()
        Seek.objects.create(user=user, game=game, minutes=minutes, rating=rating, created_at=now())
    for made in pair_pool(game, minutes):
        if user.pk in (made.user0_id, made.user1_id):
            return made
    return None


def cancel_seek(*, user_id: int | None) -> bool:
    """The seeker stops waiting (the button, or their page closed); False if they were not waiting."""
    if user_id is None:
        return False
    deleted, _kinds = Seek.objects.filter(user_id=user_id).delete()
    return deleted > 0


def pair_pool(game: str, minutes: int) -> list[Game]:
    """Pair whoever can be paired in one pool now; returns the games created."""
    from accounts.services.blocks import either_blocked

    at = now()
    made: list[Game] = []
    with transaction.atomic():
        pool = (
            Seek.objects.filter(game=game, minutes=minutes)
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
            for second in seeks[i + 1 :]:
                if second.pk in taken:
                    continue
                allowed = min(rating_range(first, at=at), rating_range(second, at=at))
                if abs(first.rating - second.rating) > allowed or either_blocked(first.user, second.user):
                    continue
                try:
                    made.append(_start_pair(first, second))
                except _Gone:
                    continue
                taken |= {first.pk, second.pk}
                break
    return made


def sweep() -> int:
    """Pair every pool with two or more seekers (their ranges have widened since); returns games made."""
    pools = Seek.objects.values_list("game", "minutes").order_by().annotate(n=Count("pk"))
    return sum(len(pair_pool(game, minutes)) for game, minutes, n in pools if n >= 2)


def _start_pair(first: Seek, second: Seek) -> Game:
    """The pair's game, in a savepoint that also deletes both seeks (or neither)."""
    with transaction.atomic():
        deleted, _kinds = Seek.objects.filter(pk__in=[first.pk, second.pk]).delete()
        if deleted != 2:
            raise _Gone
        # Who waited longer plays first.
        new = create_paired_game(game=first.game, users=(first.user, second.user), minutes=first.minutes)
        game_id, users = new.pk, (first.user_id, second.user_id)

        def tell_both() -> None:
            for user_id in users:
                events.send_paired(user_id, game_id)

        transaction.on_commit(tell_both)
    return new
