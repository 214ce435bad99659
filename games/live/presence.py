"""Which players of a game have a socket open, shared by every daphne process.

With REDIS_URL a player is online while a *live* daphne process holds a socket
of theirs; without it (tests, one-off commands) a counter in this process says so.

Why processes and not a counter per (game, side): a counter outlives the process
that counted, so a player whose daphne was killed stayed online to the opponent
for hours. Each process instead keeps its own counts in memory and tells Redis
only which (game, side) it holds (the first socket opens, the last one closes):

- ``presence:procs``: a sorted set of processes, scored by their last heartbeat
  (Redis's clock). A process is alive while that is under ``PRESENCE_TTL_SECONDS``
  old; each one beats every third of that, one command, whatever it holds.
- ``presence:<game>:<side>:procs``: the processes holding a socket of that player.
  Online = any of them alive.
- ``presence:held:<process>``: what a process holds, so that whoever finds it
  dead knows whom to announce offline.

On each heartbeat a process also reaps the dead ones: it removes them in one
script (so only one survivor reaps each) and broadcasts ``game.presence`` for
every player they held, as a closing socket does. A killed daphne's players are
shown offline within ``PRESENCE_TTL_SECONDS`` (45 s) to anyone who reads, and
announced within a heartbeat more (60 s). One client and one connection pool per
process: Django's cache would build a new client for every websocket task. The
scripts name the keys they touch themselves, so this needs one Redis (as the
site uses), not a Redis Cluster.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from functools import cache

from django.conf import settings

from core.cache import async_redis

logger = logging.getLogger(__name__)

LONG_TTL_SECONDS = 6 * 3600  # what a forgotten game leaves in Redis goes away on its own
PROCS_KEY = "presence:procs"

# This process, for as long as it runs (a restart is a new process: its sockets are new too).
PROCESS = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

_local_counts: Counter[str] = Counter()
_local_lock = threading.Lock()
# Keys whose membership changed since the last heartbeat: their Redis state is
# rewritten from the count then, in case a thread's and the loop's updates of the
# same key reached Redis out of order.
_touched: set[str] = set()


@cache
def _redis():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL) if settings.REDIS_URL else None


def _async_redis():
    return async_redis(settings.REDIS_URL) if settings.REDIS_URL else None


def _key(game_id: int, side: int) -> str:
    # ":procs": the counters of before were plain strings under presence:<game>:<side>.
    return f"presence:{game_id}:{side}:procs"


def _member(key: str) -> str:
    """``game:side`` of a key (what ``presence:held:<process>`` lists)."""
    return key.removeprefix("presence:").removesuffix(":procs")


def _seq_key(game_id: int) -> str:
    return f"presence:{game_id}:seq"


def _held_key(process: str) -> str:
    return f"presence:held:{process}"


def ttl_seconds() -> int:
    return settings.PRESENCE_TTL_SECONDS


# Shared by the scripts: Redis's own clock (one clock for every machine), and
# whether a set of processes has a live one.
_LUA_HELPERS = """
local t = redis.call('time')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local function alive(set_key, ttl)
  for _, proc in ipairs(redis.call('smembers', set_key)) do
    local beat = redis.call('zscore', KEYS[1], proc)
    if beat and tonumber(beat) > now - ttl then return 1 end
  end
  return 0
end
-- The sequence number of a game's presence changes. A missing counter (new game,
-- expired, or Redis lost its data) starts again from the clock in microseconds,
-- above any number handed out before, so clients never ignore newer notices as
-- old ones after Redis restarts empty.
local function next_seq(game, long_ttl)
  local key = 'presence:' .. game .. ':seq'
  if redis.call('exists', key) == 0 then redis.call('set', key, t[1] .. string.format('%06d', t[2])) end
  local seq = redis.call('incr', key)
  redis.call('expire', key, long_ttl)
  return seq
end
"""

# KEYS: procs. ARGV: process, game, side, op (add, remove or none), ttl, long ttl.
# Returns {online side 0, online side 1, seq}.
_CHANGE = (
    _LUA_HELPERS
    + """
local proc, game, side, op, ttl, long_ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6]
local key = 'presence:' .. game .. ':' .. side .. ':procs'
local held = 'presence:held:' .. proc
if op == 'add' then
  redis.call('zadd', KEYS[1], now, proc)
  redis.call('sadd', key, proc)
  redis.call('sadd', held, game .. ':' .. side)
  redis.call('expire', held, long_ttl)
elseif op == 'remove' then
  redis.call('srem', key, proc)
  redis.call('srem', held, game .. ':' .. side)
end
redis.call('expire', key, long_ttl)
local seq = next_seq(game, long_ttl)
return {alive('presence:' .. game .. ':0:procs', ttl), alive('presence:' .. game .. ':1:procs', ttl), seq}
"""
)

# KEYS: procs. ARGV: game, ttl. Returns {online side 0, online side 1, seq or false}.
_ONLINE = (
    _LUA_HELPERS
    + """
