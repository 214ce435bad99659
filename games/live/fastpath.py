"""The fast path of a player's move: decided in daphne's event loop, stored in one statement.

The locked path (``services.play_move``) costs a hop to a database thread and
five round trips to PostgreSQL: BEGIN, the locked read, the move's insert, the
game's update, COMMIT. Most moves need none of that. Each daphne process keeps
the last row it saw of every game its sockets play (``GameCache``), decides the
move against it with the locked path's own function (``services.decide.decide_move``),
and writes the move and the game in one compare-and-set statement on its own
async connection, guarded by the version it read (``rows.cas_statement``).

The statement commits on its own (autocommit). If the row has moved on (another
process, a worker, the sweep), nothing is written; the game is read again and
the move decided once more. Whatever the decision is not a plain move to store
goes the locked way instead, which decides it again with the same function on
the locked row, and answers: a refusal of any kind (so its message and the
resync are the locked path's), a resent move (only the stored moves can tell),
a clock that ran out, a move that ends the game. Only PostgreSQL has the fast
path (SQLite cannot update inside ``WITH``); ``GAMES_FAST_MOVES=0`` turns it off.

Writes that do not bump ``Game.version`` (the sweep's bookkeeping, a guest who
registers) are never overwritten: the update sets only the columns the move
changed.

The move goes out as a patch on the version below (``bus.move_patch``), with
the mover's ``ack`` inside, and with the columns it changed (``RowChanges``): a
process whose sockets play the other side applies them to its cached row, so
its player's next move needs no read either, though the game moved on in
another process. A socket that opens on a game this process has seen reads the
row here too (``read``), without a database thread.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.base import ModelState

from accounts.identity import Identity
from core.messages import MoveEvent
from games import bus
from games.live import events
from games.models import Game
from games.protocol import Player
from games.services import queue
from games.services.base import MoveResult, now, seal
from games.services.decide import Apply, decide_move
from games.store import rows
from games.store.connections import pool
from games.store.rows import FIELD_NAMES

logger = logging.getLogger(__name__)

_JSON_FIELDS = frozenset(
    field.attname for field in Game._meta.concrete_fields if field.get_internal_type() == "JSONField"
)


def enabled() -> bool:
    return settings.GAMES_FAST_MOVES and _on_postgresql()


@functools.cache
def _on_postgresql() -> bool:
    # Asked on every socket open and move; ``connections[...]`` is a context-local lookup.
    return connections[DEFAULT_DB_ALIAS].vendor == "postgresql"


# --- the rows this process has seen ----------------------------------------------


@dataclass(frozen=True)
class Seen:
    """One game's row as this process last saw it, and its players as shown."""

    values: tuple[Any, ...]  # in FIELD_NAMES order
    players: list[Player | None]
    stale: bool = False  # a newer version was announced: read the row before deciding

    @property
    def version(self) -> int:
        return self.values[_VERSION]

    def game(self) -> Game:
        """A fresh ``Game`` to change: the JSON values are copied, the cached row stays as it was."""
        # What ``Model.from_db`` does, without ``__init__``'s walk over 45 fields
        # (``Game`` has no init signals: tests/games/test_layout.py).
        game = Game.__new__(Game)
        game.__dict__.update(zip(FIELD_NAMES, self.values, strict=True))
        for name in _JSON_FIELDS:
            game.__dict__[name] = _copy_json(game.__dict__[name])
        game._state = ModelState()
        game._state.adding = False
        game._state.db = DEFAULT_DB_ALIAS
        return game


_VERSION = FIELD_NAMES.index("version")
_JSON_POSITIONS = frozenset(FIELD_NAMES.index(name) for name in _JSON_FIELDS)
_DATETIME_FIELDS = frozenset(
    field.attname for field in Game._meta.concrete_fields if field.get_internal_type() == "DateTimeField"
)
_POSITIONS = {name: index for index, name in enumerate(FIELD_NAMES)}
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)

# The columns a move changed, as they travel in its event through the channel layer
# (msgpack): JSON columns as their JSON text (what the database hands back), datetimes
# as whole microseconds since 1970 (exact), the rest as they are (ints, text, None).
RowChanges = dict[str, Any]


def row_changes(game: Game, seen: Seen) -> RowChanges:
    """The columns of ``game`` that differ from the row ``seen``, ready to send."""
    changes: RowChanges = {}
    for name, old in zip(FIELD_NAMES, seen.values, strict=True):
        value = getattr(game, name)
        if value != old:
            changes[name] = _encode(name, value)
    return changes


