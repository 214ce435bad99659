"""A guest who logs in or registers keeps the games played in that browser session."""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in
from django.db.models import Q
from django.dispatch import receiver

from accounts.guests import get_guest
from accounts.signals import notify_socket_closed
from games.models import Game


def adopt_guest_games(*, guest_key: str, user) -> int:
    """Move every seat of ``guest_key`` to ``user``; returns how many games moved."""
    moved = 0
    for side in (0, 1):
        moved += (
            Game.objects.filter(**{f"guest{side}_key": guest_key})
            .exclude(
                Q(**{f"user{1 - side}": user})  # never seat one account on both sides
            )
            .update(**{f"user{side}": user, f"guest{side}_key": "", f"guest{side}_name": ""})
        )
    return moved


@receiver(user_logged_in)
def _adopt_on_login(sender, request, user, **kwargs) -> None:
    if request is None or not hasattr(request, "session"):
        return
    guest = get_guest(request.session, create=False)
    if guest is not None:
        adopt_guest_games(guest_key=guest.key, user=user)


@receiver(notify_socket_closed)
def _stop_seeking_on_leave(sender, user_id: int, **kwargs) -> None:
    """A live quick-pairing seeker whose page closed is waiting for nothing: the seek goes.

    A correspondence seek stays: its game is played over days, the seeker need not wait on the page.
    """
    from games.services.pairing import drop_live_seek

    drop_live_seek(user_id=user_id)
