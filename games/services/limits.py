"""Limits on what one player (or one address) may start: games against the computer at once.

Issue #38: one guest started 100 games against the computer, and their moves
filled the queue other players' replies wait in.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.db import connection
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


def _serialize(*names: str) -> None:
    """Hold PostgreSQL transaction-level advisory locks on ``names`` until the caller's transaction ends.

    Why (issue #38): parallel requests each counted the games under way, found room,
    and each made one (8 guests from one address all got theirs), and each wrote back
    the address's list as it had read it, forgetting the others'. Under these locks the
    count, the new game and the address's list are one step per player and per address:
    a second request waits until the first's game is committed (and counted). Always in
    the same order (the player, then the address), so two requests never wait on each other.
    """
    if connection.vendor != "postgresql":  # the site runs on PostgreSQL only (config/settings.py)
        return
    if not connection.in_atomic_block:
        raise RuntimeError("the computer-game limits are checked inside the creating transaction")
    with connection.cursor() as cursor:
        for name in names:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"computer-games:{name}"])


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
    Called inside the transaction that stores the new game: parallel requests of one
    player, or of one address's guests, wait for each other there (``_serialize``).
    """
    if identity.user is not None:
        seat = Q(user0=identity.user) | Q(user1=identity.user)
        _serialize(f"user:{identity.user.pk}")
    elif identity.guest is not None:
        seat = Q(guest0_key=identity.guest.key) | Q(guest1_key=identity.guest.key)
        _serialize(f"guest:{identity.guest.key}", *([f"address:{address}"] if address else []))
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
    """Add a guest's new game to its address's unfinished ones (``remembered``, as checked).

    Under the address's lock (``refuse_too_many_computer_games``), so no parallel request
    wrote the list since it was read."""
    cache.set(_ADDRESS_KEY.format(address), [*remembered, [game_id, guest_key]], timeout=_ADDRESS_MEMORY)
