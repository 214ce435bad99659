"""Request bodies over DJANGO_MAX_REQUEST_BYTES are refused by daphne itself (413).

Daphne hands a request to the application only after Twisted has received the
whole body, and then queues all of it in memory at once: a 50 MB upload doubled
the process's memory before any Django code could say no. A proxy in front
should cap bodies too (docs/deploy.md), but the site must not depend on it.
This hooks daphne's request class (the one place bodies arrive) to answer 413
and drop the connection as soon as the declared length, or the bytes received
so far, pass the cap.
"""

from __future__ import annotations

import logging

from django.conf import settings

logger = logging.getLogger(__name__)

TOO_LARGE = b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class _Discard:
    """Where the rest of a refused body goes."""

    closed = False

    def write(self, data: bytes) -> None:
        pass

    def seek(self, *args) -> None:
        pass

    def read(self, *args) -> bytes:
        return b""

    def close(self) -> None:
        self.closed = True


def _refuse(request) -> None:
    if getattr(request, "_refused", False):
        return
    request._refused = True
    logger.info(
        "refusing a request body over %d bytes from %s",
        settings.DJANGO_MAX_REQUEST_BYTES,
        request.getClientAddress(),
    )
    request.content = _Discard()
    request.channel.transport.write(TOO_LARGE)
    request.channel.transport.loseConnection()


def install() -> None:
    """Cap request bodies in this daphne process (idempotent; a no-op without daphne)."""
    try:
        from daphne.http_protocol import WebRequest
    except ImportError:  # pragma: no cover - daphne is a dependency
        return
    if getattr(WebRequest, "_body_limit_installed", False):
        return
    got_length, handle_chunk = WebRequest.gotLength, WebRequest.handleContentChunk

    def gotLength(self, length):  # noqa: N802 (Twisted's name)
        self._body_bytes = 0
        if length is not None and length > settings.DJANGO_MAX_REQUEST_BYTES:
            _refuse(self)
            return
        got_length(self, length)

    def handleContentChunk(self, data):  # noqa: N802
        if getattr(self, "_refused", False):
            return
        self._body_bytes = getattr(self, "_body_bytes", 0) + len(data)
        if self._body_bytes > settings.DJANGO_MAX_REQUEST_BYTES:  # a chunked body with no declared length
            _refuse(self)
            return
        handle_chunk(self, data)

    def process(self):
        if not getattr(self, "_refused", False):
            return process_request(self)

    process_request = WebRequest.process
    WebRequest.gotLength, WebRequest.handleContentChunk, WebRequest.process = (
        gotLength,
        handleContentChunk,
        process,
    )
    WebRequest._body_limit_installed = True