local game, ttl = ARGV[1], tonumber(ARGV[2])
return {alive('presence:' .. game .. ':0:procs', ttl), alive('presence:' .. game .. ':1:procs', ttl),
        redis.call('get', 'presence:' .. game .. ':seq') or 0}
"""
)

# The heartbeat: this process is alive; the memberships it touched are set from
# its counts (ARGV[4..]: "game:side:1" held, "game:side:0" not); the processes
# whose heartbeat is older than ttl are reaped, each player they held announced.
# KEYS: procs. ARGV: process, ttl, long ttl, memberships...
# Returns {1 if this process was not registered (Redis lost it, or a stall got it
# reaped: the caller registers everything it holds again), {game, side, online 0,
# online 1, seq}..., {the processes reaped}...}.
_HEARTBEAT = (
    _LUA_HELPERS
    + """
local proc, ttl, long_ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local held = 'presence:held:' .. proc
local new = redis.call('zadd', KEYS[1], now, proc)
for i = 4, #ARGV do
  local game, side, present = string.match(ARGV[i], '^(%d+):(%d):(%d)$')
  if present == '1' then
    redis.call('sadd', 'presence:' .. game .. ':' .. side .. ':procs', proc)
    redis.call('sadd', held, game .. ':' .. side)
  else
    redis.call('srem', 'presence:' .. game .. ':' .. side .. ':procs', proc)
    redis.call('srem', held, game .. ':' .. side)
  end
  redis.call('expire', 'presence:' .. game .. ':' .. side .. ':procs', long_ttl)
end
redis.call('expire', held, long_ttl)
redis.call('expire', KEYS[1], long_ttl)
local gone, reaped = {}, {}
for _, dead in ipairs(redis.call('zrangebyscore', KEYS[1], '-inf', now - ttl, 'LIMIT', 0, 100)) do
  redis.call('zrem', KEYS[1], dead)
  table.insert(reaped, dead)
  local dead_held = 'presence:held:' .. dead
  for _, member in ipairs(redis.call('smembers', dead_held)) do
    local game, side = string.match(member, '^(%d+):(%d)$')
    if game then
      redis.call('srem', 'presence:' .. game .. ':' .. side .. ':procs', dead)
      local seq = next_seq(game, long_ttl)
      table.insert(gone, {tonumber(game), tonumber(side),
        alive('presence:' .. game .. ':0:procs', ttl), alive('presence:' .. game .. ':1:procs', ttl), seq})
    end
  end
  redis.call('del', dead_held)
end
return {new, gone, reaped}
"""
)


def _flags(values: list) -> list[bool]:
    return [bool(int(value)) for value in values]


def _count(game_id: int, side: int, delta: int) -> str:
    """Count the socket here; returns what Redis must learn (add, remove or none)."""
    key = _key(game_id, side)
    with _local_lock:
        before = _local_counts[key]
        after = max(0, before + delta)
        if after:
            _local_counts[key] = after
        else:
            _local_counts.pop(key, None)
        if (before == 0) == (after == 0):
            return "none"
        _touched.add(key)
        return "add" if after else "remove"


def change(game_id: int, side: int, delta: int) -> tuple[list[bool], int]:
    """Count a socket of ``side`` opening (+1) or closing (-1) in this process.

    Returns who is online now and the game's presence sequence number, which
    grows with every change: sockets of one player can open and close on
    different daphne processes, and their notices can reach a client out of
    order; the number says which one is newer. One round trip to Redis (a
    script, so the flags and the number belong together): every socket of a
    reconnect storm comes through here.
    """
    client = _redis()
    if client is None:
        return _change_here(game_id, side, delta)
    op = _count(game_id, side, delta)
    result = client.eval(_CHANGE, 1, PROCS_KEY, PROCESS, game_id, side, op, ttl_seconds(), LONG_TTL_SECONDS)
    return _flags(result[:2]), int(result[2])


async def change_in_loop(game_id: int, side: int, delta: int) -> tuple[list[bool], int]:
    """``change`` from the event loop, on an asyncio Redis client (no thread); starts the heartbeat."""
    client = _async_redis()
    if client is None:
        return _change_here(game_id, side, delta)
    ensure_heartbeat()
    op = _count(game_id, side, delta)
    result = await client.eval(
        _CHANGE, 1, PROCS_KEY, PROCESS, game_id, side, op, ttl_seconds(), LONG_TTL_SECONDS
    )
    return _flags(result[:2]), int(result[2])


def _change_here(game_id: int, side: int, delta: int) -> tuple[list[bool], int]:
    key, keys = _key(game_id, side), [_key(game_id, s) for s in (0, 1)]
    with _local_lock:
        _local_counts[key] = max(0, _local_counts[key] + delta)
        _local_counts[_seq_key(game_id)] += 1
        return [_local_counts[k] > 0 for k in keys], _local_counts[_seq_key(game_id)]


def online(game_id: int) -> tuple[list[bool], int]:
    """Who is online in a game, and its presence sequence number (see ``change``)."""
    client = _redis()
    if client is None:
        return _online_here(game_id)
    result = client.eval(_ONLINE, 1, PROCS_KEY, game_id, ttl_seconds())
    return _flags(result[:2]), int(result[2] or 0)


async def online_in_loop(game_id: int) -> tuple[list[bool], int]:
    """``online`` from the event loop."""
    client = _async_redis()
    if client is None:
        return _online_here(game_id)
    result = await client.eval(_ONLINE, 1, PROCS_KEY, game_id, ttl_seconds())
    return _flags(result[:2]), int(result[2] or 0)


def _online_here(game_id: int) -> tuple[list[bool], int]:
    with _local_lock:
        return [_local_counts[_key(game_id, side)] > 0 for side in (0, 1)], _local_counts[_seq_key(game_id)]


# --- the heartbeat ---------------------------------------------------------------------

_heartbeats: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}

# What else is kept per process on the same heartbeat (the spectators, games/live/spectators.py)
# hears after each beat which processes were reaped, and whether this one had to register
# again: one heartbeat and one notion of a live process for every kind of presence.
beat_hooks: list[Callable[[list[str], bool], Awaitable[None]]] = []


def ensure_heartbeat() -> None:
    """Start this process's heartbeat on the running event loop, once (cheap to call per socket)."""
    if not settings.REDIS_URL:
        return
    loop = asyncio.get_running_loop()
    task = _heartbeats.get(loop)
    if task is None or task.done():
        _heartbeats[loop] = loop.create_task(_beat_forever(), name="presence-heartbeat")


