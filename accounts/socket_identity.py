"""Who opened a websocket: the cookies, session and user of its scope, in one step.

Channels' ``AuthMiddlewareStack`` gives a socket the same three things, but it
reads the session in a database thread, and it wraps every frame the socket
sends to check whether the session needs saving (sockets never change it). A
reconnect storm is thousands of socket opens at once, so here:

- the session is read from the cache on the event loop when the cache can do
  that (``core.cache.SharedRedisCache.aget``), as the ``cached_db`` backend
  would read it; otherwise, or when the cache has lost it, in one database
  thread call, as Django reads it;
- a guest needs nothing more; a registered player's user row is loaded in one
  database thread call, which also checks the session's password hash
  (``channels.auth.get_user``), so a socket opened after a password change is
  anonymous;
- sends go straight to the server.

The scope then has ``cookies``, ``session`` (a loaded SessionStore) and ``user``,
the keys channels' stack sets.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from channels.auth import get_user
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.base import SessionBase
from django.core.cache import caches
from django.http import parse_cookie

from core.cache import SharedRedisCache


def scope_cookies(scope: dict[str, Any]) -> dict[str, str]:
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            return parse_cookie(value.decode("latin-1"))
    return {}


async def _session_data_from_cache(session: SessionBase) -> dict[str, Any] | None:
    """The session's data if the cache holds it and can be read without a thread, else None."""
    if session.session_key is None:
        return {}  # no cookie, or a malformed one: an empty session, as Django starts it
    cache_key = getattr(session, "cache_key", None)  # cached_db and cache backends only
    if cache_key is None:
        return None
    cache = caches[settings.SESSION_CACHE_ALIAS]
    if not isinstance(cache, SharedRedisCache):  # other caches' aget is a thread anyway
        return None
    try:
        return await cache.aget(cache_key)
    except Exception:  # noqa: BLE001  Redis unreachable: Django's own load decides (it falls back to the database)
        return None


@database_sync_to_async
def _load_session(session: SessionBase) -> None:
    session.keys()  # reading the session loads it (cache, then database)


class SocketIdentityMiddleware:
    """ASGI middleware for websockets: ``cookies``, ``session`` and ``user`` in the scope."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.session_store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        cookies = scope_cookies(scope)
        session = self.session_store(cookies.get(settings.SESSION_COOKIE_NAME))
        data = await _session_data_from_cache(session)
        if data is None:
            await _load_session(session)
        else:
            session._session_cache = data
        scope = dict(scope, cookies=cookies, session=session)
        if session.get(SESSION_KEY) is None:
            scope["user"] = AnonymousUser()
        else:
            scope["user"] = await get_user(scope)
        return await self.inner(scope, receive, send)
