"""Who calls the API, and whether they may: the Bearer token, its scope, and the rate limits.

Every endpoint names the scope it needs (``TokenAuth("read")``). Read endpoints
also take anonymous callers (``anonymous=True``, as lichess does): those count
against their address's limit. Only the Bearer header authenticates: the API never
reads the session cookie, so a page on another site cannot make a visitor's
browser act through it, and no CSRF token is needed. (Endpoints that change
things will require a token, so this stays true when the Play API arrives.)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from allauth.account.adapter import get_adapter
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.http import HttpRequest
from ninja.security import HttpBearer

from accounts.models import User
from api import limits, tokens
from api.models import ApiToken


class ApiError(Exception):
    """An answer other than success: the status, a sentence for the programmer, and extra JSON fields."""

    def __init__(self, status: int, message: str, *, headers: dict[str, str] | None = None, **extra: Any):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.extra = extra


@dataclass(frozen=True)
class Caller:
    """``request.auth`` of every API request: the token and its player, or an anonymous address."""

    ip: str
    token: ApiToken | None = None

    @property
    def user(self) -> User | None:
        return self.token.user if self.token is not None else None


def client_address(request: HttpRequest) -> str:
    """The client's address as the rate limit counts it: an IPv6 client by its /64 (one household's block)."""
    try:
        raw = get_adapter(request).get_client_ip(request)
    except (PermissionDenied, ImproperlyConfigured):
        return "unknown"
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return "unknown"
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def _count(kind: str, key: str) -> None:
    verdict = limits.hit(kind, key)
    if not verdict.allowed:
        per = "token" if kind == "token" else "address"
        raise ApiError(
            429,
            f"Too many requests for this {per}: {limits.limit_for(kind)} a minute. "
            f"Try again in {verdict.retry_after} s.",
            headers={"Retry-After": str(verdict.retry_after)},
            retry_after=verdict.retry_after,
        )


class TokenAuth(HttpBearer):
    """A Bearer token with ``scope`` (or, when ``anonymous``, no token at all)."""

    def __init__(self, scope: str, *also: str, anonymous: bool = False) -> None:
        super().__init__()
        self.scope = str(scope)  # a Scope member or its value
        # Any one of these will do (the challenge endpoints take a challenge, board or bot token, as lichess's).
        self.scopes = (self.scope, *(str(other) for other in also))
        self.anonymous = anonymous

    def __call__(self, request: HttpRequest) -> Caller:
        ip = client_address(request)
        header = request.headers.get("Authorization", "")
        if not header:
            _count("ip", ip)
            if self.anonymous:
                return Caller(ip=ip)
            raise ApiError(401, "This endpoint needs a token: send Authorization: Bearer <token>.")
        scheme, _, secret = header.partition(" ")
        token = tokens.authenticate(secret.strip()) if scheme.lower() == "bearer" else None
        if token is None:
            # Refused tokens count against the address: guessing is limited like anonymous reading.
            _count("ip", ip)
            raise ApiError(
                401,
                "Unknown or revoked token. Send Authorization: Bearer <token>, "
                "with a token made on the settings page.",
            )
        _count("token", str(token.pk))
        if not any(token.has_scope(scope) for scope in self.scopes):
            wanted = " or ".join(repr(scope) for scope in self.scopes)
            raise ApiError(
                403,
                f"This token lacks the scope {wanted}.",
                scope=self.scope if len(self.scopes) == 1 else list(self.scopes),
                token_scopes=token.scope_list,
            )
        return self.check(Caller(ip=ip, token=token))

    def check(self, caller: Caller) -> Caller:
        """Further conditions on the token's player (the Play API's bot and board endpoints add theirs)."""
        return caller

    def authenticate(self, request: HttpRequest, token: str) -> Caller | None:  # pragma: no cover
        # Unused: __call__ above handles the header itself (the anonymous case and the errors).
        return None
