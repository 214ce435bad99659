"""Writes: applying a finished game to the ratings, starring games in a history."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import bus
from games.models import Favourite, Game
from ratings import elo
from ratings.enums import Applied, UnratedReason
from ratings.models import AppliedGame, Rating, RatingChange
from ratings.rules import FARMING_LIMIT, FARMING_WINDOW
from ratings.selectors import place_of, rating_changes_of

logger = logging.getLogger(__name__)

GUEST_STARRED_SESSION_KEY = "ratings_starred"


def unrated_reason(game: Game) -> UnratedReason | None:
    """Why this (finished or aborted) game cannot change ratings, None if it can.

    The farming rule is not checked here: it needs the rating rows locked.
    """
    if game.status == Game.Status.ABORTED:
        return UnratedReason.ABORTED
    if game.against_computer:
        return UnratedReason.COMPUTER
    if game.casual:
        return UnratedReason.CASUAL
    if game.guest0_key or game.guest1_key:
        return UnratedReason.GUEST
    if game.user0_id is None or game.user1_id is None:
        return UnratedReason.NO_PLAYER
    if game.user0_id == game.user1_id:
        return UnratedReason.SAME_PLAYER
    if game.winner not in (0, 1):
        return UnratedReason.DRAW
    return None


def _players(game: Game) -> tuple[int, int]:
    """The user ids of sides 0 and 1 of a game ``unrated_reason`` accepts (it has both)."""
    user0, user1 = game.user0_id, game.user1_id
    if user0 is None or user1 is None:
        raise ValueError(f"game {game.pk} does not have a registered player on each side")
    return user0, user1


def _is_farming(game: Game) -> bool:
    a, b = game.user0_id, game.user1_id
    since = (game.finished_at or timezone.now()) - FARMING_WINDOW
    # No upper bound on finished_at: a game applied late (a retry) still sees the
    # later games that were rated before it, so the limit holds in every window.
    earlier = (
        Game.objects.filter(Q(user0_id=a, user1_id=b) | Q(user0_id=b, user1_id=a))
        .filter(game=game.game, rated=True, finished_at__gt=since)
        .exclude(pk=game.pk)
    )
    return earlier.count() >= FARMING_LIMIT


def apply_ratings_for_game(*, game_id: int) -> Applied:
    """Apply a finished game to both players' ratings, exactly once.

    Returns what happened (``Applied``). Safe to call any number of times, from any number of workers at
    once: the first call records an ``AppliedGame`` in the same transaction as the
    changes, and later calls see it (under the game's row lock) and do nothing. A
    worker dying mid-call rolls the whole transaction back, so a retry starts clean.
    """
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return Applied.MISSING
    if unrated_reason(game) is None and game.is_over:
        # The rating rows must exist before they can be locked. Create them in
        # their own autocommit statement: inserting inside the locked transaction
        # would hold the new rows out of id order and could deadlock two workers.
        Rating.objects.bulk_create(
            [
                Rating(user_id=uid, game=game.game, correspondence=game.correspondence)
                for uid in sorted(_players(game))
            ],
            ignore_conflicts=True,
        )

    with transaction.atomic():
        # Lock the game first: a second delivery of the task (or a second worker)
        # waits here until the first commits, and then finds the AppliedGame row.
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            return Applied.MISSING
        if not game.is_over:
            logger.warning("ratings: game %s is not over (status %s); nothing applied", game_id, game.status)
            return Applied.NOT_OVER
        if AppliedGame.objects.filter(game_id=game_id).exists():
            return Applied.ALREADY_APPLIED

        reason = unrated_reason(game)
        ratings: dict[int, Rating] = {}
        if reason is None:
            # Lock both rating rows in user-id order, so two games sharing a player
            # cannot deadlock; this also serialises the farming count per pair.
            ids = sorted(_players(game))
            for uid in ids:  # rows deleted since the insert above (rare): make them again
                Rating.objects.get_or_create(user_id=uid, game=game.game, correspondence=game.correspondence)
            ratings = {
                r.user_id: r
                for r in Rating.objects.select_for_update()
                .filter(user_id__in=ids, game=game.game, correspondence=game.correspondence)
                .order_by("user_id")
            }
            if _is_farming(game):
                reason = UnratedReason.FARMING

        # Each player's place when the game ended, before this game's change.
        pool = game.correspondence
        game.place0_at_end = place_of(game.user0, game.game, correspondence=pool) if game.user0_id else None
        game.place1_at_end = place_of(game.user1, game.game, correspondence=pool) if game.user1_id else None
        game.rated = reason is None
        game.unrated_reason = reason or ""
        game.save(update_fields=["rated", "unrated_reason", "place0_at_end", "place1_at_end"])

        if reason is None:
            _apply_elo(game, ratings)
            # Committed first, then the open pages of the game are told (their game-over panel).
            changes = rating_changes_of(game)
            transaction.on_commit(lambda: bus.send_rating_changes(game_id, changes), robust=True)
        AppliedGame.objects.create(game=game, rated=reason is None)
    return Applied.RATED if reason is None else Applied.UNRATED


def _apply_elo(game: Game, ratings: dict[int, Rating]) -> None:
    now = timezone.now()
    players = [ratings[user_id] for user_id in _players(game)]
    before = [p.value for p in players]
    for side, player in enumerate(players):
        opponent = before[1 - side]
        won = game.winner == side
        k = elo.k_factor(games_played=player.rated_games, rating=player.value, peak=player.peak)
        change = elo.rating_change(
            rating=player.value, opponent=opponent, score=elo.WIN if won else elo.LOSS, k=k
        )
        player.value = before[side] + change
        player.peak = max(player.peak, player.value)
        player.rated_games += 1
        if won:
            player.wins += 1
        else:
            player.losses += 1
        player.save(update_fields=["value", "peak", "rated_games", "wins", "losses", "updated_at"])
        RatingChange.objects.create(
            game=game, user_id=player.user_id, before=before[side], after=player.value, created_at=now
        )


def games_missing_ratings(*, older_than: timedelta = timedelta(minutes=5), limit: int = 500) -> list[int]:
    """Ended games the ratings task never dealt with (e.g. the broker was down at the end)."""
    from django.db.models import Exists, OuterRef

    cutoff = timezone.now() - older_than
    return list(
        Game.objects.filter(status__in=[Game.Status.FINISHED, Game.Status.ABORTED])
        .filter(Q(finished_at__lt=cutoff) | Q(finished_at__isnull=True, created_at__lt=cutoff))
        .exclude(Exists(AppliedGame.objects.filter(game_id=OuterRef("pk"))))
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )


# --- favourites ----------------------------------------------------------------
def guest_starred_ids(session) -> list[int]:
    value = session.get(GUEST_STARRED_SESSION_KEY, [])
    return [int(v) for v in value if isinstance(v, int)] if isinstance(value, list) else []


def favourite_set(*, identity, game: Game, session, starred: bool | None = None) -> bool:
    """Star or unstar ``game`` in the identity's history (toggle when ``starred`` is None).

    The caller has checked that the identity played the game. Registered players'
    stars are ``Favourite`` rows; a guest's live in its session. Returns the new state.
    """
    if identity.user is not None:
        current = Favourite.objects.filter(user=identity.user, game=game).exists()
        target = (not current) if starred is None else starred
        if target:
            Favourite.objects.get_or_create(user=identity.user, game=game)
        else:
            Favourite.objects.filter(user=identity.user, game=game).delete()
        return target
    ids = guest_starred_ids(session)
    current = game.pk in ids
    target = (not current) if starred is None else starred
    if target and not current:
        ids.append(game.pk)
    elif not target and current:
        ids.remove(game.pk)
    session[GUEST_STARRED_SESSION_KEY] = ids
    return target


def favourites_keep_guest_stars(*, session, user) -> int:
    """A guest who registers keeps the stars it set: session stars become Favourite rows.

    Only games that guest (its session key) or the new user played are kept.
    """
    ids = guest_starred_ids(session)
    guest = session.get("guest")
    key = guest.get("key") if isinstance(guest, dict) else None
    if not ids:
        return 0
    mine = Q(user0=user) | Q(user1=user)
    if isinstance(key, str) and key:
        mine |= Q(guest0_key=key) | Q(guest1_key=key)
    games = Game.objects.filter(mine, pk__in=ids).values_list("pk", flat=True)
    created = Favourite.objects.bulk_create(
        [Favourite(user=user, game_id=pk) for pk in games], ignore_conflicts=True
    )
    session.pop(GUEST_STARRED_SESSION_KEY, None)
    return len(created)
