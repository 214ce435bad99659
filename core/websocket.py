"""A JSON websocket consumer that refuses bad input before any handler runs.

Every socket of the site goes through this class. Frames over the size cap close
the socket (4009), a flood closes it (4008, as lila-ws does); malformed or too
deeply nested JSON, binary frames and unknown message types get an error frame
to that client only and change nothing. A handler that fails answers
``server_error`` instead of taking the socket down. Application close codes are
4000-4999 because autobahn (under daphne) refuses to send 1008/1009 on the
application's behalf and would crash the socket with 1011 instead, skipping
``disconnect()`` and its clean-up (docs/protocol.md lists the codes).

A signed-in user's sockets also listen on ``auth_group(user_id)``: logging out,
changing the password or being deactivated closes them (4001), so a socket can
never act for somebody who is no longer signed in.

Handlers are ``async def on_<type>(self, message: dict)`` methods, found by
``handler_for``; a socket that declares its commands (the game's, from
``games.protocol.CommandType``) overrides it with its own table. Commands and group
events the socket has no handler for may be answered by a part another app
registered for it (core/socket_parts.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from enum import StrEnum
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _

from core.messages import compact_json
from core.socket_parts import HasParts

logger = logging.getLogger(__name__)


class SocketCode(StrEnum):
    """The ``code`` of an ``error`` the socket itself sends, not a game's refusal (docs/protocol.md)."""

    BINARY = "binary"
    FORBIDDEN = "forbidden"  # a staff-only message from someone who is not staff
    MALFORMED = "malformed"
    UNKNOWN_TYPE = "unknown_type"
    SERVER_ERROR = "server_error"


CLOSE_SIGNED_OUT = 4001  # the session that opened the socket ended
CLOSE_POLICY = 4008  # too many messages
CLOSE_TOO_BIG = 4009  # a frame over WS_MAX_MESSAGE_BYTES
CLOSE_TOO_MANY_OPENS = 4029  # too many sockets opened from one address (refused at the handshake)


def auth_group(user_id: int) -> str:
    return f"auth.{user_id}"


class TokenBucket:
    """``capacity`` messages, refilled evenly over ``period`` seconds."""

    def __init__(self, capacity: int, period: float, *, clock=time.monotonic) -> None:
        self.capacity = capacity
        self.rate = capacity / period
        self.tokens = float(capacity)
        self.clock = clock
        self.updated = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class OpenLimiter:
    """Socket opens per client address, in this process: a bucket per address.

    Per process on purpose: the check costs no network round trip, and N daphne
    processes allow N times the rate, which still bounds a flood. The table
    keeps the most recently seen addresses only.
    """

    def __init__(self, capacity: int, period: float, *, max_addresses: int = 10_000) -> None:
        self.capacity, self.period, self.max_addresses = capacity, period, max_addresses
        self.buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def allow(self, address: str | None) -> bool:
        if not address or self.capacity <= 0:
            return True
        bucket = self.buckets.pop(address, None) or TokenBucket(self.capacity, self.period)
        self.buckets[address] = bucket
        if len(self.buckets) > self.max_addresses:
            self.buckets.popitem(last=False)
        return bucket.take()


_open_limiter: OpenLimiter | None = None


def open_limiter() -> OpenLimiter:
    global _open_limiter
    limits = (settings.WS_OPENS_PER_ADDRESS, settings.WS_OPENS_SECONDS)
    if _open_limiter is None or (_open_limiter.capacity, _open_limiter.period) != limits:
        _open_limiter = OpenLimiter(*limits)
    return _open_limiter


def scope_language(scope: dict[str, Any]) -> str:
    """The language of the page that opened the socket: the switcher's cookie, else Accept-Language.

    Channels runs no LocaleMiddleware, so this is what LocaleMiddleware would choose
    for a plain HTTP request from the same browser.
    """
    headers = {name.lower(): value for name, value in scope.get("headers") or []}
    request = HttpRequest()
    request.COOKIES = scope.get("cookies") or {}
    request.META = {"HTTP_ACCEPT_LANGUAGE": headers.get(b"accept-language", b"").decode("latin-1")}
    request.path_info = scope.get("path", "/")
    return translation.get_language_from_request(request)


Message = dict[str, Any]


async def dispatch_from(sources: list[Callable[[], Awaitable[Message]]], dispatch) -> None:
    """Pass each message of ``sources`` (the socket's, the channel layer's) to ``dispatch``, one at a time.

    What channels' ``await_many_dispatch`` does, at less cost a message: it
    starts a new task for every message and waits on all sources with
    ``asyncio.wait`` (its share of a move's CPU: docs/performance.md). Here one
    reader task per source lives as long as the socket and dispatches what it
    reads, under a lock shared by the readers; it reads the next message only
    when its dispatch is done. A reader that fails (its source, or ``dispatch``
    raising ``StopConsumer``) ends the loop with its error; leaving the loop,
    cancellation included, cancels the readers, which channels' layers take as
    the channel closing. No queue between them: 10,000 idle sockets hold 10,000
    of whatever is here, and an ``asyncio.Queue`` is four deques.
    """
    turn = asyncio.Lock()

    async def read(source: Callable[[], Awaitable[Message]]) -> None:
        while True:
            message = await source()
            async with turn:
                await dispatch(message)

    readers = [asyncio.ensure_future(read(source)) for source in sources]
    ended = asyncio.get_running_loop().create_future()

    def on_end(reader: asyncio.Future) -> None:
        if not ended.done():
            ended.set_result(reader)

    for reader in readers:
        reader.add_done_callback(on_end)
    try:
        first = await ended
        first.result()  # its error (readers only end by one)
    finally:
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)  # the first one's error is raised above


