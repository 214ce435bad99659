"""Who has a tournament's page open, shared by every daphne process (Redis), or this process without it.

An arena pairs only players who are there: a player whose game ended while
they had neither the tournament page nor that game's page open is paused
(docs/decisions.md). Each open tournament socket is a member of a sorted set
per (tournament, player), scored by when it lapses; the socket renews it every
third of ``TTL_SECONDS`` and removes it when it closes. A socket of a daphne
killed -9 simply lapses: nobody has to reap it. The game page counts through
games' own presence (``games.live.presence.online``).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from functools import cache

from django.conf import settings

from core.cache import async_redis

TTL_SECONDS = 30.0

_local: defaultdict[str, dict[str, float]] = defaultdict(dict)
_local_lock = threading.Lock()


def _key(tournament_id: int, user_id: int) -> str:
    return f"tournaments:present:{tournament_id}:{user_id}"


@cache
def _redis():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL) if settings.REDIS_URL else None


async def arrive(tournament_id: int, user_id: int, socket: str) -> None:
    """A socket of this player opened (or renews its membership)."""
    lapses = time.time() + TTL_SECONDS
    if not settings.REDIS_URL:
        with _local_lock:
            _local[_key(tournament_id, user_id)][socket] = lapses
        return
    client = async_redis(settings.REDIS_URL)
    key = _key(tournament_id, user_id)
    async with client.pipeline(transaction=False) as pipe:
        pipe.zadd(key, {socket: lapses})
        pipe.zremrangebyscore(key, "-inf", time.time())
        pipe.expire(key, int(TTL_SECONDS * 2))
        await pipe.execute()


async def depart(tournament_id: int, user_id: int, socket: str) -> None:
    if not settings.REDIS_URL:
        with _local_lock:
            _local[_key(tournament_id, user_id)].pop(socket, None)
        return
    await async_redis(settings.REDIS_URL).zrem(_key(tournament_id, user_id), socket)


def on_tournament_page(tournament_id: int, user_id: int) -> bool:
    """Has this player a tournament socket open (not lapsed) anywhere?"""
    now = time.time()
    client = _redis()
    if client is None:
        with _local_lock:
            return any(lapses > now for lapses in _local[_key(tournament_id, user_id)].values())
    return bool(client.zcount(_key(tournament_id, user_id), now, "+inf"))


def on_tournament_page_of(tournament_id: int, user_ids: list[int]) -> set[int]:
    """Which of these players have a tournament socket open: one Redis round trip for all of them."""
    now = time.time()
    client = _redis()
    if client is None:
        return {uid for uid in user_ids if on_tournament_page(tournament_id, uid)}
    with client.pipeline(transaction=False) as pipe:
        for user_id in user_ids:
            pipe.zcount(_key(tournament_id, user_id), now, "+inf")
        counts = pipe.execute()
    return {uid for uid, count in zip(user_ids, counts, strict=True) if count}


def on_game_page(game_id: int, side: int) -> bool:
    """Still on the page of the game that just ended (games' own presence)."""
    from games.live import presence as game_presence

    online, _seq = game_presence.online(game_id)
    return online[side]


def forget_local() -> None:
    """Tests: no socket is open in this process any more."""
    with _local_lock:
        _local.clear()
