"""Listens to the games app (an ended game gets its ratings applied in Celery) and to sign-ups."""

from __future__ import annotations

from allauth.account.signals import user_signed_up
from django.db import transaction
from django.dispatch import receiver

from games.signals import game_finished


@receiver(game_finished, dispatch_uid="ratings.enqueue_on_game_finished")
def enqueue_ratings(sender, *, game_id: int, **kwargs) -> None:
    from ratings.tasks import apply_ratings

    # games sends the signal after its transaction commits, so this normally runs
    # at once; on_commit keeps it correct if a sender ever fires inside one. robust:
    # a broker outage must not break the request that ended the game;
    # apply_missing_ratings picks such a game up later.
    def enqueue() -> None:
        apply_ratings.delay(game_id)

    transaction.on_commit(enqueue, robust=True)


@receiver(user_signed_up, dispatch_uid="ratings.keep_guest_stars")
def keep_guest_stars(sender, request=None, user=None, **kwargs) -> None:
    """A guest who registers keeps the games it starred in its history."""
    if request is None or user is None or not hasattr(request, "session"):
        return
    from ratings.services import favourites_keep_guest_stars

    favourites_keep_guest_stars(session=request.session, user=user)
