"""BOT accounts (issue #41): a player account that a program plays through the API's bot endpoints."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q

from accounts.models import User
from games.kinds import choices as game_choices
from games.models import (
    DAYS_PER_MOVE_CHOICES,
    FISCHER_PRESETS,
    MAX_BASE_MINUTES,
    MAX_INCREMENT_SECONDS,
    Game,
)


class BotError(ValueError):
    """The account cannot become a BOT; the message says why."""


def upgrade(user: User) -> None:
    """Make ``user`` a BOT: only before its first game (any game, even one called off), and for good."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.is_bot:
            raise BotError("This account is a BOT already.")
        seated = Q(user0_id=user.pk) | Q(user1_id=user.pk) | Q(created_by_id=user.pk)
        if Game.objects.filter(seated).exists():
            # lichess's rule: ratings and games made by a person must not become a bot's.
            raise BotError("Only an account that has never played a game can become a BOT.")
        User.objects.filter(pk=user.pk).update(is_bot=True)
    user.is_bot = True


# --- what a BOT accepts (shown on the Bots page, offered by its challenge form) ----------------

CLOCK_PATTERN = re.compile(r"^(\d{1,3})\+(\d{1,2})$")


def set_accepts(user: User, *, games: list[str], clocks: list[str], days: list[int]) -> dict[str, Any]:
    """Store what this BOT accepts; refuses (``BotError``) anything the site cannot play, changing nothing."""
    if not user.is_bot:
        raise BotError("Only a BOT account says what it accepts.")
    known = {slug for slug, _name in game_choices()}
    for slug in games:
        if slug not in known:
            raise BotError(f"Unknown game {slug[:20]!r}: one of {', '.join(sorted(known))}.")
    for clock in clocks:
        found = CLOCK_PATTERN.match(clock)
        if not found or not (
            1 <= int(found[1]) <= MAX_BASE_MINUTES and 0 <= int(found[2]) <= MAX_INCREMENT_SECONDS
        ):
            raise BotError(
                f"A clock is minutes+increment, 1 to {MAX_BASE_MINUTES} minutes and 0 to "
                f"{MAX_INCREMENT_SECONDS} seconds, as 5+3; not {clock[:20]!r}."
            )
    for day in days:
        if day not in DAYS_PER_MOVE_CHOICES:
            raise BotError(f"Days per move: one of {', '.join(map(str, DAYS_PER_MOVE_CHOICES))}.")
    # In the site's own order, each once: the page lists them so.
    accepts = {
        "games": [slug for slug, _name in game_choices() if slug in games],
        "clocks": sorted(set(clocks), key=lambda c: tuple(int(n) for n in c.split("+"))),
        "days": sorted(set(days)),
    }
    User.objects.filter(pk=user.pk).update(bot_accepts=accepts)
    user.bot_accepts = accepts
    return accepts


def accepted_clocks(user: User) -> list[tuple[int, int]]:
    """(minutes, increment) the BOT accepts; the site's quick presets when it has not said."""
    clocks = (user.bot_accepts or {}).get("clocks") or []
    return [(int(m), int(i)) for m, i in (c.split("+") for c in clocks)] or list(FISCHER_PRESETS)


def accepted_games(user: User) -> list[str]:
    """The games the BOT accepts; every game when it has not said."""
    return (user.bot_accepts or {}).get("games") or [slug for slug, _name in game_choices()]


# --- online: a BOT is online while an event stream of its is open ---------------------------------
# A key per BOT in the shared cache (Redis in production: every daphne process sees it),
# written when its event stream opens and again at each heartbeat, with a TTL of a few
# heartbeats: a stream whose process died is offline within that, as a page's socket is.


def _online_key(user_id: int) -> str:
    return f"api:bot-online:{user_id}"


def online_ttl() -> int:
    return int(3 * settings.API_STREAM_HEARTBEAT_SECONDS) + 5


def mark_online(user_id: int) -> None:
    cache.set(_online_key(user_id), 1, timeout=online_ttl())


def mark_offline(user_id: int) -> None:
    cache.delete(_online_key(user_id))


def online_ids(user_ids: list[int]) -> set[int]:
    found = cache.get_many([_online_key(pk) for pk in user_ids])
    return {pk for pk in user_ids if _online_key(pk) in found}
