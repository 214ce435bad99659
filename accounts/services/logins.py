"""Failed log-ins: slow down a guesser without locking the owner out.

allauth's own limits (``ACCOUNT_RATE_LIMITS["login_failed"]``) count failures per
client address and per *key*; the adapter makes the key a name **and** an address
(``AccountAdapter._get_login_attempts_cache_key``), so a guesser's failures from one
address never block the name from another. What those limits cannot see is a
guesser spread over many addresses. For that, each name has a growing delay:
after ``FREE_FAILURES`` failures from anywhere, a further attempt on the name waits
``2 ** (failures - FREE_FAILURES)`` seconds after the last failure, up to
``MAX_DELAY_SECONDS``.

The delay holds back only the addresses that have themselves failed on the name
(issue #38: before, 18 failures from 3 addresses and then one every 300 s refused
the owner from every fresh address). An address that has not failed on the name
always has its password checked, so the owner gets in from anywhere with the right
password, whatever somebody elsewhere does; after one wrong password from it, it
waits like the guesser's. The cost: a guesser with K addresses gets K guesses per
delay (K every 300 s at most) instead of one; allauth's per-address limits (10 a
minute, 100 an hour, over all names) bound what each address can do. This is
lichess's trade-off: limit addresses, never lock the account. The delay is also
skipped from an address the player has logged in from (``record_success``).

Everything lives in the cache (Redis in production, so every process agrees).
"""

from __future__ import annotations

import hashlib
import time

from django.core.cache import cache

from accounts.validators import name_key
from core.ratelimit import address_block

# Above the per-(name, address) limit of 5 (settings.ACCOUNT_RATE_LIMITS), so one or
# two guessers at fixed addresses never slow the name down for its owner.
FREE_FAILURES = 10
MAX_DELAY_SECONDS = 300
# Failures on a name are forgotten this long after the last one.
FAILURE_MEMORY_SECONDS = 3600
# An address a player logged in from stays "theirs" this long after the last success.
KNOWN_ADDRESS_SECONDS = 30 * 24 * 3600


def _now() -> float:
    """The clock; a function of its own so tests can move it."""
    return time.time()


def _name_hash(login: str) -> str:
    # Hashed: cache keys must be short ASCII, and names may be neither.
    return hashlib.sha256(name_key(login).encode()).hexdigest()


def _failures_key(login: str) -> str:
    return f"login:failures:{_name_hash(login)}"


def _known_key(login: str, ip: str) -> str:
    return f"login:known:{_name_hash(login)}:{address_block(ip)}"


def _failed_key(login: str, ip: str) -> str:
    return f"login:failed:{_name_hash(login)}:{address_block(ip)}"


def delay_remaining(*, login: str, ip: str) -> float:
    """Seconds before ``login`` may be tried again from ``ip`` (0: go ahead).

    Only an address that has failed on ``login`` is ever held back: from any other,
    the password is checked, so the right one always gets its owner in.
    """
    if cache.get(_known_key(login, ip)) or not cache.get(_failed_key(login, ip)):
        return 0.0
    count, last = cache.get(_failures_key(login), (0, 0.0))
    if count < FREE_FAILURES:
        return 0.0
    delay = min(2.0 ** (count - FREE_FAILURES), MAX_DELAY_SECONDS)
    return max(0.0, last + delay - _now())


def record_failure(*, login: str, ip: str) -> None:
    """A wrong password for ``login`` from ``ip``: counts for the name, and marks the address."""
    cache.set(_failed_key(login, ip), 1, FAILURE_MEMORY_SECONDS)
    key = _failures_key(login)
    count, _last = cache.get(key, (0, 0.0))
    # A read-modify-write: two failures at the same instant may count once, which
    # only shortens the delay by one step; the per-address limits are exact.
    cache.set(key, (count + 1, _now()), FAILURE_MEMORY_SECONDS)


def record_success(*, login: str, ip: str) -> None:
    """``login`` logged in from ``ip``: that address skips the name's delay from now on.

    The failure count is kept, so a guesser cannot reset the delay by waiting for
    the owner to log in.
    """
    cache.set(_known_key(login, ip), 1, KNOWN_ADDRESS_SECONDS)
