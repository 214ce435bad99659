"""A process that cannot reach Redis (or the broker) answers 503, never a 500 traceback.

``/healthz`` already says 503 for such a process, but nginx does not read it: it
kept sending players there, and they met 500 pages and broken socket handshakes.
Now, on that process:

- pages that need no Redis render as usual: cached sessions are read from the
  database (``core.cache.SessionRedisCache``), and presence is only read by sockets;
- a page that does need it (a session that must be deleted, a broadcast, a task
  to queue) gets the 503 page below instead of the 500 one; nginx sends an
  idempotent request that got 503 to another daphne (``proxy_next_upstream``);
- a websocket handshake is refused with HTTP 503 (``config.daphne_server`` turns a
  refusal with ``CLOSE_UNAVAILABLE`` into that status instead of daphne's 403), so
  nginx tries the socket on another daphne and marks this one failed for a while;
  a socket already open when Redis goes is closed with ``CLOSE_UNAVAILABLE``
  (4503, docs/protocol.md): reconnect, elsewhere.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views.defaults import server_error

logger = logging.getLogger(__name__)

CLOSE_UNAVAILABLE = 4503  # this server cannot reach a service it needs: reconnect (elsewhere)
RETRY_AFTER_SECONDS = 5


def _unavailable_errors() -> tuple[type[BaseException], ...]:
    import kombu.exceptions
    import redis.exceptions

    # ConnectionError and TimeoutError only: a wrong command or a full Redis is a bug or
    # a capacity problem, not a server to route around. OSError covers a refused connect
    # that a client library lets through unwrapped.
    return (
        redis.exceptions.ConnectionError,
        redis.exceptions.TimeoutError,
        kombu.exceptions.OperationalError,
        ConnectionRefusedError,
    )


def is_unavailable(exc: BaseException | None) -> bool:
    """Was ``exc`` (or what it was raised from) a backing service out of reach?"""
    errors = _unavailable_errors()
    seen = 0
    while exc is not None and seen < 10:  # a chain, not a cycle
        if isinstance(exc, errors):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def unavailable_response(request: HttpRequest | None = None) -> HttpResponse:
    """The 503 page: standalone (no context processors, which might need the service that is down)."""
    response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error_or_unavailable(request: HttpRequest, template_name: str = "500.html") -> HttpResponse:
    """``handler500``: the 503 page when what failed was an unreachable service, else Django's 500."""
    if is_unavailable(sys.exc_info()[1]):
        return unavailable_response(request)
    return server_error(request, template_name=template_name)


class WebsocketUnavailableGuard:
    """ASGI middleware for websockets: an unreachable Redis closes or refuses the socket cleanly.

    Before the handshake is accepted the socket is refused with ``CLOSE_UNAVAILABLE``
    (an HTTP 503 from ``config.daphne_server``); after, it is closed with that code.
    Any other error is left to daphne, as before.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        state = {"accepted": False, "closed": False}

        async def tracking_send(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.accept":
                state["accepted"] = True
            elif message["type"] == "websocket.close":
                state["closed"] = True
            await send(message)

        async def tracking_receive() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "websocket.disconnect":  # e.g. presence failing in disconnect()
                state["closed"] = True
            return message

        try:
            return await self.inner(scope, tracking_receive, tracking_send)
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            logger.warning(
                "websocket %s %s: a backing service is unreachable (%s: %s)",
                scope.get("path"),
                "closed" if state["accepted"] else "refused",
                type(exc).__name__,
                exc,
            )
            if not state["closed"]:
                await send({"type": "websocket.close", "code": CLOSE_UNAVAILABLE})
            return None
