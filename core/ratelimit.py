"""Small counters against floods: "at most N of this per window", kept in the shared cache.

Used by the services that a request or a socket frame can repeat cheaply but that
cost someone else something (an offer announced to the opponent, a seek that runs
the pairing, a password hashed). The windows live in Redis (the ``default``
cache), so every daphne process counts together; if Redis loses them, the worst
is one fresh window.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest


def take_slot(key: str, limit: int, seconds: int) -> bool:
    """Count one action against ``key``'s window; False when the window already holds ``limit``.

    The window opens with the first action and lasts ``seconds``. ``add`` and
    ``incr`` are atomic in Redis (and locked in locmem), so parallel requests
    cannot both take the last slot.
    """
    if limit <= 0:
        return False
    key = f"ratelimit:{key}"
    if cache.add(key, 1, timeout=seconds):
        return True
    try:
        count = cache.incr(key)
    except ValueError:  # the window expired between add and incr
        cache.add(key, 1, timeout=seconds)
        return True
    return count <= limit


def address_block(ip: str | None) -> str:
    """The unit an address is counted in: the address, or its /64 for IPv6.

    One IPv6 customer usually holds a whole /64, so counting single addresses would hand a
    guesser billions of fresh ones (allauth's own per-address limit does the same).
    """
    if not ip:
        return ""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False).network_address)
    return str(address)


def request_address(request: HttpRequest) -> str:
    """The client's address block as the log-in limits see it (allauth's trusted-proxy rule)."""
    from allauth.account.adapter import get_adapter

    try:
        return address_block(get_adapter(request).get_client_ip(request))
    except Exception:  # noqa: BLE001 - no address (a test client without REMOTE_ADDR): not counted
        return ""


def scope_address(scope: dict[str, Any]) -> str:
    """A socket's client address block (daphne's ``--proxy-headers`` put the proxy's client there)."""
    client = scope.get("client") or [None]
    return address_block(client[0])