def _encode(name: str, value: Any) -> Any:
    if value is None:
        return None
    if name in _JSON_FIELDS:
        return json.dumps(value)
    if name in _DATETIME_FIELDS:
        return (value - _EPOCH) // datetime.timedelta(microseconds=1)
    return value


def _decode(name: str, value: Any) -> Any:
    if value is None:
        return None
    if name in _JSON_FIELDS:
        return json.loads(value)
    if name in _DATETIME_FIELDS:
        return _EPOCH + datetime.timedelta(microseconds=value)
    return value


def _copy_json(value: Any) -> Any:
    return value.copy() if isinstance(value, dict | list) else value


def _players_key(values: tuple[Any, ...]) -> tuple[Any, ...]:
    # What the players' names are made of: when these match, the names do too.
    return tuple(
        values[FIELD_NAMES.index(name)]
        for name in ("user0_id", "user1_id", "guest0_name", "guest1_name", "ai0", "ai1")
    )


class GameCache:
    """The rows of the games this process serves, newest version kept, the least used dropped.

    Entries are replaced whole, never changed, so the database threads (which
    fill it when a socket opens) and the event loop can share it.
    """

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self._rows: OrderedDict[int, Seen] = OrderedDict()

    def get(self, game_id: int) -> Seen | None:
        seen = self._rows.get(game_id)
        if seen is not None:
            with contextlib.suppress(KeyError):  # dropped by another thread meanwhile
                self._rows.move_to_end(game_id)
        return seen

    def put(self, game: Game, players: list[Player | None]) -> None:
        self.put_values(game.pk, tuple(getattr(game, name) for name in FIELD_NAMES), players)

    def put_values(self, game_id: int, values: tuple[Any, ...], players: list[Player | None]) -> Seen:
        """Keep a row (unless a newer one is kept already); the row kept."""
        seen = Seen(values, players)
        current = self._rows.get(game_id)
        if current is not None and current.version > seen.version:
            return current
        self._rows[game_id] = seen
        while len(self._rows) > self.size:
            try:
                self._rows.popitem(last=False)
            except KeyError:
                break
        return seen

    def saw_version(self, game_id: int, version: int, changes: RowChanges | None = None) -> None:
        """An event of ``version`` went out: a cached row older than that is stale,
        unless it is the version just below and the event says what changed."""
        seen = self._rows.get(game_id)
        if seen is None or seen.version >= version or seen.stale:
            return
        if changes is not None and seen.version == version - 1:
            values = list(seen.values)
            for name, value in changes.items():
                values[_POSITIONS[name]] = _decode(name, value)
            if values[_VERSION] == version:  # the move's own changes bring the version
                self._rows[game_id] = Seen(tuple(values), seen.players)
                return
        self._rows[game_id] = Seen(seen.values, seen.players, stale=True)

    def clear(self) -> None:
        self._rows.clear()


cache = GameCache()


def remember(game: Game, players: list[Player | None]) -> None:
    """Keep the row of a game a socket just opened (called from the database thread)."""
    if enabled():
        cache.put(game, players)


# --- statements (their SQL: games/store/rows.py) --------------------------------------


async def _write(game: Game, seen: Seen, changed: tuple[str, ...], moves: list[Any]) -> bool:
    """Store the move(s) and the game's ``changed`` columns if the row is still ``seen``; True if it was."""
    sql = rows.cas_statement(changed, len(moves))
    params = rows.cas_params(game, changed, seen.version, moves)
    async with pool().connection() as conn:
        cursor = await conn.execute(sql, params)
        row = await cursor.fetchone()
    return bool(row and row[0])


async def read(game_id: int, previous: Seen) -> Seen | None:
    """The game's committed row (read in the event loop), or None: gone, or its
    players changed since ``previous`` (a database thread knows their names)."""
    async with pool().connection() as conn:
        cursor = await conn.execute(rows.row_statement(), [game_id])
        row = await cursor.fetchone()
    if row is None:
        return None
    # Django's adapters hand JSON over as text (its JSONField decodes it): the only conversion.
    values = tuple(
        json.loads(value) if index in _JSON_POSITIONS and value is not None else value
        for index, value in enumerate(row)
    )
    if _players_key(previous.values) != _players_key(values):
        return None
    return cache.put_values(game_id, values, previous.players)


async def version(game_id: int) -> int | None:
    """The game's committed version, read in the event loop; None if there is no such game."""
    async with pool().connection() as conn:
        cursor = await conn.execute(rows.version_statement(), [game_id])
        row = await cursor.fetchone()
    return None if row is None else row[0]


