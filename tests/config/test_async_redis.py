"""One event loop's asyncio Redis client (config.cache.async_redis) under more callers than connections."""

from __future__ import annotations

import asyncio

import pytest

from config import cache

pytestmark = [pytest.mark.services]


async def test_more_reads_at_once_than_the_pool_has_connections_wait_their_turn_instead_of_failing(
    services, monkeypatch
):
    # As 500 sockets opening at once each read a session: redis-py's own pool
    # failed every read past its connection limit ("Too many connections").
    monkeypatch.setattr(cache, "ASYNC_REDIS_CONNECTIONS", 4)
    cache.forget_async_clients()
    client = cache.async_redis(services.ensure_redis())
    await client.set("async-redis-test", "here")
    try:
        values = await asyncio.gather(*(client.get("async-redis-test") for _ in range(300)))
        assert values == [b"here"] * 300
    finally:
        await client.delete("async-redis-test")
        await client.aclose()
        cache.forget_async_clients()
