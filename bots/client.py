"""The Play API over HTTP with the standard library: form POSTs and NDJSON streams."""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

# Streams send an empty line every few seconds (API_STREAM_HEARTBEAT_SECONDS, 6 s):
# this much silence means the connection is dead, and the caller reconnects.
STREAM_READ_TIMEOUT = 30.0
NETWORK_ERRORS = (urllib.error.URLError, http.client.HTTPException, OSError, socket.timeout)


class ApiError(RuntimeError):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status}: {body.get('error', body)}")
        self.status = status
        self.body = body
        self.code = body.get("code")


class Client:
    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}", "User-Agent": "boardgames-bots/1"}

    def _open(self, request: urllib.request.Request, timeout: float) -> http.client.HTTPResponse:
        try:
            return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 (the configured site)
        except urllib.error.HTTPError as exc:
            try:
                body = json.loads(exc.read() or b"{}")
            except ValueError:
                body = {"error": exc.reason}
            raise ApiError(exc.code, body if isinstance(body, dict) else {"error": body}) from None

    def post(self, path: str, **fields: Any) -> dict[str, Any]:
        data = urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(self.url + path, data=data, headers=self.headers, method="POST")
        with self._open(request, timeout=30) as response:
            return json.loads(response.read() or b"{}")

    def stream(self, path: str) -> Iterator[dict[str, Any]]:
        """The NDJSON lines of a stream until the server ends it; a heartbeat is ``{"type": "heartbeat"}``.

        A dropped connection raises one of NETWORK_ERRORS (the caller reconnects);
        the stream's normal end just stops the iteration.
        """
        request = urllib.request.Request(self.url + path, headers=self.headers)
        with self._open(request, timeout=STREAM_READ_TIMEOUT) as response:
            while True:
                raw = response.readline()
                if not raw:
                    return
                # Heartbeats too, so that a caller told to stop notices within seconds.
                yield json.loads(raw) if raw.strip() else {"type": "heartbeat"}
