"""Django's Redis cache with one client per process.

Django hands out a new cache object per request or websocket task (its handles
are context-local), and each new ``RedisCache`` builds its own connection pool:
under ASGI that is a new Redis connection for nearly every request. Sharing the
client (and so the pool, which is thread-safe) per process keeps connections
reused, as ``CONN_MAX_AGE`` does for the database.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_clients: dict[tuple, RedisCacheClient] = {}
_lock = threading.Lock()


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
                client = _clients.setdefault(key, self._class(self._servers, **self._options))
        return client