class JsonConsumer(HasParts, AsyncWebsocketConsumer):
    """Parse, size-check and rate-limit inbound frames; dispatch by ``type``.

    Everything a socket does (its handlers, the services they call, the error
    messages it sends) runs in the language of the page that opened it.
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Channels' ``AsyncConsumer.__call__``, with ``dispatch_from`` as its loop."""
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        sources = [receive]
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
            sources.append(self.channel_receive)
        self.base_send = send
        with contextlib.suppress(StopConsumer):  # the consumer's way to end cleanly
            await dispatch_from(sources, self.dispatch)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' own dispatch, without its ``aclose_old_connections()`` per message.

        That call hops to Channels' single shared sync thread for every frame and
        every group event (three hops per move), and under load it was a queue
        all sockets of the process waited in. These consumers never use the ORM
        on the event loop: every database call goes through ``database_sync_to_async``,
        which closes stale connections itself before and after it runs.
        """
        if not hasattr(self, "language"):
            self.language = scope_language(self.scope)
        name = get_handler_name(message)
        handler = getattr(self, name, None) or self.part_event(name)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        with translation.override(self.language):
            await handler(message)

    revoked = False
    # Set once this side closed the socket (or found it closed): frames still queued
    # are dropped and nothing more is sent (issue #38: a ping flood logged
    # "Attempt to send on a closed protocol" tracebacks after the flood close).
    closing = False

    async def close(self, code: int | None = None, reason: str | None = None) -> None:
        self.closing = True
        await super().close(code=code, reason=reason)

    async def send(
        self,
        text_data: str | None = None,
        bytes_data: bytes | None = None,
        close: bool = False,  # noqa: FBT001, FBT002 - Channels' own signature
    ) -> None:
        """Send, unless the socket is closing: then there is nobody to read it, and that is no error.

        daphne hands a send to autobahn, which raises ``Disconnected`` when the
        socket closed (the client's close frame, or ours) before daphne told the
        consumer; an answer or a game event racing a close is simply dropped.
        """
        if self.closing:
            return
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:
            self.closing = True
            logger.debug("dropped a message for the closed socket %s", getattr(self, "channel_name", "?"))

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        self.bucket = TokenBucket(settings.WS_RATE_MESSAGES, settings.WS_RATE_SECONDS)
        client = self.scope.get("client") or [None]
        if not open_limiter().allow(client[0]):
            logger.info("refusing a socket from %s: too many opens", client[0])
            await self.close(code=CLOSE_TOO_MANY_OPENS)  # before accept: the handshake is refused
            return
        user = self.scope.get("user")
        self.auth_group = auth_group(user.pk) if user is not None and user.is_authenticated else None
        if self.auth_group:
            await self.channel_layer.group_add(self.auth_group, self.channel_name)
        await super().websocket_connect(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        self.closing = True
        try:
            await self.close_parts()
        except Exception:  # a part's clean-up must not skip the socket's own
            logger.exception("a part of the socket %s failed to close", getattr(self, "channel_name", "?"))
        if getattr(self, "auth_group", None):
            await self.channel_layer.group_discard(self.auth_group, self.channel_name)
        await super().websocket_disconnect(message)

    async def auth_revoked(self, event: dict[str, Any]) -> None:
        """The user signed out (of this session, or everywhere): stop acting for them."""
        session = self.scope.get("session")
        if event.get("session") and (session is None or session.session_key != event["session"]):
            return  # another browser of the same user signed out
        self.revoked = True
        await self.close(code=CLOSE_SIGNED_OUT)

    async def layer_resubscribed(self, event: dict[str, Any]) -> None:
        """The channel layer lost its subscription to Redis and has it again (config/channel_layer.py).

        Whatever the groups carried meanwhile never arrived. A socket whose page
        must not miss an event sends what it shows afresh; the others have
        nothing to catch up on.
        """

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.revoked or self.closing:
            return
        raw = text_data if text_data is not None else bytes_data or b""
        if len(raw.encode() if isinstance(raw, str) else raw) > settings.WS_MAX_MESSAGE_BYTES:
            await self.close(code=CLOSE_TOO_BIG)
            return
        if not self.bucket.take():
            logger.info("closing a flooding socket %s", self.channel_name)
            await self.close(code=CLOSE_POLICY)
            return
        if text_data is None:
            await self.send_error(SocketCode.BINARY, _("Send text frames: binary frames are not understood."))
            return
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):
            await self.send_error(SocketCode.MALFORMED, _("The message is not valid JSON."))
            return
        kind = message.get("type") if isinstance(message, dict) else None
        handler = self.handler_for(kind) if isinstance(kind, str) else None
        if handler is None:
            await self.send_error(SocketCode.UNKNOWN_TYPE, _("Unknown message type."), ref=message)
            return
        try:
            await handler(message)
        except Exception:
            # The socket and its clean-up outlive a bug in one handler.
            logger.exception("websocket handler on_%s failed", kind)
            await self.send_error(
                SocketCode.SERVER_ERROR, _("Something went wrong; please try again."), ref=message
            )

    def handler_for(self, kind: str) -> Callable[[dict[str, Any]], Awaitable[None]] | None:
        """The handler of a client message of type ``kind``; None refuses it as ``unknown_type``."""
        if not kind.isidentifier():
            return None
        return getattr(self, f"on_{kind}", None) or self.part_command(kind)

    async def send_json(self, content: Mapping[str, Any]) -> None:
        await self.send(text_data=compact_json(content))

    async def send_error(self, code: str, text: str, *, ref: Any = None, **extra: Any) -> None:
        payload: dict[str, Any] = {"type": "error", "code": code, "message": str(text), **extra}
        if isinstance(ref, dict) and isinstance(ref.get("id"), str | int):
            payload["id"] = ref["id"]
        await self.send_json(payload)

    async def on_ping(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "pong"})
