"""daphne as the site runs it (config/daphne_server.py): SIGTERM drains instead of cutting."""

from __future__ import annotations

import asyncio
import contextlib
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


def test_keep_alive_checks_reach_every_socket_once_a_round_and_split_sockets_opened_together():
    from config.daphne_server import SpreadChecks

    connections = {f"socket {n}": {} for n in range(1000)}  # in the order they opened
    checks = SpreadChecks(slices=20)
    ticks = [checks.next_slice(connections) for _ in range(20)]

    assert sorted(p for tick in ticks for p in tick) == sorted(connections), "each once a round"
    assert {len(tick) for tick in ticks} == {50}
    opened_together = {f"socket {n}" for n in range(100, 140)}  # e.g. 40 reconnecting at once
    assert max(len(opened_together & set(tick)) for tick in ticks) <= 2, "their pings go out apart"

    del connections["socket 999"]  # closed during the round
    connections["socket 1000"] = {}  # opened during it
    next_round = [p for _ in range(20) for p in checks.next_slice(connections)]
    assert "socket 999" not in next_round
    assert next_round.count("socket 1000") == 1


def test_a_peer_that_stops_answering_pings_is_dropped_and_a_live_one_is_kept(
    services, database_url_for_processes
):
    """The keep-alive still works with the checks spread out: a vanished client's
    socket is closed (and its player shown offline) instead of held forever."""
    from websockets.asyncio.client import connect
    from websockets.protocol import State

    _, port = services.start_daphne(database_url_for_processes, "--ping-interval", "1", "--ping-timeout", "1")
    handshake = (
        f"GET /ws/notify/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n"
    ).encode()

    def silent_peer() -> tuple[bool, float]:
        """Opens a socket, then reads without ever answering: (saw a ping, seconds until closed)."""
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            raw.sendall(handshake)
            received = b""
            while b"\r\n\r\n" not in received:
                received += raw.recv(4096)
            assert received.startswith(b"HTTP/1.1 101"), received[:100]
            frames = received.split(b"\r\n\r\n", 1)[1]
            opened = time.monotonic()
            try:
                while chunk := raw.recv(4096):
                    frames += chunk
            except ConnectionResetError:
                pass
            # Server frames are unmasked and short here: opcode byte, length byte, payload.
            opcodes = []
            while len(frames) >= 2:
                opcodes.append(frames[0] & 0x0F)
                frames = frames[2 + (frames[1] & 0x7F) :]
            return 0x9 in opcodes, time.monotonic() - opened

    async def scenario() -> tuple[tuple[bool, float], State]:
        async with connect(f"ws://127.0.0.1:{port}/ws/notify/", origin=f"http://127.0.0.1:{port}") as live:
            silent = await asyncio.to_thread(silent_peer)
            await asyncio.wait_for(await live.ping(), 5)  # answers pings, as browsers do
            return silent, live.state

    (pinged, closed_after), live_state = asyncio.run(scenario())
    assert pinged
    assert closed_after < 6, "1 s to the ping, 1 s for its pong, then dropped"
    assert live_state is State.OPEN


def test_the_access_log_keeps_no_key_of_a_reset_or_verification_link(
    services, database_url_for_processes, tmp_path
):
    """Issue #38, 6: whoever reads daphne's access log must not find a link they could use."""
    import urllib.error
    import urllib.request

    log = tmp_path / "access.log"
    _, port = services.start_daphne(database_url_for_processes, "--access-log", str(log))
    secrets = {
        "/accounts/password/reset/key/2-cv8x1q-0f3b6e1d2a4c5b6d7e8f/": "cv8x1q-0f3b6e1d2a4c5b6d7e8f",
        "/accounts/confirm-email/MQ:1uAbCd:Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1/": "MQ:1uAbCd:Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1",
    }
    for path in [*secrets, "/accounts/password/reset/"]:
        # A dead key's page may be an error: logged all the same.
        with contextlib.suppress(urllib.error.HTTPError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10).close()
    deadline = time.monotonic() + 10
    while log.read_text().count("\n") < 3 and time.monotonic() < deadline:
        time.sleep(0.1)  # line-buffered, written once each answer is sent
    text = log.read_text()
    assert '"GET /accounts/password/reset/key/[redacted]/"' in text, text
    assert '"GET /accounts/confirm-email/[redacted]/"' in text, text
    assert '"GET /accounts/password/reset/"' in text, text
    for key in secrets.values():
        assert key not in text, text
