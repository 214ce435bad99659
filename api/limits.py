"""Rate limits of the API: fixed one-minute windows counted in Django's cache (Redis in production).

A request with a valid token counts against that token; any other request (no token,
or a token refused) against the client's address. Windows are short and the counters
live in the shared cache, so every daphne process counts the same requests.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    retry_after: int  # seconds until the window ends (0 when allowed)


def limit_for(kind: str) -> int:
    """Requests a minute for ``kind`` ("token" or "ip"), from settings (API_RATE_PER_TOKEN / API_RATE_PER_IP)."""
    return settings.API_RATE_PER_TOKEN if kind == "token" else settings.API_RATE_PER_IP


def hit(kind: str, key: str, *, now: float | None = None) -> Verdict:
    """Count one request of ``key``; refused once the window's count passes the limit."""
    now = time.time() if now is None else now
    window = int(now // WINDOW_SECONDS)
    cache_key = f"api:rate:{kind}:{key}:{window}"
    # add() creates the counter only if absent, so concurrent first requests do not reset it.
    cache.add(cache_key, 0, timeout=WINDOW_SECONDS + 5)
    try:
        count = cache.incr(cache_key)
    except ValueError:  # expired between add and incr: this request starts the count again
        cache.add(cache_key, 1, timeout=WINDOW_SECONDS + 5)
        count = 1
    if count <= limit_for(kind):
        return Verdict(allowed=True, retry_after=0)
    return Verdict(allowed=False, retry_after=max(1, math.ceil((window + 1) * WINDOW_SECONDS - now)))
