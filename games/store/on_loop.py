"""ORM statements compiled once, run on the event loop's own PostgreSQL connection.

The fast move path (``games.live.fastpath``) showed what a statement costs in a
database thread: the hop there and back, and Django compiling the same SQL each
time. Other hot statements of the sockets (a chat line's checks and insert) take
the same way out: the query is built with the ORM, once, with stand-in values
(``Compiled``), and each call swaps the real values in and runs the SQL on the
loop's connections (``games.store.connections``, autocommit). PostgreSQL only,
like the fast path; callers fall back to a database thread elsewhere.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Field, Model, QuerySet

from games.store.connections import pool


@dataclass(frozen=True)
class Compiled:
    """A ``values()`` query's SQL, its column names, and which parameters are filled in per call."""

    sql: str
    names: tuple[str, ...]
    # Per parameter: the name of the value to put there, or None to keep ``constants``' value.
    slots: tuple[str | None, ...]
    constants: tuple[Any, ...]

    def params(self, values: dict[str, Any]) -> list[Any]:
        return [
            constant if slot is None else values[slot]
            for slot, constant in zip(self.slots, self.constants, strict=True)
        ]


def compile_values(queryset: QuerySet, stand_ins: dict[str, Any]) -> Compiled:
    """Compile ``queryset`` (a ``values()`` query built with the ``stand_ins``' values) for reuse.

    Each stand-in must be a value no real parameter has (say, a negative id), so that
    its places among the parameters are found by equality.
    """
    connection = connections[DEFAULT_DB_ALIAS]
    query = queryset.query
    sql, params = query.get_compiler(connection=connection).as_sql()
    by_value = {_key(value): name for name, value in stand_ins.items()}
    slots = tuple(by_value.get(_key(param)) for param in params)
    missing = set(stand_ins) - set(slots)
    assert not missing, f"stand-ins not among the parameters: {missing}"
    names = (*query.extra_select, *query.values_select, *query.annotation_select)
    return Compiled(sql, tuple(names), slots, tuple(params))


def _key(value: Any) -> tuple[type, Any]:
    # 1 == True == 1.0 in Python: the type keeps a stand-in from matching another kind of value.
    return (type(value), value)


async def fetch_one(compiled: Compiled, values: dict[str, Any]) -> dict[str, Any] | None:
    """The first row of ``compiled`` with ``values``, as ``values().first()`` gives it, or None."""
    async with pool().connection() as conn:
        cursor = await conn.execute(compiled.sql, compiled.params(values))
        row = await cursor.fetchone()
    return None if row is None else dict(zip(compiled.names, row, strict=True))


@functools.cache
def _insert_statement(model: type[Model]) -> tuple[str, tuple[Field, ...]]:
    connection = connections[DEFAULT_DB_ALIAS]
    quote = connection.ops.quote_name
    meta = model._meta
    fields = tuple(field for field in meta.concrete_fields if not field.primary_key)
    columns = ", ".join(quote(str(field.column)) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({placeholders}) "
        f"RETURNING {quote(str(meta.pk.column))}"
    )
    return sql, fields


async def insert(obj: Model) -> None:
    """``obj.save()`` of a new row (no signals: the models stored this way have none), on the loop."""
    sql, fields = _insert_statement(type(obj))
    connection = connections[DEFAULT_DB_ALIAS]  # for adapting values only: it never connects here
    values = [field.get_db_prep_save(field.pre_save(obj, add=True), connection) for field in fields]
    async with pool().connection() as conn:
        cursor = await conn.execute(sql, values)
        row = await cursor.fetchone()
    assert row is not None
    obj.pk = row[0]
    obj._state.adding = False
    obj._state.db = DEFAULT_DB_ALIAS
