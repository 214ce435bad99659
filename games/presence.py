"""Which players of a game have a socket open, shared by every daphne process.

A counter per (game, side) in Redis when REDIS_URL is set, else in this process
(tests, one-off commands). One client and one connection pool per process:
Django's cache would build a new client for every websocket task (its handles
are context-local), which cost a new Redis connection per call under load.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from functools import cache
from typing import Any

from django.conf import settings

from config.cache import async_redis

TTL_SECONDS = 6 * 3600  # a crashed process cannot leave a player "online" forever

_local_counts: Counter[str] = Counter()
_local_lock = threading.Lock()


@cache
def _redis():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL) if settings.REDIS_URL else None


def _async_redis():
    return async_redis(settings.REDIS_URL) if settings.REDIS_URL else None


def _key(game_id: int, side: int) -> str:
    return f"presence:{game_id}:{side}"


def _seq_key(game_id: int) -> str:
    return f"presence:{game_id}:seq"


# The sequence number of a game's presence changes. A missing counter (new game,
# expired, or Redis lost its data) starts again from the clock in microseconds,
# above any number handed out before, so clients never ignore newer notices as
# old ones after Redis restarts empty.
_NEXT_SEQ = """
if redis.call('exists', KEYS[1]) == 0 then redis.call('set', KEYS[1], ARGV[1]) end
local seq = redis.call('incr', KEYS[1])
redis.call('expire', KEYS[1], ARGV[2])
return seq
"""


def _flags(values: list) -> list[bool]:
    return [bool(value) and int(value) > 0 for value in values]


def change(game_id: int, side: int, delta: int) -> tuple[list[bool], int]:
    """Count a socket of ``side`` opening (+1) or closing (-1).

    Returns who is online now and the game's presence sequence number, which
    grows with every change: sockets of one player can open and close on
    different daphne processes, and their notices can reach a client out of
    order; the number says which one is newer. One round trip to Redis (a
    MULTI, so the flags and the number belong together): every socket of a
    reconnect storm comes through here.
    """
    client = _redis()
    if client is None:
        return _change_here(game_id, side, delta)
    pipe = _queue_change(client.pipeline(), game_id, side, delta)
    count, _, seq, values = pipe.execute()
    if count < 0:
        client.set(_key(game_id, side), 0, ex=TTL_SECONDS)
    return _after_change(side, count, values), seq


async def change_in_loop(game_id: int, side: int, delta: int) -> tuple[list[bool], int]:
    """``change`` from the event loop, on an asyncio Redis client (no thread)."""
    client = _async_redis()
    if client is None:
        return _change_here(game_id, side, delta)
    pipe = _queue_change(client.pipeline(), game_id, side, delta)
    count, _, seq, values = await pipe.execute()
    if count < 0:
        await client.set(_key(game_id, side), 0, ex=TTL_SECONDS)
    return _after_change(side, count, values), seq


def _change_here(game_id: int, side: int, delta: int) -> tuple[list[bool], int]:
    key, keys = _key(game_id, side), [_key(game_id, s) for s in (0, 1)]
    with _local_lock:
        _local_counts[key] = max(0, _local_counts[key] + delta)
        _local_counts[_seq_key(game_id)] += 1
        return [_local_counts[k] > 0 for k in keys], _local_counts[_seq_key(game_id)]


def _queue_change(pipe: Any, game_id: int, side: int, delta: int) -> Any:
    # The same commands on a blocking or an asyncio pipeline (queueing is synchronous in both).
    key = _key(game_id, side)
    pipe.incrby(key, delta)
    pipe.expire(key, TTL_SECONDS)
    pipe.eval(_NEXT_SEQ, 1, _seq_key(game_id), time.time_ns() // 1000, TTL_SECONDS)
    pipe.mget([_key(game_id, s) for s in (0, 1)])
    return pipe


def _after_change(side: int, count: int, values: list) -> list[bool]:
    if count < 0:  # more closes than opens were counted (a crash, an expiry): start again from zero
        values[side] = 0
    return _flags(values)


def online(game_id: int) -> tuple[list[bool], int]:
    """Who is online in a game, and its presence sequence number (see ``change``)."""
    client = _redis()
    if client is None:
        return _online_here(game_id)
    values, seq = _queue_online(client.pipeline(), game_id).execute()
    return _flags(values), int(seq or 0)


async def online_in_loop(game_id: int) -> tuple[list[bool], int]:
    """``online`` from the event loop."""
    client = _async_redis()
    if client is None:
        return _online_here(game_id)
    values, seq = await _queue_online(client.pipeline(), game_id).execute()
    return _flags(values), int(seq or 0)


def _online_here(game_id: int) -> tuple[list[bool], int]:
    with _local_lock:
        return [_local_counts[_key(game_id, side)] > 0 for side in (0, 1)], _local_counts[_seq_key(game_id)]


def _queue_online(pipe: Any, game_id: int) -> Any:
    pipe.mget([_key(game_id, side) for side in (0, 1)])
    pipe.get(_seq_key(game_id))
    return pipe
