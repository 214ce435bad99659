"""How many people watch a game: its sockets that hold no seat, one per person across tabs and processes.

Kept the way presence is (games/live/presence.py), on its processes and its
heartbeat, so a killed daphne's spectators stop counting as its players stop
being online: each process counts its own sockets in memory and tells Redis
only the first one of a viewer opening on a game and the last one closing:

- ``presence:<game>:watch``: members ``<process>|<viewer>``. The count is the
  number of distinct viewers with a member whose process is alive (its heartbeat
  in ``presence:procs`` under ``PRESENCE_TTL_SECONDS`` old), so a dead process's
  spectators stop counting once its heartbeat is stale, before anyone reaps it.
- ``presence:watching:<process>``: ``<game>|<viewer>`` for each of those, so the
  survivor that reaps a dead process (presence's heartbeat, then ``_after_beat``
  here) removes its members and announces the new counts.

A viewer is a registered player, a guest, a browser session, or for a visitor
with none of these (the site makes no session for a page view) the socket
itself: two tabs of such a visitor count twice, since nothing tells them apart.
Every count comes with the game's presence sequence number (the same counter as
presence notices): counts announced by two processes may arrive out of order.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from typing import Any

from django.conf import settings

from accounts.identity import Identity
from core.cache import async_redis
from core.messages import asend_to_group
from games.bus import game_group
from games.live import presence
from games.live.presence import _LUA_HELPERS, LONG_TTL_SECONDS, PROCS_KEY

# Shared by the scripts: the number of distinct viewers of a game whose process is alive.
_COUNT = """
local function watchers(game, ttl)
  local viewers, count = {}, 0
  for _, member in ipairs(redis.call('smembers', 'presence:' .. game .. ':watch')) do
    local proc, viewer = string.match(member, '^(.*)|([^|]+)$')
    local beat = proc and redis.call('zscore', KEYS[1], proc)
    if beat and tonumber(beat) > now - ttl and not viewers[viewer] then
      viewers[viewer] = true
      count = count + 1
    end
  end
  return count
end
"""

# KEYS: procs. ARGV: process, game, viewer, op (add, remove or none), ttl, long ttl.
# Returns {count, seq}.
_CHANGE = (
    _LUA_HELPERS
    + _COUNT
    + """
local proc, game, viewer, op, ttl, long_ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6]
local key, held = 'presence:' .. game .. ':watch', 'presence:watching:' .. proc
if op == 'add' then
  redis.call('zadd', KEYS[1], now, proc)
  redis.call('sadd', key, proc .. '|' .. viewer)
  redis.call('sadd', held, game .. '|' .. viewer)
  redis.call('expire', held, long_ttl)
elseif op == 'remove' then
  redis.call('srem', key, proc .. '|' .. viewer)
  redis.call('srem', held, game .. '|' .. viewer)
end
redis.call('expire', key, long_ttl)
return {watchers(game, ttl), next_seq(game, long_ttl)}
"""
)

# KEYS: procs. ARGV: ttl, games... Returns {count, seq} per game.
_COUNTS = (
    _LUA_HELPERS
    + _COUNT
    + """
local ttl, out = tonumber(ARGV[1]), {}
for i = 2, #ARGV do
  table.insert(out, {watchers(ARGV[i], ttl), redis.call('get', 'presence:' .. ARGV[i] .. ':seq') or 0})
end
return out
"""
)

# The members of processes presence's heartbeat has just reaped. KEYS: procs.
# ARGV: ttl, long ttl, processes... Returns {game, count, seq} per game that had any.
_REAP = (
    _LUA_HELPERS
    + _COUNT
    + """
local ttl, long_ttl, games, out = tonumber(ARGV[1]), ARGV[2], {}, {}
for i = 3, #ARGV do
  local held = 'presence:watching:' .. ARGV[i]
  for _, member in ipairs(redis.call('smembers', held)) do
    local game, viewer = string.match(member, '^(%d+)|([^|]+)$')
    if game then
      redis.call('srem', 'presence:' .. game .. ':watch', ARGV[i] .. '|' .. viewer)
      games[game] = true
    end
  end
  redis.call('del', held)
end
for game in pairs(games) do
  table.insert(out, {tonumber(game), watchers(game, ttl), next_seq(game, long_ttl)})
