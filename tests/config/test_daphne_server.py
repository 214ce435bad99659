"""daphne as the site runs it (config/daphne_server.py): SIGTERM drains instead of cutting."""

from __future__ import annotations

import asyncio
import signal
import socket
import time

import pytest

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_sigterm_closes_websockets_with_1012_stops_listening_and_exits(services, database_url_for_processes):
    import websockets
    from websockets.asyncio.client import connect

    proc, port = services.start_daphne(database_url_for_processes)

    async def scenario() -> tuple[int, float]:
        ws = await connect(f"ws://127.0.0.1:{port}/ws/notify/", origin="http://127.0.0.1")
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except websockets.ConnectionClosed as closed:
            return closed.rcvd.code, time.monotonic() - started
        raise AssertionError("the socket got a message instead of a close frame")

    code, after = asyncio.run(scenario())
    assert code == 1012, "service restart: the client reconnects at once, elsewhere"
    assert after < 3
    # With its only socket closed it does not wait for the drain deadline (10 s).
    assert proc.wait(timeout=5) == 0
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


def test_an_http_request_running_when_sigterm_arrives_still_gets_its_answer(
    services, database_url_for_processes
):
    proc, port = services.start_daphne(database_url_for_processes)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers not finished yet
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        conn.sendall(b"Connection: close\r\n\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert b'"status": "ok"' in answer
    assert proc.wait(timeout=12) == 0


def test_autobahn_s_debug_lines_read_the_same_though_only_formatted_when_written(monkeypatch):
    import pprint

    from autobahn.websocket import protocol

    from config.daphne_server import format_autobahn_debug_lines_lazily

    # Undone after the test: the patch is meant for daphne processes.
    monkeypatch.setattr(protocol, "pformat", protocol.pformat)
    monkeypatch.setattr(protocol.Timings, "__str__", protocol.Timings.__str__)
    options = [("autoPingInterval", 0, "WebSocketServerFactory"), ("maxFramePayloadSize", 65536, "Factory")]
    format_autobahn_debug_lines_lazily()

    line = "\n{attrs}".format(attrs=protocol.pformat(options))  # noqa: UP032 (as txaio formats log lines)
    assert line == "\n" + pprint.pformat(options)
    timings = protocol.Timings()
    timings.track("onOpen")
    assert str(timings) == pprint.pformat(timings._timings)

    class Unprintable:
        def __repr__(self):
            raise AssertionError("formatted although no line was written")

    protocol.pformat([Unprintable()])  # what autobahn does for every socket it opens