# --- the move -------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """Where the mover's ``ack`` goes: the socket's channel name, and the ``id`` of its move."""

    channel: str
    id: Any


def _decide(
    seen: Seen, identity: Identity, token: str, ply: int, client_id: str
) -> tuple[Game, Apply] | None:
    """The move applied to a copy of the cached row, or None: the locked path must carry out the decision."""
    game = seen.game()
    side = game.side_of(identity)
    if side is None:
        return None  # a spectator's refusal: the locked path answers it
    at = now()
    decision = decide_move(game, side, token, ply, client_id, at=at, by_player=True, already_stored=None)
    # Anything but a move that leaves the game running is the locked path's to carry out: a
    # refusal, a resend, a flag, and a game's end (``finish`` and the ratings signal).
    if not isinstance(decision, Apply) or decision.outcome is not None:
        return None
    seal(game, at=at)
    return game, decision


@dataclass(frozen=True)
class Played:
    """A move the fast path stored: the mover's result, and its event if the broadcast failed.

    ``unannounced``: the move's event as the game's group would have carried it
    (the mover's ``ack`` inside), when the channel layer refused it (Redis out of
    reach). The mover's socket delivers it to itself (``GameConsumer.game_event``):
    the move is stored, so it is acknowledged as played whatever became of the
    announcement, which is tried again meanwhile (``events.announce_later``).
    """

    result: MoveResult
    unannounced: MoveEvent | None = None


async def store_and_announce(
    game_id: int, seen: Seen, game: Game, decision: Apply, reply: Reply
) -> Played | None:
    """The compare-and-set backend of "store and announce" (the locked one is ``base.commit_and_announce``).

    ``Played`` if the row was still ``seen`` and the move is stored; then the
    patch (with the mover's ack) is broadcast and the follow-ups are queued.
    Once stored, the move is played: a broadcast or a follow-up that fails is
    logged and never undoes that (the follow-ups are owed by the game row
    anyway, and the obligations sweep queues them again: ``obligations.attend``).
    """
    changes = row_changes(game, seen)
    if not await _write(game, seen, tuple(changes), list(decision.moves)):
        return None
    cache.put(game, seen.players)
    result = MoveResult(ply=decision.moves[0].ply, version=game.version)
    patch = bus.move_patch(game, [move.token for move in decision.moves])
    event = events.move_event(
        game.version, patch, ack_to=reply.channel, ack=events.ack(reply.id, result), row=changes
    )
    unannounced = None
    try:
        await events.broadcast_event(game_id, event)
    except Exception as exc:  # the move is stored: nothing here may report it as not played
        logger.warning("move of game %s v%s stored, its broadcast failed: %r", game_id, game.version, exc)
        unannounced = event
        events.announce_later(game_id, event)
    if wanted := queue.follow_ups(game):
        await sync_to_async(_send_all, thread_sensitive=False)(game_id, wanted)
    return Played(result, unannounced)


async def play_move(
    *, game_id: int, identity: Identity, token: str, ply: int, client_id: str, reply: Reply
) -> Played | None:
    """The player's move, stored and announced; None when the locked path must carry it out.

    The announcement is a patch on the version below, and the mover's ``ack``
    rides inside it to the socket ``reply.channel`` (one frame fewer per move);
    if the broadcast failed, ``Played.unannounced`` is that event, for the mover's
    socket to deliver itself.
    """
    if not enabled():
        return None
    seen = cache.get(game_id)  # filled when the socket opened
    for _attempt in range(2):
        try:
            if seen is not None and seen.stale:
                seen = await read(game_id, seen)
            if seen is None:
                return None
            decided = _decide(seen, identity, token, ply, client_id)
            if decided is None:
                return None
            game, decision = decided
            if played := await store_and_announce(game_id, seen, game, decision, reply):
                return played
        except (psycopg.Error, OSError) as exc:
            # Only the statement raises these (store_and_announce keeps whatever follows it):
            # nothing was stored, and the locked path decides the move afresh.
            logger.warning("fast move for game %s fell back to the locked path: %s", game_id, exc)
            return None
        # The row moved on since it was cached: read it once more and decide again.
        seen = Seen(seen.values, seen.players, stale=True)
    return None


def _send_all(game_id: int, wanted: list[Callable[[], object]]) -> None:
    for send in wanted:
        try:
            send()
        except Exception:  # the broker out of reach: the obligations sweep queues it again
            logger.exception("a follow-up of game %s's move was not queued", game_id)
