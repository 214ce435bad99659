"""The websocket protocol over a real daphne process (Twisted + autobahn), not a test communicator.

``WebsocketCommunicator`` skips autobahn, which refuses some close codes and
enforces its own frame limits: a close code the application may not send once
crashed every oversized frame into a 1011 and skipped the socket's clean-up.
Each behaviour of docs/protocol.md that involves the wire is checked here once.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.test import Client
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from accounts.identity import Identity
from games import services
from games.models import Game, Move

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


@pytest.fixture(scope="module")
def daphne_port(services, database_url_for_processes):
    _, port = services.start_daphne(database_url_for_processes)
    return port


@pytest.fixture
def game_of_two(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    return game.pk, alice, session_cookie(alice)


def open_socket(port: int, path: str, cookie: str | None = None):
    headers = {"Cookie": f"sessionid={cookie}"} if cookie else {}
    return connect(
        f"ws://127.0.0.1:{port}{path}",
        origin=f"http://127.0.0.1:{port}",
        additional_headers=headers,
        open_timeout=10,
        max_size=None,
    )


async def first(ws, kind: str, timeout: float = 10) -> dict:
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return message


async def closed_with(ws, timeout: float = 10) -> int:
    with pytest.raises(ConnectionClosed) as closed:
        async with asyncio.timeout(timeout):
            while True:
                await ws.recv()
    frame = closed.value.rcvd or closed.value.sent
    return frame.code if frame else 1006  # the server dropped the connection without a close frame


async def seen_online(port: int, game_id: int) -> list[bool]:
    async with open_socket(port, f"/ws/game/{game_id}/") as spectator:
        return (await first(spectator, "state"))["online"]


def test_an_oversized_frame_closes_with_4009_and_the_player_is_shown_offline(daphne_port, game_of_two):
    game_id, _, cookie = game_of_two

    async def scenario():
        async with open_socket(daphne_port, f"/ws/game/{game_id}/", cookie) as ws:
            await first(ws, "state")
            assert (await seen_online(daphne_port, game_id))[0] is True
            await ws.send(json.dumps({"type": "ping", "pad": "x" * 4100}))
            code = await closed_with(ws)
        await asyncio.sleep(0.5)
        return code, await seen_online(daphne_port, game_id)

    code, online = asyncio.run(scenario())
    assert code == 4009
    assert online[0] is False  # disconnect() ran: presence was cleaned up


def test_a_frame_over_the_servers_own_limit_is_closed_by_autobahn_and_still_cleaned_up(
    daphne_port, game_of_two
):
    game_id, _, cookie = game_of_two

    async def scenario():
        async with open_socket(daphne_port, f"/ws/game/{game_id}/", cookie) as ws:
            await first(ws, "state")
            await ws.send("x" * 100_000)
            code = await closed_with(ws)
        await asyncio.sleep(0.5)
        return code, await seen_online(daphne_port, game_id)

    code, online = asyncio.run(scenario())
    assert code in (1009, 1006)  # autobahn's own verdict: "message too big", or it just drops the line
    assert online[0] is False


def test_nesting_binary_and_floods_over_the_wire(daphne_port, game_of_two, settings):
    game_id, _, cookie = game_of_two

    async def scenario():
        async with open_socket(daphne_port, f"/ws/game/{game_id}/", cookie) as ws:
            await first(ws, "state")
            await ws.send("[" * 1024)
            nested = await first(ws, "error")
            await ws.send(b'{"type": "ping"}')
            binary = await first(ws, "error")
            await ws.send(json.dumps({"type": "ping"}))
            await first(ws, "pong")
            for _ in range(settings.WS_RATE_MESSAGES + 5):
                await ws.send(json.dumps({"type": "ping"}))
            code = await closed_with(ws)
        return nested["code"], binary["code"], code

    assert asyncio.run(scenario()) == ("malformed", "binary", 4008)


def log_out_over_http(port: int, cookie: str) -> int:
    """POST the logout form to the running server, as the browser would (CSRF token and all)."""
    base = f"http://127.0.0.1:{port}"
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("Cookie", f"sessionid={cookie}")]
    page = opener.open(f"{base}/accounts/logout/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    request = urllib.request.Request(
        f"{base}/accounts/logout/",
        data=urllib.parse.urlencode({"csrfmiddlewaretoken": token}).encode(),
        headers={"Cookie": f"sessionid={cookie}; csrftoken={csrf}", "Origin": base, "Referer": f"{base}/"},
    )
    no_redirects = urllib.request.build_opener(NoRedirect)
    try:
        return no_redirects.open(request, timeout=10).status
    except urllib.error.HTTPError as response:
        return response.code


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_logging_out_closes_the_sockets_of_that_session_and_they_cannot_move(daphne_port, game_of_two):
    game_id, _, cookie = game_of_two

    async def scenario():
        async with open_socket(daphne_port, f"/ws/game/{game_id}/", cookie) as ws:
            assert (await first(ws, "state"))["you"] == 0
            assert await asyncio.to_thread(log_out_over_http, daphne_port, cookie) == 302
            code = await closed_with(ws)
            with contextlib.suppress(ConnectionClosed):
                await ws.send(json.dumps({"type": "move", "move": "d3", "ply": 0, "id": "late"}))
        async with open_socket(daphne_port, f"/ws/game/{game_id}/", cookie) as again:
            state = await first(again, "state")
            await again.send(json.dumps({"type": "move", "move": "d3", "ply": 0, "id": "after"}))
            refused = await first(again, "error")
        return code, state["you"], refused["code"]

    code, you, refused = asyncio.run(scenario())
    assert code == 4001
    assert you is None and refused == "spectator"  # the old cookie no longer signs anybody in
    assert not Move.objects.filter(game_id=game_id).exists()


def daphne_memory_kb(services, port: int) -> int:
    proc = next(p for p in services.procs if p.args and str(port) in p.args and p.poll() is None)
    status = Path(f"/proc/{proc.pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))


def test_an_oversized_request_body_is_refused_before_it_is_held_in_memory(daphne_port, services):
    import http.client
    import socket

    before = daphne_memory_kb(services, daphne_port)
    declared = http.client.HTTPConnection("127.0.0.1", daphne_port, timeout=10)
    declared.putrequest("POST", "/accounts/login/")
    declared.putheader("Content-Length", str(50 * 1024 * 1024))
    declared.endheaders()
    assert declared.getresponse().status == 413  # answered from the headers alone

    # Chunked: no length declared, so the cap counts what arrives.
    with socket.create_connection(("127.0.0.1", daphne_port), timeout=10) as raw:
        raw.sendall(
            b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"x" * 1024 * 1024
        try:
            for _ in range(50):
                raw.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:
            pass  # the server hung up on us: what we want
        answer = raw.recv(200)
    assert answer.startswith(b"HTTP/1.1 413")
    assert daphne_memory_kb(services, daphne_port) - before < 20_000  # not 50 MB, nor twice that


def test_a_player_s_ping_from_behind_brings_the_state_over_the_wire(daphne_port, game_of_two):
    game_id, alice, cookie = game_of_two

    async def scenario():
        async with open_socket(daphne_port, f"/ws/game/{game_id}/", cookie) as ws:
            shown = (await first(ws, "state"))["v"]
            await asyncio.to_thread(
                services.play_move, game_id=game_id, identity=Identity(alice, None), token="d3", ply=0
            )
            await ws.send(json.dumps({"type": "ping", "v": shown}))  # the board still shows the start
            caught_up = await first(ws, "state")
            await ws.send(json.dumps({"type": "ping", "v": "not a version"}))
            return caught_up, await first(ws, "pong")

    caught_up, pong = asyncio.run(scenario())
    assert caught_up["game"]["moves"] == ["d3"] and caught_up["v"] > 0
    assert pong == {"type": "pong"}


def test_a_fischer_clock_over_the_wire_gives_the_mover_the_increment(daphne_port, user_factory):
    alice, bob = user_factory("ann"), user_factory("ben")
    game = services.create_human_game(
        identity=Identity(alice, None),
        game="reversi",
        kind=Game.Kind.INVITE_LINK,
        side=0,
        minutes=3,
        increment=2,
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    # Each side's first move is free (no time, no increment: docs/decisions.md, "When the
    # clocks start"), so the move over the wire is alice's second, once the clocks run.
    services.play_move(game_id=game.pk, identity=Identity(alice, None), token="d3", ply=0)
    services.play_move(game_id=game.pk, identity=Identity(bob, None), token="c5", ply=1)
    cookie = session_cookie(alice)

    async def scenario():
        async with open_socket(daphne_port, f"/ws/game/{game.pk}/", cookie) as ws:
            state = await first(ws, "state")
            await ws.send(json.dumps({"type": "move", "move": "d6", "ply": 2, "id": "m1"}))
            return state, await first(ws, "event")

    state, event = asyncio.run(scenario())
    assert state["game"]["clock"]["increment_ms"] == 2000
    clock = (event.get("patch") or event["game"])["clock"]
    move = Move.objects.get(game_id=game.pk, ply=2)
    assert move.time_used_ms > 0, "the clocks run from ply 2: the move is charged its time"
    assert move.clock_left_ms == 180_000 - move.time_used_ms + 2_000 == clock["ms"][0]


def test_a_casual_game_says_so_in_the_snapshot_over_the_wire(daphne_port, user_factory):
    alice, bob = user_factory("cat"), user_factory("dan")
    game = services.create_human_game(
        identity=Identity(alice, None), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, casual=True
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    cookie = session_cookie(alice)

    async def scenario():
        async with open_socket(daphne_port, f"/ws/game/{game.pk}/", cookie) as ws:
            return await first(ws, "state")

    state = asyncio.run(scenario())
    assert state["game"]["casual"] is True and state["game"]["rated"] is False


def test_a_takeback_asked_and_accepted_over_the_wire(daphne_port, user_factory):
    alice, bob = user_factory("eve"), user_factory("fay")
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    services.play_move(game_id=game.pk, identity=Identity(alice, None), token="d3", ply=0)
    cookies = session_cookie(alice), session_cookie(bob)

    async def scenario():
        path = f"/ws/game/{game.pk}/"
        async with (
            open_socket(daphne_port, path, cookies[0]) as a,
            open_socket(daphne_port, path, cookies[1]) as b,
        ):
            await first(a, "state")
            await first(b, "state")
            await a.send(json.dumps({"type": "propose_takeback"}))
            asked = await first(b, "event")
            await b.send(json.dumps({"type": "accept_takeback"}))
            while (done := await first(a, "event"))["event"] != "takeback":
                pass  # a's own request comes first
            return asked, done

    asked, done = asyncio.run(scenario())
    assert asked["event"] == "takeback_request" and asked["game"]["takeback"] == 0
    assert (done["game"]["ply"], done["game"]["moves"], done["game"]["takeback"]) == (0, [], None)
    assert Game.objects.get(pk=game.pk).ply == 0 and not Move.objects.filter(game_id=game.pk).exists()
