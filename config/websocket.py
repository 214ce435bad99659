"""A JSON websocket consumer that refuses bad input before any handler runs.

Every socket of the site goes through this class: frames over the size cap close
the socket (1009), a flood closes it (1008, as lila-ws does), malformed JSON or an
unknown message type gets an error frame to that client only and changes nothing.
Handlers are ``async def on_<type>(self, message: dict)`` methods.
"""

from __future__ import annotations

import json
import logging
import time
from types import SimpleNamespace
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

CLOSE_POLICY = 1008  # rate limit exceeded
CLOSE_TOO_BIG = 1009


def compact_json(content: Any) -> str:
    """JSON as every socket of the site sends it: no spaces."""
    return json.dumps(content, separators=(",", ":"))


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


def scope_language(scope: dict[str, Any]) -> str:
    """The language of the page that opened the socket: the switcher's cookie, else Accept-Language.

    Channels runs no LocaleMiddleware, so this is what LocaleMiddleware would choose
    for a plain HTTP request from the same browser.
    """
    headers = {name.lower(): value for name, value in scope.get("headers") or []}
    request = SimpleNamespace(
        COOKIES=scope.get("cookies") or {},
        META={"HTTP_ACCEPT_LANGUAGE": headers.get(b"accept-language", b"").decode("latin-1")},
        path_info=scope.get("path", "/"),
    )
    return translation.get_language_from_request(request)


class JsonConsumer(AsyncWebsocketConsumer):
    """Parse, size-check and rate-limit inbound frames; dispatch by ``type``.

    Everything a socket does (its handlers, the services they call, the error
    messages it sends) runs in the language of the page that opened it.
    """

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
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        with translation.override(self.language):
            await handler(message)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        self.bucket = TokenBucket(settings.WS_RATE_MESSAGES, settings.WS_RATE_SECONDS)
        await super().websocket_connect(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        raw = text_data if text_data is not None else bytes_data or b""
        if len(raw.encode() if isinstance(raw, str) else raw) > settings.WS_MAX_MESSAGE_BYTES:
            await self.close(code=CLOSE_TOO_BIG)
            return
        if not self.bucket.take():
            logger.info("closing a flooding socket %s", self.channel_name)
            await self.close(code=CLOSE_POLICY)
            return
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            await self.send_error("malformed", _("The message is not valid JSON."))
            return
        kind = message.get("type") if isinstance(message, dict) else None
        handler = getattr(self, f"on_{kind}", None) if isinstance(kind, str) and kind.isidentifier() else None
        if handler is None:
            await self.send_error("unknown_type", _("Unknown message type."), ref=message)
            return
        await handler(message)

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.send(text_data=compact_json(content))

    async def send_error(self, code: str, text: str, *, ref: Any = None, **extra: Any) -> None:
        payload: dict[str, Any] = {"type": "error", "code": code, "message": str(text), **extra}
        if isinstance(ref, dict) and isinstance(ref.get("id"), str | int):
            payload["id"] = ref["id"]
        await self.send_json(payload)

    async def on_ping(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "pong"})
