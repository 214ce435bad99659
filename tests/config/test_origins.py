"""Which pages may drive a player's socket: scheme, host and port of the Origin must match exactly.

An attacker's page at another port of the same machine, or a plain-HTTP page of
an HTTPS site (which anyone on the network can write), used to open a logged-in
player's socket because only the host was compared.
"""

from __future__ import annotations

import asyncio

import pytest
from channels.testing import WebsocketCommunicator
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from config.asgi import application
from config.origins import origin_allowed, parse_origin

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def production(settings):
    """The site behind nginx on 443 (DJANGO_HTTPS, DJANGO_BEHIND_PROXY)."""
    settings.ALLOWED_HOSTS = ["games.example.org"]
    settings.HTTPS = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.CSRF_TRUSTED_ORIGINS = []
    return settings


def test_an_origin_is_a_scheme_a_host_and_a_port_and_nothing_else():
    assert parse_origin("https://Games.Example.org") == ("https", "games.example.org", 443)
    assert parse_origin("http://127.0.0.1:8000") == ("http", "127.0.0.1", 8000)
    assert parse_origin("http://[::1]:8000") == ("http", "::1", 8000)
    for bad in (
        "null",
        "",
        "games.example.org",
        "ftp://games.example.org",
        "https://x@games.example.org",
        "https://games.example.org/path",
        "http://127.0.0.1:port",
        "javascript://x",
    ):
        assert parse_origin(bad) is None, bad


def test_behind_nginx_only_the_https_origin_of_the_site_at_its_default_port_drives_a_socket(production):
    host = "games.example.org"
    assert origin_allowed("https://games.example.org", host=host, secure=True)
    assert origin_allowed("https://games.example.org:443", host=host, secure=True), (
        "the default port, spelt out"
    )
    assert not origin_allowed("http://games.example.org", host=host, secure=True), "another scheme"
    assert not origin_allowed("https://games.example.org:1", host=host, secure=True), "another port"
    assert not origin_allowed("http://games.example.org:1", host=host, secure=True)
    assert not origin_allowed("https://evil.example", host=host, secure=True)
    assert not origin_allowed(None, host=host, secure=True), "no Origin at all"
    assert not origin_allowed("null", host=host, secure=True)


def test_a_dev_server_on_its_own_port_is_same_origin_with_itself_and_with_no_other_port(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    settings.HTTPS = False
    settings.CSRF_TRUSTED_ORIGINS = []
    host = "127.0.0.1:8000"
    assert origin_allowed("http://127.0.0.1:8000", host=host, secure=False)
    assert not origin_allowed("http://127.0.0.1:1", host=host, secure=False), "another server on the machine"
    assert not origin_allowed("https://127.0.0.1:8000", host=host, secure=False), "another scheme"
    # No port is port 80: the site as served by a proxy in front, which ALLOWED_HOSTS names.
    assert origin_allowed("http://127.0.0.1", host=host, secure=False)
    assert not origin_allowed("https://127.0.0.1", host=host, secure=False)


def test_a_host_outside_allowed_hosts_is_not_same_origin_even_when_it_matches_the_origin(settings):
    """DNS rebinding: evil.example resolving to the server sends Host and Origin of evil.example."""
    settings.ALLOWED_HOSTS = ["games.example.org"]
    settings.HTTPS = True
    settings.CSRF_TRUSTED_ORIGINS = []
    assert not origin_allowed("https://evil.example", host="evil.example", secure=True)
    settings.ALLOWED_HOSTS = ["*"]
    assert origin_allowed("https://evil.example", host="evil.example", secure=True), "'*' trusts every Host"
    assert not origin_allowed("https://evil.example", host="games.example.org", secure=True), (
        "but '*' makes no foreign page an origin of ours"
    )


def test_subdomains_and_csrf_trusted_origins_match_with_their_scheme_and_port(production):
    production.ALLOWED_HOSTS = [".example.org"]
    production.CSRF_TRUSTED_ORIGINS = ["https://admin.example.net:8443", "https://*.example.com"]
    host = "games.example.org"
    assert origin_allowed("https://www.example.org", host=host, secure=True)
    assert not origin_allowed("http://www.example.org", host=host, secure=True)
    assert origin_allowed("https://admin.example.net:8443", host=host, secure=True)
    assert not origin_allowed("https://admin.example.net", host=host, secure=True), "the trusted port only"
    assert origin_allowed("https://a.example.com", host=host, secure=True)
    assert not origin_allowed("https://example.com.evil.example", host=host, secure=True)
    assert not origin_allowed("http://a.example.com", host=host, secure=True)


def communicator(origin: str | None, *, host: bytes, proto: bytes | None = None) -> WebsocketCommunicator:
    headers = [(b"host", host)]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if proto is not None:
        headers.append((b"x-forwarded-proto", proto))
    return WebsocketCommunicator(application, "/ws/notify/", headers=headers)


async def opens(ws: WebsocketCommunicator) -> bool:
    connected, _ = await ws.connect()
    await ws.disconnect()
    return connected


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("https://games.example.org", True),
        ("https://games.example.org:1", False),
        ("http://games.example.org", False),
        ("http://games.example.org:443", False),
        (None, False),
    ],
)
async def test_the_site_behind_nginx_refuses_a_socket_from_any_other_origin(production, origin, allowed):
    ws = communicator(origin, host=b"games.example.org", proto=b"https")
    assert await opens(ws) is allowed


async def test_behind_a_proxy_the_forwarded_scheme_decides_what_same_origin_means(production):
    """X-Forwarded-Proto says how the browser came: an https page does not match a plain-http request."""
    production.HTTPS = False  # a plain-HTTP site behind a proxy on port 8080
    assert await opens(
        communicator("http://games.example.org:8080", host=b"games.example.org:8080", proto=b"http")
    )
    assert not await opens(
        communicator("https://games.example.org:8080", host=b"games.example.org:8080", proto=b"http")
    )


# --- over a real daphne process ----------------------------------------------------------


@pytest.mark.services
def test_a_real_daphne_refuses_a_socket_from_another_port_or_scheme_of_its_own_host(
    services, database_url_for_processes
):
    _, port = services.start_daphne(database_url_for_processes)
    url = f"ws://127.0.0.1:{port}/ws/notify/"

    async def status(origin: str | None) -> int:
        try:
            async with connect(url, origin=origin, open_timeout=10):
                return 101
        except InvalidStatus as refused:
            return refused.response.status_code

    async def scenario() -> dict[str | None, int]:
        origins = [
            f"http://127.0.0.1:{port}",
            "http://127.0.0.1",
            "http://127.0.0.1:1",
            f"https://127.0.0.1:{port}",
            "https://127.0.0.1",
            None,
        ]
        return {origin: await status(origin) for origin in origins}

    seen = asyncio.run(scenario())
    assert seen == {
        f"http://127.0.0.1:{port}": 101,  # the page daphne itself served
        "http://127.0.0.1": 101,  # ALLOWED_HOSTS behind http at port 80
        "http://127.0.0.1:1": 403,
        f"https://127.0.0.1:{port}": 403,
        "https://127.0.0.1": 403,
        None: 403,
    }
