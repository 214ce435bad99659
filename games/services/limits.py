"""Limits on what one player (or one address) may start: games against the computer at once.

Issue #38: one guest started 100 games against the computer, and their moves
filled the queue other players' replies wait in.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.identity import Identity
from games.models import Game
from games.services.base import Code, GameError

# The guests' computer games started from one address block, in the cache: [game id,
# guest key] pairs (the key too, so an id that now names another game, after the
# database was emptied, counts for nothing); the database says which are unfinished.
# Lost with Redis, the count starts afresh.
_ADDRESS_KEY = "games:computer-by-address:{}"
_ADDRESS_MEMORY = 24 * 3600


def _computer_games_limit(identity: Identity) -> int:
    if identity.user is not None:
        return getattr(settings, "GAMES_COMPUTER_GAMES_PLAYER", 5)
    return getattr(settings, "GAMES_COMPUTER_GAMES_GUEST", 2)


def _unfinished_computer_games(seat: Q) -> int:
    return (
        Game.objects.filter(seat, kind=Game.Kind.COMPUTER)
        .exclude(status__in=(Game.Status.FINISHED, Game.Status.ABORTED))
        .count()
    )


def _guest_games(remembered: list) -> Q:
    """The remembered games, each only while the guest who started it still sits in it."""
    seat = Q(pk__in=[])
    for game_id, key in remembered:
        seat |= Q(pk=game_id) & (Q(guest0_key=key) | Q(guest1_key=key))
    return seat


def refuse_too_many_computer_games(identity: Identity, address: str) -> list:
    """Raise TOO_MANY_GAMES when the player (or, for a guest, the address) has enough under way.

    Returns the address's remembered games (the new game is added after it is stored).
    A burst of parallel requests may pass by as many as are in flight at once; the flood
    this stops (issue #38) came one request after another.
    """
    if identity.user is not None:
        seat = Q(user0=identity.user) | Q(user1=identity.user)
    elif identity.guest is not None:
        seat = Q(guest0_key=identity.guest.key) | Q(guest1_key=identity.guest.key)
    else:
        return []
    limit = _computer_games_limit(identity)
    if _unfinished_computer_games(seat) >= limit:
        raise GameError(
            Code.TOO_MANY_GAMES,
            ngettext(
                "You already have %(count)d game against the computer in progress. "
                "Finish, resign or abandon it before starting another.",
                "You already have %(count)d games against the computer in progress. "
                "Finish, resign or abandon one of them before starting another.",
                limit,
            )
            % {"count": limit},
        )
    if identity.user is not None or not address:
        return []
    remembered = [
        entry
        for entry in cache.get(_ADDRESS_KEY.format(address)) or []
        if isinstance(entry, list | tuple) and len(entry) == 2
    ]
    unfinished = set(
        Game.objects.filter(_guest_games(remembered), kind=Game.Kind.COMPUTER)
        .exclude(status__in=(Game.Status.FINISHED, Game.Status.ABORTED))
        .values_list("pk", flat=True)
    )
    remembered = [entry for entry in remembered if entry[0] in unfinished]  # finished ones are forgotten
    if len(remembered) >= getattr(settings, "GAMES_COMPUTER_GAMES_ADDRESS", 6):
        raise GameError(
            Code.TOO_MANY_GAMES,
            _(
                "Too many guests' games against the computer are in progress from your network. "
                "Finish one, or log in to play more."
            ),
        )
    return remembered


def remember_address_game(address: str, remembered: list, game_id: int, guest_key: str) -> None:
    """Add a guest's new game to its address's unfinished ones (``remembered``, as checked)."""
    cache.set(_ADDRESS_KEY.format(address), [*remembered, [game_id, guest_key]], timeout=_ADDRESS_MEMORY)
