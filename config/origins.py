"""Which pages may open a websocket here: their Origin must match scheme, host and port exactly.

Browsers send cookies with a cross-site websocket handshake, so the Origin is
all that stands between another page and a logged-in player's socket. Channels'
``AllowedHostsOriginValidator`` compares only the host: ``http://HOST:1`` (any
other server on the machine) and ``http://HOST`` on an HTTPS site (a page a
network attacker can write) drove a player's socket. Here an Origin is allowed
when it is exactly one of:

- the request's own origin: its scheme (``X-Forwarded-Proto`` when the site is
  behind a proxy, as Django's ``request.is_secure()`` reads it) and its Host
  header, port included, provided that Host is in ``ALLOWED_HOSTS``: a dev
  server on ``:8000``, or nginx on a port of its own, is same-origin with itself;
- a host of ``ALLOWED_HOSTS`` behind the configured scheme at that scheme's
  default port (``https://HOST`` with ``DJANGO_HTTPS``, else ``http://HOST``),
  which is what a browser sends for the site behind nginx on 443 (or 80);
  ``.example.org`` entries cover the subdomains, ``*`` covers no foreign origin;
- an entry of ``CSRF_TRUSTED_ORIGINS`` (``https://*.example.org`` for subdomains),
  the origins an operator already trusts for forms.

A missing Origin, ``null``, or anything else is refused before any consumer runs
(daphne answers the handshake with 403).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]  # (scheme, host, port), lower case, the port always given


def parse_origin(value: str) -> Origin | None:
    """``scheme://host[:port]`` as a browser sends it, or None for anything else (paths, users, ``null``)."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:  # a port that is not a number, a broken IPv6 literal
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or "@" in parts.netloc:
        return None
    if parts.path or parts.query or parts.fragment:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def request_is_secure(scope: dict[str, Any]) -> bool:
    """Was the handshake made over TLS, as ``request.is_secure()`` would say for this request?"""
    proxy_header = settings.SECURE_PROXY_SSL_HEADER
    if proxy_header:
        name, secure_value = proxy_header
        # HTTP_X_FORWARDED_PROTO is how Django names the header x-forwarded-proto.
        value = _header(scope, name.removeprefix("HTTP_").replace("_", "-").lower().encode())
        if value is not None:
            return value.split(",", 1)[0].strip() == secure_value
    return scope.get("scheme") in ("wss", "https")


def request_host(scope: dict[str, Any]) -> str | None:
    """The Host the browser addressed (``X-Forwarded-Host`` only when Django is told to trust it)."""
    if settings.USE_X_FORWARDED_HOST:
        forwarded = _header(scope, b"x-forwarded-host")
        if forwarded:
            return forwarded.split(",", 1)[0].strip()
    return _header(scope, b"host")


def _same_origin(origin: Origin, *, host: str | None, secure: bool) -> bool:
    if not host:
        return False
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False  # a Host of another name (DNS rebinding) is never "same origin"
    return parse_origin(("https://" if secure else "http://") + host) == origin


def _an_allowed_host(origin: Origin) -> bool:
    scheme = "https" if settings.HTTPS else "http"
    if origin[0] != scheme or origin[2] != DEFAULT_PORTS[scheme]:
        return False
    # ALLOWED_HOSTS writes an IPv6 address in brackets; an origin's host has none.
    patterns = (pattern.lower().removeprefix("[").removesuffix("]") for pattern in settings.ALLOWED_HOSTS)
    return any(pattern != "*" and is_same_domain(origin[1], pattern) for pattern in patterns)


def _trusted(origin: Origin) -> bool:
    for entry in settings.CSRF_TRUSTED_ORIGINS:
        wildcard = "://*." in entry
        trusted = parse_origin(entry.replace("://*.", "://", 1))
        if trusted is None or trusted[0] != origin[0] or trusted[2] != origin[2]:
            continue
        if trusted[1] == origin[1] or (wildcard and origin[1].endswith("." + trusted[1])):
            return True
    return False


def origin_allowed(origin: str | None, *, host: str | None, secure: bool) -> bool:
    """May a page of ``origin`` open a socket addressed to ``host`` (over TLS if ``secure``)?"""
    parsed = parse_origin(origin) if origin else None
    if parsed is None:
        return False
    return _same_origin(parsed, host=host, secure=secure) or _an_allowed_host(parsed) or _trusted(parsed)


class ExactOriginValidator:
    """ASGI middleware for websockets: refuse the handshake unless ``origin_allowed``."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        allowed = origin_allowed(
            _header(scope, b"origin"), host=request_host(scope), secure=request_is_secure(scope)
        )
        if not allowed:
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
