"""Django's Redis cache with one client per process.

Django hands out a new cache object per request or websocket task (its handles
are context-local), and each new ``RedisCache`` builds its own connection pool:
under ASGI that is a new Redis connection for nearly every request. Sharing the
client (and so the pool, which is thread-safe) per process keeps connections
reused, as ``CONN_MAX_AGE`` does for the database. Django also builds a new
``redis.Redis`` around that pool for every call; building one costs more than
the call itself (5 % of a reconnect storm, each socket reading its session),
so ``SharedClientRedisCacheClient`` keeps one per pool.

Django's async cache methods run the blocking ones in a thread. ``aget`` here
reads on an asyncio Redis client instead (one per event loop and server, see
``async_redis``): a websocket reads its session this way on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger(__name__)

_clients: dict[tuple, RedisCacheClient] = {}
_lock = threading.Lock()

# One asyncio client per event loop and server (daphne has one loop; tests make many).
_async_clients: dict[tuple[asyncio.AbstractEventLoop, str], Any] = {}
# Connections one loop's client may open at once. redis-py 8 made its asyncio pool's
# default 100 and fails every call past it ("Too many connections"), where 5 and 6
# opened as many as the callers needed: 4,000 sockets opening at once (a restart's
# reconnect storm) have more calls in flight than that, and 1,684 of them failed in
# bench/ws_load.py, closing their sockets. Waiting for a free connection instead
# (a blocking pool) was worse: the waits outlast the handshakes. Redis itself
# accepts 10,000 clients.
ASYNC_REDIS_CONNECTIONS = 2000


def async_redis(url: str) -> Any:
    """The asyncio ``redis.Redis`` of the running event loop for ``url``."""
    key = (asyncio.get_running_loop(), url)
    client = _async_clients.get(key)
    if client is None:
        import redis.asyncio

        client = _async_clients[key] = redis.asyncio.Redis.from_url(
            url, max_connections=ASYNC_REDIS_CONNECTIONS
        )
    return client


def forget_async_clients() -> None:
    """Drop the asyncio clients (tests: their event loops are gone)."""
    _async_clients.clear()


class SharedClientRedisCacheClient(RedisCacheClient):
    """One ``redis.Redis`` per connection pool (they are thread-safe), not one per call."""

    # Set by RedisCacheClient.__init__; django-stubs does not declare these private attributes.
    _servers: list[str]
    _pools: dict[int, Any]
    _pool_class: Any
    _pool_options: dict[str, Any]
    _client: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._redis_clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._redis_clients.get(index)
        if client is None:
            with _lock:
                if index not in self._pools:
                    self._pools[index] = self._pool_class.from_url(self._servers[index], **self._pool_options)
                client = self._redis_clients.setdefault(
                    index, self._client(connection_pool=self._pools[index])
                )
        return client


class SharedRedisCache(RedisCache):
    # Set by RedisCache.__init__; django-stubs does not declare these private attributes.
    _servers: list[str]
    _options: dict[str, Any]
    _class: type[RedisCacheClient]

    @property
    def _cache(self) -> RedisCacheClient:
        key = (tuple(self._servers), tuple(sorted((k, repr(v)) for k, v in self._options.items())))
        client = _clients.get(key)
        if client is None:
            with _lock:
                client = _clients.setdefault(
                    key, SharedClientRedisCacheClient(self._servers, **self._options)
                )
        return client

    async def aget(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        """``get`` on the event loop's asyncio client, without a thread."""
        key = self.make_and_validate_key(key, version=version)
        client = self._cache
        server = self._servers[client._get_connection_pool_index(write=False)]  # type: ignore[attr-defined]
        value = await async_redis(server).get(key)
        return default if value is None else client._serializer.loads(value)  # type: ignore[attr-defined]

    async def aadd_any(self, keys: list[str], value: int = 1, timeout: int = 60) -> bool:
        """``add`` the first of ``keys`` that is not set, on the event loop's client, in one call;
        False when every key is set. The values read back as ``get`` reads them (ints are stored as they are)."""
        client = self._cache
        server = self._servers[client._get_connection_pool_index(write=True)]  # type: ignore[attr-defined]
        made = [self.make_and_validate_key(key) for key in keys]
        return bool(await async_redis(server).eval(_ADD_ANY, len(made), *made, value, int(timeout)))


# The first key of KEYS that is free gets ARGV[1] for ARGV[2] seconds (as ``add``, SET NX with a timeout).
_ADD_ANY = """
for _, key in ipairs(KEYS) do
  if redis.call('SET', key, ARGV[1], 'NX', 'EX', ARGV[2]) then return 1 end
end
return 0
"""


def _unreachable() -> tuple[type[BaseException], ...]:
    import redis.exceptions

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


class SessionRedisCache(SharedRedisCache):
    """The sessions' cache: an unreachable Redis is a miss, so ``cached_db`` reads the database.

    Django's ``cached_db`` falls back to the database when a read fails, but then
    writes the session back to the cache unprotected, and asks the cache first
    whether a new key exists: a process without Redis answered every page with a
    500. Here reads miss and writes are skipped (logged) while Redis is out of
    reach; the database holds every session anyway. Deletes still fail: a logout
    whose cached copy could not be removed would come back to life with Redis,
    so it must not look done (the page says 503, try again).
    """

    def _warn(self, what: str, exc: BaseException) -> None:
        logger.warning("session cache %s skipped, Redis unreachable: %s", what, exc)

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        try:
            return super().get(key, default, version)
        except _unreachable() as exc:
            self._warn("read", exc)
            return default

    async def aget(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        try:
            return await super().aget(key, default, version)
        except _unreachable() as exc:
            self._warn("read", exc)
            return default

    def has_key(self, key: Any, version: int | None = None) -> bool:
        try:
            return super().has_key(key, version)
        except _unreachable() as exc:
            self._warn("read", exc)
            return False

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        try:
            super().set(key, value, timeout, version)
        except _unreachable() as exc:
            self._warn("write", exc)
