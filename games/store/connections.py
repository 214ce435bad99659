"""The fast move path's PostgreSQL connections: a few per event loop, autocommit.

The fast path (games/live/fastpath.py) runs its compare-and-set statement on the
event loop itself, so it needs asyncio connections, not Django's per-thread ones.
They are opened with Django's own parameters, so values read here are what the ORM
reads, and at most ``GAMES_FAST_MOVE_CONNECTIONS`` per loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections


class _Connections:
    """Up to ``size`` autocommit connections, opened when first needed."""

    def __init__(self, size: int) -> None:
        self.idle: list[psycopg.AsyncConnection] = []
        self.slots = asyncio.Semaphore(size)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection]:
        async with self.slots:
            conn = self.idle.pop() if self.idle else await _connect()
            try:
                yield conn
            except BaseException:
                await conn.close()  # its state is unknown: never reuse it
                raise
            if not conn.closed:
                self.idle.append(conn)

    def close(self) -> None:
        """Close the idle connections without an event loop (the loop may be gone)."""
        for conn in self.idle:
            conn.pgconn.finish()
        self.idle.clear()


# Daphne runs one event loop; tests run many, and close them all after each test.
_pools: dict[asyncio.AbstractEventLoop, _Connections] = {}


def pool() -> _Connections:
    """This event loop's pool of fast-path connections."""
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = _Connections(settings.GAMES_FAST_MOVE_CONNECTIONS)
    return pool


def close_connections() -> None:
    """Close every idle fast-path connection of this process (tests, shutdown)."""
    for pool in list(_pools.values()):
        pool.close()
    _pools.clear()


async def _connect() -> psycopg.AsyncConnection:
    # Django's own parameters and type adapters, so values read here are what the ORM reads.
    params = connections[DEFAULT_DB_ALIAS].get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("prepare_threshold", None)  # psycopg's default: prepared after five uses
    return await psycopg.AsyncConnection.connect(**params, autocommit=True)
