"""Every statement of the move path, compiled once per process instead of once per move.

The locked path's move is one locked read of its game, one ``Move`` insert and
one ``Game`` update. Built through the ORM each time, those three cost more CPU
than everything else a move does (docs/performance.md): most of it is Django
compiling the same SQL again (45 columns for the game). Here the SQL comes from
the ORM itself, once per process, and only the values change. Values still go
through each field's own ``get_db_prep_save`` and converters, so JSON,
datetimes and booleans are handled exactly as the ORM handles them, on
PostgreSQL and on SQLite.

``lock_game`` and ``save_game`` are for ``services``, inside ``transaction.atomic()``;
``read_game`` is the plain read behind every socket that opens. The fast path
(``games.live.fastpath``, PostgreSQL only) runs its statements on its own connections:
``cas_statement`` and ``cas_params`` (the move and the game in one statement,
if the version is still the one read), ``row_statement`` and ``version_statement``.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field

from games.models import Game, Move

_JSON_TYPES = (dict, list)


# Keyed by the connection object (one per thread): the converters are bound to it.
@functools.lru_cache(maxsize=64)
def _select_statement(connection: BaseDatabaseWrapper, *, locked: bool) -> tuple[str, list[str], Any, dict]:
    """``SELECT <every column> FROM games_game WHERE id = %s [FOR UPDATE]`` for this database."""
    query = (Game.objects.select_for_update() if locked else Game.objects.all()).filter(pk=0).query
    compiler = query.get_compiler(connection=connection)
    sql, params = compiler.as_sql()
    assert list(params) == [0], params  # the only parameter is the primary key
    columns = [expression for expression, _sql, _alias in compiler.select]
    names = [column.target.attname for column in columns]
    return sql, names, compiler, compiler.get_converters(columns)


def _select(game_id: int, *, locked: bool) -> tuple[Game, list[str]]:
    connection = connections[DEFAULT_DB_ALIAS]
    sql, names, compiler, converters = _select_statement(connection, locked=locked)
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist(f"no game {game_id}")
    if converters:
        row = next(compiler.apply_converters([list(row)], converters))
    return Game.from_db(DEFAULT_DB_ALIAS, names, row), names


def lock_game(game_id: int) -> Game:
    """The game, its row locked until the transaction ends (``Game.DoesNotExist`` if none)."""
    game, names = _select(game_id, locked=True)
    _remember(game, names)
    return game


def read_game(game_id: int) -> Game:
    """The game as committed, without a lock: for showing it (every socket that opens reads one)."""
    game, _names = _select(game_id, locked=False)
    return game


def _stored_value(value: Any) -> Any:
    # A copy of JSON values, so that appending to ``game.tokens`` in place still
    # counts as a change. Services replace nested values rather than edit them.
    return copy.copy(value) if isinstance(value, _JSON_TYPES) else value


def _remember(game: Game, names: list[str]) -> None:
    game._stored = {name: _stored_value(getattr(game, name)) for name in names}


def _column(field: object) -> str:
    """The column of a concrete field (the stubs' ``Field.column`` also allows None)."""
    assert isinstance(field, Field) and field.column is not None, field
    return field.column


@functools.lru_cache(maxsize=256)
def _update_statement(vendor: str, names: tuple[str, ...]) -> tuple[str, tuple]:
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    fields = tuple(Game._meta.get_field(name) for name in names)
    assignments = ", ".join(f"{quote(_column(field))} = %s" for field in fields)
    sql = f"UPDATE {quote(Game._meta.db_table)} SET {assignments} WHERE {quote(_column(Game._meta.pk))} = %s"
    return sql, fields


def save_game(game: Game) -> None:
    """Write the fields that changed since ``lock_game`` read the row (a plain save otherwise)."""
    stored = getattr(game, "_stored", None)
    if stored is None:
        game.save()
        return
    changed = tuple(name for name, old in stored.items() if getattr(game, name) != old)
    if not changed:
        return
    connection = connections[DEFAULT_DB_ALIAS]
    sql, fields = _update_statement(connection.vendor, changed)
    values = [field.get_db_prep_save(getattr(game, field.attname), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, game.pk])
    stored.update((name, _stored_value(getattr(game, name))) for name in changed)


@functools.cache
def _insert_statement(vendor: str) -> tuple[str, tuple]:
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    fields = tuple(field for field in Move._meta.concrete_fields if not field.primary_key)
    columns = ", ".join(quote(_column(field)) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {quote(Move._meta.db_table)} ({columns}) VALUES ({placeholders})", fields


def insert_move(move: Move) -> None:
    """Store a new ``Move`` row (its primary key is not read back: nothing needs it)."""
    connection = connections[DEFAULT_DB_ALIAS]
    sql, fields = _insert_statement(connection.vendor)
    values = [field.get_db_prep_save(field.pre_save(move, add=True), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)


# --- the fast path's statements (games.live.fastpath; PostgreSQL) ------------------------

FIELD_NAMES: tuple[str, ...] = tuple(field.attname for field in Game._meta.concrete_fields)


def _connection() -> BaseDatabaseWrapper:
    # Django's connection object of this thread, used only for its operations
    # (quoting, adapting values); it never connects from the event loop.
    return connections[DEFAULT_DB_ALIAS]


def _game_field(name: str) -> Field:
    field = Game._meta.get_field(name)
    assert isinstance(field, Field), name
    return field


@functools.cache
def _move_fields() -> tuple[Field, ...]:
    return tuple(field for field in Move._meta.concrete_fields if not field.primary_key)


@functools.lru_cache(maxsize=256)
def cas_statement(changed: tuple[str, ...], moves: int) -> str:
    """Update the ``changed`` columns of the game if its version is still the one read, and
    insert ``moves`` moves only then, in one statement (autocommit); it returns 1 if it wrote.

    ::

        WITH g AS (UPDATE games_game SET ... WHERE id = $1 AND version = $2 RETURNING 1),
             m0 AS (INSERT INTO games_move (...) SELECT ... FROM g)
        SELECT count(*) FROM g
    """
    connection = _connection()
    quote = connection.ops.quote_name
    game_fields = [_game_field(name) for name in changed]
    assignments = ", ".join(f"{quote(_column(field))} = %s" for field in game_fields)
    parts = [
        f"g AS (UPDATE {quote(Game._meta.db_table)} SET {assignments} "
        f"WHERE {quote(_column(Game._meta.pk))} = %s AND {quote('version')} = %s RETURNING 1)"
    ]
    fields = _move_fields()
    columns = ", ".join(quote(_column(field)) for field in fields)
    # The casts give every parameter the column's type: INSERT ... SELECT does not infer them.
    values = ", ".join(f"%s::{field.cast_db_type(connection)}" for field in fields)
    for index in range(moves):
        parts.append(
            f"m{index} AS (INSERT INTO {quote(Move._meta.db_table)} ({columns}) SELECT {values} FROM g)"
        )
    return f"WITH {', '.join(parts)} SELECT count(*) FROM g"


_PLAIN_TYPES = frozenset(
    {"AutoField", "BigAutoField", "BooleanField", "CharField", "ForeignKey", "IntegerField"}
    | {"PositiveIntegerField", "PositiveSmallIntegerField", "SmallIntegerField"}
)


@functools.cache
def _adapter(field: Field) -> Callable[[Any], Any]:
    """``field.get_db_prep_save`` for this connection, skipped where it changes nothing (ints, text)."""
    connection = _connection()
    if field.get_internal_type() in _PLAIN_TYPES:
        return _same
    return functools.partial(_prep_save, field, connection)


def _same(value: Any) -> Any:
    return value


def _prep_save(field: Field, connection: Any, value: Any) -> Any:
    return field.get_db_prep_save(value, connection)


def cas_params(game: Game, changed: tuple[str, ...], expected_version: int, moves: list[Move]) -> list[Any]:
    """The parameters of ``cas_statement(changed, len(moves))``."""
    params = [_adapter(_game_field(name))(getattr(game, name)) for name in changed]
    params += [game.pk, expected_version]
    for move in moves:
        params += [_adapter(field)(field.pre_save(move, add=True)) for field in _move_fields()]
    return params


@functools.cache
def row_statement() -> str:
    """Every column of one game, in ``FIELD_NAMES`` order (no converters: JSON comes back as text)."""
    quote = _connection().ops.quote_name
    columns = ", ".join(quote(_column(_game_field(name))) for name in FIELD_NAMES)
    return f"SELECT {columns} FROM {quote(Game._meta.db_table)} WHERE {quote(_column(Game._meta.pk))} = %s"


@functools.cache
def version_statement() -> str:
    """The committed version of one game."""
    quote = _connection().ops.quote_name
    return (
        f"SELECT {quote(_column(_game_field('version')))} FROM {quote(Game._meta.db_table)} "
        f"WHERE {quote(_column(Game._meta.pk))} = %s"
    )
