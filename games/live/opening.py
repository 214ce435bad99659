"""What a game socket reads from the database and Redis: everything it needs when it opens (on a
database thread, or on the event loop for a game this process has seen), a fresh snapshot, and the
game's committed version (a player's ping). The socket (``games.live.consumers``) calls them through
this module, so a test swaps one here.
"""

from __future__ import annotations

from typing import NamedTuple

import psycopg
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.identity import Identity, identity_from_scope
from games import bus, services
from games.live import fastpath, presence
from games.models import Game
from games.protocol import Snapshot
from games.store import rows


class Opened(NamedTuple):
    """Everything a socket needs once it opens."""

    snapshot: Snapshot | None  # None: no such game
    identity: Identity
    side: int | None  # None: a spectator
    online: list[bool]  # which sides have a socket open
    presence_seq: int


def in_db_thread(func):
    """Run ``func`` in a worker thread with its own database connection.

    Channels' default runs every ORM call of a process on one shared thread, one
    at a time; that thread became the ceiling under load. Games are serialised
    by their row lock (select_for_update), not by that thread, so any thread of
    the pool may run a command.
    """
    return database_sync_to_async(func, thread_sensitive=False)


@in_db_thread
def open_in_thread(game_id: int, scope: dict) -> Opened:
    """Everything a new socket needs, in one trip to a database thread.

    Hundreds of sockets reconnect at once after a network blip; each one costs
    only this call (one game query, plus one per registered player's name, and
    one Redis round trip; the session was read by the auth middleware).
    """
    identity = identity_from_scope(scope)
    try:
        game = rows.read_game(game_id)  # player names of registered users load lazily
    except Game.DoesNotExist:
        return Opened(None, identity, None, [False, False], 0)
    side = game.side_of(identity)
    if side is None:
        return Opened(bus.snapshot(game), identity, side, *presence.online(game_id))
    online, seq = presence.change(game_id, side, +1)
    # A reconnect is the moment to catch up on anything overdue (a clock that ran
    # out, a computer move whose task was lost) without waiting for the sweep.
    if (
        game.attention_at is not None
        and game.attention_at <= timezone.now()
        and services.attend(game_id) is not None
    ):
        game = rows.read_game(game_id)
    payload = bus.snapshot(game)
    fastpath.remember(game, payload["players"])  # this process will check the player's moves against it
    return Opened(payload, identity, side, online, seq)


async def open_in_loop(game_id: int, scope: dict) -> Opened | None:
    """``open_in_thread`` without a database thread, for a game this process has seen (PostgreSQL only).

    The row is read again on the event loop's own connection (its players'
    names are this process's, unchanged unless the seats changed) and presence
    goes to Redis on an asyncio client: a reconnect storm is mostly these.
    None when the thread must do it: a game not seen here, new players, an
    obligation overdue (``services.attend`` belongs to the locked path), or a
    game that is over (its snapshot reads the rating changes).
    """
    seen = fastpath.cache.get(game_id) if fastpath.enabled() else None
    if seen is None:
        return None
    try:
        seen = await fastpath.read(game_id, seen)
    except (psycopg.Error, OSError):
        return None
    if seen is None:
        return None
    game = seen.game()
    if game.attention_at is not None and game.attention_at <= timezone.now():
        return None
    if game.is_over:
        # A finished game's snapshot reads its rating changes (ratings' hook, a query):
        # the database thread does that. Reconnect storms are about games in play.
        return None
    # The session was loaded by the auth middleware: reading it here does no I/O.
    identity = identity_from_scope(scope)
    side = game.side_of(identity)
    if side is None:
        online, seq = await presence.online_in_loop(game_id)
    else:
        online, seq = await presence.change_in_loop(game_id, side, +1)
    return Opened(bus.snapshot(game, known_players=seen.players), identity, side, online, seq)


@in_db_thread
def snapshot(game_id: int) -> Snapshot:
    return bus.snapshot(rows.read_game(game_id))


@in_db_thread
def version_in_thread(game_id: int) -> int | None:
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).first()


async def version(game_id: int) -> int | None:
    """The game's committed version: on the event loop's connection when there is one
    (every player's page asks every 25 s), else in a database thread."""
    if fastpath.enabled():
        try:
            return await fastpath.version(game_id)
        except (psycopg.Error, OSError):
            pass
    return await version_in_thread(game_id)
