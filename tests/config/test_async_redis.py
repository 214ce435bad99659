"""One event loop's asyncio Redis client (core.cache.async_redis) when many sockets open at once."""

from __future__ import annotations

import asyncio

import pytest

from core import cache

pytestmark = [pytest.mark.services]


async def test_a_thousand_session_reads_at_once_all_succeed(services):
    # As a restart's reconnect storm does: redis-py 8's default pool failed every
    # call past its 100th in flight ("Too many connections"), closing those sockets.
    cache.forget_async_clients()
    client = cache.async_redis(services.ensure_redis())
    await client.set("async-redis-test", "here")
    try:
        values = await asyncio.gather(*(client.get("async-redis-test") for _ in range(1000)))
        assert values == [b"here"] * 1000
    finally:
        await client.delete("async-redis-test")
        await client.aclose()
        cache.forget_async_clients()
