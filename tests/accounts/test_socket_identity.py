"""Who a websocket belongs to, read from its session cookie when it opens (accounts.socket_identity).

The session lives in Redis (the ``cached_db`` engine) as on the production site;
these tests use the embedded Redis when no REDIS_URL is given.
"""

from __future__ import annotations

from importlib import import_module

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.core.cache import caches

from accounts import socket_identity
from accounts.guests import get_guest
from accounts.identity import identity_from_scope
from core.cache import forget_async_clients

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def sessions_in_redis(services, settings):
    url = services.ensure_redis()
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.SharedRedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "socket-identity",
        }
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    settings.SESSION_CACHE_ALIAS = "default"  # with REDIS_URL the site keeps sessions in a cache of their own
    caches["default"].clear()
    yield
    caches["default"].clear()
    forget_async_clients()


def open_socket(cookie: str | None) -> dict:
    """The scope the game's consumer would see for a socket sent with this session cookie."""
    seen: dict = {}

    async def consumer(scope, receive, send):
        seen.update(scope)

    headers = [(b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())] if cookie else []
    async_to_sync(socket_identity.SocketIdentityMiddleware(consumer))(
        {"type": "websocket", "headers": headers}, None, None
    )
    return seen


def new_session(**data) -> str:
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session.update(data)
    session.save()  # the database row, and the cache for cached_db
    return session.session_key


def guest_session() -> tuple[str, str]:
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    guest = get_guest(session)
    session.save()
    return session.session_key, guest.name


def signed_in_session(user) -> str:
    return new_session(
        **{
            SESSION_KEY: str(user.pk),
            BACKEND_SESSION_KEY: settings.AUTHENTICATION_BACKENDS[0],
            HASH_SESSION_KEY: user.get_session_auth_hash(),
        }
    )


def no_database_thread(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("went to a database thread")

    monkeypatch.setattr(socket_identity, "_load_session", refuse)
    monkeypatch.setattr(socket_identity, "get_user", refuse)


def test_a_guest_s_socket_knows_the_guest_from_the_cached_session_without_a_database_thread(
    sessions_in_redis, monkeypatch
):
    key, name = guest_session()
    no_database_thread(monkeypatch)

    scope = open_socket(key)

    identity = identity_from_scope(scope)
    assert identity.guest is not None and identity.guest.name == name
    assert not scope["user"].is_authenticated
    assert scope["cookies"][settings.SESSION_COOKIE_NAME] == key


def test_a_session_the_cache_lost_is_read_from_the_database(sessions_in_redis):
    key, name = guest_session()
    caches["default"].clear()  # Redis restarted empty, or evicted the session

    scope = open_socket(key)

    assert identity_from_scope(scope).guest.name == name


def test_a_signed_in_player_s_socket_carries_the_player(sessions_in_redis, user_factory):
    player = user_factory("ravi")
    key = signed_in_session(player)

    scope = open_socket(key)

    assert scope["user"].is_authenticated and scope["user"].pk == player.pk
    assert identity_from_scope(scope).name == "ravi"


def test_after_a_password_change_elsewhere_an_old_session_opens_an_anonymous_socket(
    sessions_in_redis, user_factory
):
    player = user_factory("ravi")
    key = signed_in_session(player)
    player.set_password("a-new-secret")
    player.save()

    scope = open_socket(key)

    assert not scope["user"].is_authenticated
    assert identity_from_scope(scope).guest is None


@pytest.mark.parametrize("cookie", [None, "forged-session-key-that-is-in-no-store", "x"])
def test_a_socket_without_a_real_session_is_an_anonymous_visitor(sessions_in_redis, cookie):
    scope = open_socket(cookie)

    assert not scope["user"].is_authenticated
    identity = identity_from_scope(scope)
    assert identity.user is None and identity.guest is None


def test_without_a_redis_cache_the_session_still_comes_from_the_database(settings, user_factory):
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    player = user_factory("ravi")

    scope = open_socket(signed_in_session(player))

    assert scope["user"].pk == player.pk