end
return out
"""
)

ANNOUNCE_AFTER_SECONDS = 0.5
_announcing: set[int] = set()
_tasks: set[asyncio.Task] = set()

# (game, viewer) -> sockets open in this process. All changes come from the event loop.
_local: Counter[tuple[int, str]] = Counter()
_local_seq: Counter[int] = Counter()


def _digest(text: str) -> str:
    # Guest keys are seat tokens and session keys are credentials: Redis gets neither.
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def viewer_of(identity: Identity, scope: dict[str, Any], channel_name: str) -> str:
    """Who watches on this socket: the same string for every tab of one person (see the module's text)."""
    if identity.user is not None:
        return f"u{identity.user.pk}"
    if identity.guest is not None:
        return "g" + _digest(identity.guest.key)
    key = getattr(scope.get("session"), "session_key", None)
    if key:
        return "s" + _digest(key)
    return "c" + _digest(channel_name)


def _client():
    return async_redis(settings.REDIS_URL) if settings.REDIS_URL else None


def _count_here(game_id: int) -> int:
    return sum(1 for (game, _viewer), sockets in _local.items() if game == game_id and sockets > 0)


async def change(game_id: int, viewer: str, delta: int) -> tuple[int, int]:
    """A spectator's socket opens (+1) or closes (-1) here; returns the game's count and sequence number."""
    key = (game_id, viewer)
    before = _local[key]
    after = max(0, before + delta)
    if after:
        _local[key] = after
    else:
        _local.pop(key, None)
    client = _client()
    if client is None:
        _local_seq[game_id] += 1
        return _count_here(game_id), _local_seq[game_id]
    presence.ensure_heartbeat()
    op = "none" if (before == 0) == (after == 0) else ("add" if after else "remove")
    args = (presence.PROCESS, game_id, viewer, op, presence.ttl_seconds(), LONG_TTL_SECONDS)
    count, seq = await client.eval(_CHANGE, 1, PROCS_KEY, *args)
    return int(count), int(seq)


async def counts(game_ids: list[int]) -> dict[int, tuple[int, int]]:
    """Each game's spectator count and presence sequence number, in one round trip."""
    client = _client()
    if client is None:
        return {game: (_count_here(game), _local_seq[game]) for game in game_ids}
    if not game_ids:
        return {}
    result = await client.eval(_COUNTS, 1, PROCS_KEY, presence.ttl_seconds(), *game_ids)
    return {game: (int(count), int(seq)) for game, (count, seq) in zip(game_ids, result, strict=True)}


def counts_now(game_ids: list[int]) -> dict[int, tuple[int, int]]:
    """``counts`` for a page (sync code), on presence's one blocking client of this process."""
    client = presence._redis()
    if client is None:
        return {game: (_count_here(game), _local_seq[game]) for game in game_ids}
    if not game_ids:
        return {}
    result = client.eval(_COUNTS, 1, PROCS_KEY, presence.ttl_seconds(), *game_ids)
    return {game: (int(count), int(seq)) for game, (count, seq) in zip(game_ids, result, strict=True)}


async def count(game_id: int) -> tuple[int, int]:
    return (await counts([game_id]))[game_id]


async def _after_beat(reaped: list[str], registered_again: bool) -> None:  # noqa: FBT001 (presence's hook)
    """After presence's heartbeat: drop the reaped processes' spectators, or put this one's back."""
    client = _client()
    if client is None:
        return
    changes: list[tuple[int, int, int]] = []
    if reaped:
        result = await client.eval(_REAP, 1, PROCS_KEY, presence.ttl_seconds(), LONG_TTL_SECONDS, *reaped)
        changes += [(int(game), int(number), int(seq)) for game, number, seq in result]
    if registered_again:
        # Redis lost this process (restarted empty, or a stall got it reaped): say again whom it holds.
        for game_id, viewer in [key for key, sockets in _local.items() if sockets > 0]:
            args = (presence.PROCESS, game_id, viewer, "add", presence.ttl_seconds(), LONG_TTL_SECONDS)
            number, seq = await client.eval(_CHANGE, 1, PROCS_KEY, *args)
            changes.append((game_id, int(number), int(seq)))
    for game_id, number, seq in changes:
        await announce(game_id, number, seq)


def announce_soon(game_id: int) -> None:
    """Announce the game's count within ``ANNOUNCE_AFTER_SECONDS``, once for every change meanwhile.

    A crowd arriving at a featured game would otherwise send every socket on it
    a message per arrival (lila batches its crowd counts the same way, RoundCrowd).
    """
    if game_id in _announcing:
        return
    _announcing.add(game_id)
    task = asyncio.get_running_loop().create_task(_announce_later(game_id))
    _tasks.add(task)  # held, or the loop may collect the task before it runs
    task.add_done_callback(_tasks.discard)


async def _announce_later(game_id: int) -> None:
    try:
        await asyncio.sleep(ANNOUNCE_AFTER_SECONDS)
    finally:
        _announcing.discard(game_id)
    await announce(game_id, *await count(game_id))


async def announce(game_id: int, number: int, seq: int) -> None:
    """Tell everybody on the game (players and spectators) how many watch it now."""
    await asend_to_group(game_group(game_id), {"type": "game.watchers", "count": number, "seq": seq})


presence.beat_hooks.append(_after_beat)