def _memberships(keys: set[str]) -> list[str]:
    """``game:side:1`` for each key held here, ``game:side:0`` for each not (under the lock)."""
    return [f"{_member(key)}:{1 if _local_counts.get(key) else 0}" for key in sorted(keys)]


async def beat() -> list[tuple[int, int, bool, int]]:
    """One heartbeat: say this process is alive, reap dead ones and announce their players offline.

    Returns the announcements made: (game, side, online, seq).
    """
    client = _async_redis()
    if client is None:
        return []
    with _local_lock:
        touched = set(_touched)
        _touched.clear()
        memberships = _memberships(touched)
    args = (PROCESS, ttl_seconds(), LONG_TTL_SECONDS)
    try:
        new, gone, reaped = await client.eval(_HEARTBEAT, 1, PROCS_KEY, *args, *memberships)
        if new:
            # Not registered: Redis restarted empty, or this process stalled past its
            # TTL and was reaped. Register everything it holds again.
            with _local_lock:
                held = {key for key in _local_counts if key.endswith(":procs")}
                everything = _memberships(held)
            if everything:
                _, more, more_reaped = await client.eval(_HEARTBEAT, 1, PROCS_KEY, *args, *everything)
                gone.extend(more)
                reaped.extend(more_reaped)
                # A survivor may have announced these players offline meanwhile: say they are back.
                for key in sorted(held):
                    game, side = _member(key).split(":")
                    back = await client.eval(
                        _CHANGE, 1, PROCS_KEY, PROCESS, game, side, "none", ttl_seconds(), LONG_TTL_SECONDS
                    )
                    gone.append([game, side, *back])
    except Exception:
        with _local_lock:
            _touched.update(touched)  # rewritten at the next heartbeat instead
        raise
    announced = [(int(g), int(s), bool(int(online[int(s)])), int(seq)) for g, s, *online, seq in gone]
    if announced:
        await _announce(announced)
    for hook in beat_hooks:
        await hook([p.decode() if isinstance(p, bytes) else p for p in reaped], bool(new))
    return announced


async def _announce(changes: list[tuple[int, int, bool, int]]) -> None:
    """The same ``game.presence`` broadcast a closing socket sends, for each player of a dead process."""
    from core.messages import asend_to_group
    from games.bus import game_group

    for game_id, side, is_online, seq in changes:
        await asend_to_group(
            game_group(game_id), {"type": "game.presence", "side": side, "online": is_online, "seq": seq}
        )


async def _beat_forever() -> None:
    while True:
        started = time.monotonic()
        try:
            await beat()
        except Exception as exc:  # the next beat tries again; readers see this process as gone meanwhile
            from config.unavailable import is_unavailable

            # Redis out of reach is said in one line per beat (healthz says 503 too); anything else in full.
            logger.warning("presence heartbeat failed: %s", exc, exc_info=not is_unavailable(exc))
        # A third of the TTL: a missed beat or two does not make the players look gone.
        await asyncio.sleep(max(0.2, ttl_seconds() / 3 - (time.monotonic() - started)))
