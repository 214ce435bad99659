"""The three statements of every move, compiled once per process instead of once per move.

A move is one locked read of its game, one ``Move`` insert and one ``Game``
update. Built through the ORM each time, those three cost about 2 ms of CPU
on this 2-core machine, more than everything else a move does: most of it is
Django compiling the same SQL again (45 columns for the game). Here the SQL
comes from the ORM itself, once per process, and only the values change.
Values still go through each field's own ``get_db_prep_save`` and converters,
so JSON, datetimes and booleans are handled exactly as the ORM handles them,
on PostgreSQL and on SQLite.

``lock_game`` and ``save_game`` are for ``services``, inside ``transaction.atomic()``;
``read_game`` is the plain read behind every socket that opens.
"""

from __future__ import annotations

import copy
import functools
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
