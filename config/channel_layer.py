"""The channel layer: channels_redis's PubSub layer with one pattern subscription per process.

``RedisPubSubChannelLayer`` SUBSCRIBEs every channel ``new_channel()`` hands out
and UNSUBSCRIBEs it when the socket closes. In a reconnect storm of 2,000 sockets
that is 4,000 Redis commands (and their confirmations read back) for the daphne
process, all queued behind the shard's one asyncio lock, before any game message
gets through.

Here each process gets a random token and names its channels
``{prefix}specific.{token}!{uuid}`` (the part up to "!" names the process, as
channels' own process-local names do). One ``PSUBSCRIBE {prefix}*{token}!*`` per
shard then covers every channel the process will ever hand out; a closing socket
only drops its local queue; and a send to a channel of the same process never
leaves it. Group subscriptions are unchanged: one per process and group.

Publishing does not take the shard's lock either. channels_redis holds it across
each PUBLISH's round trip, so a process sent at most one message per Redis round
trip, whatever its CPU (the ceiling measured: docs/performance.md). Up to ``PUBLISHING`` publishes now run at once, each on a
connection of the client's pool. Two messages sent one after the other by the
same coroutine still arrive in order (the first is in Redis before the second
is sent); messages sent concurrently by different sockets' coroutines were never
ordered, and the protocol carries versions and sequence numbers for that.

Pub/sub delivers at most once: whatever was published while a shard's subscribing
connection was down (Redis restarting, a network cut) never arrives. redis-py
reconnects and subscribes again by itself; once Redis has confirmed the
subscriptions, every local channel is sent ``{"type": "layer.resubscribed"}``
(``RESUBSCRIBED``), so that a socket whose page must not miss an event sends
what it shows afresh (``GameConsumer.layer_resubscribed``). Anything published
after the confirmation arrives as usual, and anything before it was stored
before the socket reads its state (docs/decisions.md, "A socket hears what it
missed while Redis was away").
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import uuid
from collections.abc import Callable
from typing import Any, cast

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer, RedisSingleShardConnection
from channels_redis.utils import _wrap_close, decode_hosts
from redis.asyncio.client import PubSub, Redis
from redis.utils import str_if_bytes

logger = logging.getLogger(__name__)

Message = dict[str, Any]

# Sent to every channel of a loop whose subscription to Redis was lost and is back:
# what the groups and channels carried meanwhile is gone (handler ``layer_resubscribed``).
RESUBSCRIBED: Message = {"type": "layer.resubscribed"}


PUBLISHING = 8  # publishes in flight at once per process and shard: at most this many connections


class _PubSub(PubSub):
    """redis-py's PubSub that says when Redis has confirmed its subscriptions again after a reconnect.

    ``on_connect`` is redis-py's connect callback: the pool connects the first
    connection before it is registered, so it runs only on a reconnect, and
    sends SUBSCRIBE (the groups) then PSUBSCRIBE (the process's pattern). Redis
    answers in that order, so the confirmation of the last kind sent means every
    subscription is in place again: from then on nothing published is missed.
    """

    def __init__(self, *args: Any, on_resubscribed: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_resubscribed = on_resubscribed
        self._awaiting: str | None = None  # the confirmation that completes a resubscription

    async def on_connect(self, connection: Any) -> None:
        self._awaiting = "psubscribe" if self.patterns else "subscribe" if self.channels else None
        if self._awaiting is not None:
            # Looked for only until it comes: every message of the game goes through
            # handle_message, and a move costs nothing more once the layer is back.
            self.handle_message = self._handle_while_resubscribing  # type: ignore[method-assign]
        else:
            self.__dict__.pop("handle_message", None)
        await super().on_connect(connection)

    async def _handle_while_resubscribing(
        self,
        response: Any,
        ignore_subscribe_messages: bool = False,  # noqa: FBT001, FBT002 - redis-py's signature
    ) -> Any:
        if isinstance(response, list | tuple) and response and str_if_bytes(response[0]) == self._awaiting:
            del self.handle_message  # redis-py's own again
            self._awaiting = None
            self._on_resubscribed()
        return await PubSub.handle_message(self, response, ignore_subscribe_messages)


class _Shard(RedisSingleShardConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._publishing = asyncio.Semaphore(PUBLISHING)

    def _ensure_redis(self) -> None:
        if self._redis is None:
            super()._ensure_redis()
            # The parent's PubSub, replaced by ours on the same pool before it ever connects.
            pool = cast(Redis, self._redis).connection_pool
            self._pubsub = _PubSub(pool, on_resubscribed=self.channel_layer.resubscribed)

    async def publish(self, channel: str, message: bytes) -> None:
        # _ensure_redis() does not await: nothing can run between it and the PUBLISH.
        self._ensure_redis()
        async with self._publishing:
            await self._redis.publish(channel, message)

    async def psubscribe(self, pattern: str) -> None:
        # Kept in _subscribed_to with the plain channels so that flush() forgets
        # it too, and the lock keeps a burst of new_channel() calls to one PSUBSCRIBE.
        async with self._lock:
            if pattern not in self._subscribed_to:
                self._ensure_redis()
                self._ensure_receiver()
                # redis-py remembers the pattern and PSUBSCRIBEs again after a reconnect
                # (PubSub.on_connect). A pmessage carries the real channel name in
                # "channel", so the parent's _receive_message routes it unchanged.
                await self._pubsub.psubscribe(pattern)
                self._subscribed_to.add(pattern)


class _ProcessLoopLayer(RedisPubSubLoopLayer):
    """The layer for one event loop. The token is per loop, not per process, because
    the local queues are: a send from another loop of the same process (async_to_sync
    in a thread) must go through Redis to reach them, as it did before."""

    def __init__(self, hosts: Any = None, prefix: str = "asgi", **kwargs: Any) -> None:
        super().__init__(hosts, prefix, **kwargs)
        self._shards = [_Shard(host, self) for host in decode_hosts(hosts)]
        self._token = secrets.token_hex(8)
        # A layer prefix is not checked by channels; keep glob characters in it literal.
        self._pattern = re.sub(r"([*?\[\]\\])", r"\\\1", self.prefix) + f"*{self._token}!*"
        self._listening = False

    def _is_mine(self, channel: str) -> bool:
        head, bang, _ = channel.partition("!")
        return bool(bang) and head.startswith(self.prefix) and head.endswith(self._token)

    async def _listen(self) -> None:
        # send() picks a shard by hashing the channel name, so the pattern is needed on all.
        if not self._listening:
            for shard in self._shards:
                await shard.psubscribe(self._pattern)
            self._listening = True

    async def new_channel(self, prefix: str = "specific.") -> str:
        channel = f"{self.prefix}{prefix}{self._token}!{uuid.uuid4().hex}"
        self.channels[channel] = asyncio.Queue()
        await self._listen()
        return channel

    async def send(self, channel: str, message: Message) -> None:
        if not self._is_mine(channel):
            await super().send(channel, message)
            return
        # Serialized all the same: the receiver gets its own copy, and a message
        # that could not cross Redis fails here too.
        data = self.channel_layer.serialize(message)
        queue = self.channels.get(channel)
        if queue is not None:  # else the socket has closed: dropped, as PUBLISH to no one
            queue.put_nowait(data)

    async def receive(self, channel: str) -> Message:
        if not self._is_mine(channel):
            return await super().receive(channel)
        if channel not in self.channels:  # e.g. received again after a flush()
            self.channels[channel] = asyncio.Queue()
            await self._listen()
        try:
            data = await self.channels[channel].get()
        except (asyncio.CancelledError, TimeoutError, GeneratorExit):
            # Channels cancels receive() when the socket closes (see the parent). The
            # pattern stays for the process's other channels: nothing to tell Redis.
            self.channels.pop(channel, None)
            raise
        return self.channel_layer.deserialize(data)

    def resubscribed(self) -> None:
        """A shard lost its subscriptions and has them again: tell every channel of this loop.

        Each socket's consumer gets ``RESUBSCRIBED`` in its own queue, after
        whatever arrived before, and handles it in turn like any message. Every
        channel, not only the shard's groups' members: a message to a channel
        (the pattern) may have been lost as well.
        """
        logger.warning("the channel layer subscribed to Redis again; telling %d sockets", len(self.channels))
        data = self.channel_layer.serialize(RESUBSCRIBED)
        for queue in self.channels.values():
            queue.put_nowait(data)

    async def flush(self) -> None:
        # The shards drop their connections and subscriptions: PSUBSCRIBE again next time.
        self._listening = False
        await super().flush()


class ProcessChannelLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` with one pattern subscription per process (see the module)."""

    def _get_layer(self) -> _ProcessLoopLayer:
        # The parent's, building our loop layer instead of RedisPubSubLoopLayer.
        loop = asyncio.get_running_loop()
        try:
            layer = self._layers[loop]
        except KeyError:
            layer = _ProcessLoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
        return layer
