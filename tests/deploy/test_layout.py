"""The production layout as a visitor and an operator meet it: nginx in front of
two daphne processes, the two workers and beat (deploy/, started by the deploy check).

Everything goes through nginx's URL (SITE_URL) unless a test says it goes
around it on purpose. The last tests stop daphne processes mid-game.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import signal
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.test import Client

from accounts.identity import Identity
from games import services as game_services
from games.live.bot import GameBot
from games.models import Game, Move
from tests.deploy.conftest import read_layout
from tests.processes import EXTERNAL_SITE, site_ws_url

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def request(
    method: str, path: str, *, port: int | None = None, headers: dict | None = None, body: bytes | None = None
) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One HTTP request to nginx (or straight to a daphne ``port``); no redirects followed."""
    nginx = urlsplit(EXTERNAL_SITE)
    conn = http.client.HTTPConnection("127.0.0.1", port or nginx.port, timeout=20)
    try:
        conn.request(method, path, body=body, headers={"Host": nginx.netloc, **(headers or {})})
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def established_sockets(port: int) -> int:
    """Open TCP connections to a local port (nginx's connections to one daphne)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def process_gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return True


def wait_for_the_worker(game_id: int, timeout: float = 30) -> None:
    from ratings.models import AppliedGame

    deadline = time.monotonic() + timeout
    while not AppliedGame.objects.filter(game_id=game_id).exists():
        assert time.monotonic() < deadline, "the background worker never applied the finished game"
        time.sleep(0.2)


def wait_for_restart(port: int, old_pid: int, timeout: float = 30) -> None:
    """The check restarts a dead daphne (systemd's Restart=always); wait until it answers again."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        entry = next(d for d in read_layout()["daphne"] if d["port"] == port)
        if entry["pid"] != old_pid:
            try:
                status, _, _ = request("GET", "/healthz", port=port)
                if status == 200:
                    return
            except OSError:
                pass
        time.sleep(0.3)
    raise AssertionError(f"daphne on {port} was not running again after {timeout} s")


@pytest.fixture
def two_players(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = game_services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
    )
    game_services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    return game.pk, session_cookie(alice), session_cookie(bob)


# --- what nginx serves itself ------------------------------------------------------


def test_healthz_answers_through_nginx_with_every_service_up(layout):
    status, headers, body = request("GET", "/healthz")
    assert status == 200, body
    assert b'"database": "ok"' in body and b'"channel_layer": "ok"' in body and b'"broker": "ok"' in body
    assert headers["Server"] == "nginx", "nginx, without its version"


def test_hashed_static_files_are_cached_for_a_year_and_sent_compressed(layout):
    status, _, page = request("GET", "/")
    assert status == 200
    hashed = re.search(rb'/static/[^"\']+\.[0-9a-f]{12}\.css', page)
    assert hashed, "the home page links a hashed stylesheet (DJANGO_STATIC_MANIFEST=1)"
    status, headers, body = request("GET", hashed.group().decode(), headers={"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert headers["Content-Encoding"] == "gzip" and body[:2] == b"\x1f\x8b", "the .gz collectstatic made"
    assert headers["X-Content-Type-Options"] == "nosniff"
    # The same file under its plain name may change with the next release.
    status, headers, _ = request("GET", "/static/css/site.css")
    assert status == 200 and headers["Cache-Control"] == "public, max-age=3600"


def test_uploads_are_served_so_that_none_can_run_as_a_page(layout):
    media = Path(os.environ["DJANGO_MEDIA_ROOT"]) / "avatars"
    media.mkdir(parents=True, exist_ok=True)
    (media / "probe.webp").write_bytes(b"RIFF\x1a\x00\x00\x00WEBPVP8 ")
    (media / "probe.html").write_text("<script>alert(document.cookie)</script>")
    for name, content_type in (("probe.webp", "image/webp"), ("probe.html", "application/octet-stream")):
        status, headers, _ = request("GET", f"/media/avatars/{name}")
        assert status == 200, name
        assert headers["Content-Type"] == content_type
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Content-Security-Policy"] == "default-src 'none'"
    status, _, _ = request("GET", "/media/avatars/missing.webp")
    assert status == 404


def test_a_body_over_the_cap_is_refused_by_nginx_before_any_daphne(layout):
    headers = {"Content-Type": "application/octet-stream"}
    status, _, body = request("POST", "/accounts/login/", headers=headers, body=b"x" * (7 * 1024 * 1024))
    assert status == 413 and b"nginx" in body
    # A 5 MB avatar upload is under the cap: Django answers it (here: no CSRF token).
    status, _, body = request("POST", "/accounts/login/", headers=headers, body=b"x" * (5 * 1024 * 1024))
    assert status in (400, 403) and b"nginx" not in body


def test_a_forged_x_forwarded_proto_is_replaced_by_nginx(layout, user_factory):
    alice = user_factory("alice")
    game = game_services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
    )
    forged = {
        "Cookie": f"sessionid={session_cookie(alice)}",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-For": "203.0.113.9",
    }

    def invite_link(**kwargs) -> str:
        status, _, page = request("GET", f"/play/{game.pk}/", headers=forged, **kwargs)
        assert status == 200
        return re.search(rb'id="invite-url"[^>]*value="([^"]+)"', page).group(1).decode()

    # Through nginx the request was plain HTTP, whatever the client claimed.
    assert invite_link() == f"{EXTERNAL_SITE}/join/{game.invite_token}/"
    # daphne and Django do trust the header from whoever reaches them, which is
    # why daphne listens where only nginx can connect.
    direct = invite_link(port=layout["daphne"][0]["port"])
    assert direct.startswith("https://")


def wait_for_new_daphne(port: int, old_pid: int, *, healthy: int, timeout: float = 30) -> int:
    """The check restarted daphne on ``port``: its new pid, once /healthz answers ``healthy``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        entry = next(d for d in read_layout()["daphne"] if d["port"] == port)
        if entry["pid"] != old_pid:
            try:
                if request("GET", "/healthz", port=port)[0] == healthy:
                    return entry["pid"]
            except OSError:
                pass
        time.sleep(0.3)
    raise AssertionError(f"daphne on {port} did not come back answering {healthy} in {timeout} s")


def test_a_daphne_that_lost_redis_gets_no_sockets_nginx_sends_them_to_the_other(layout, two_players):
    """One daphne pointed at a dead Redis: pages still answer, and nginx moves every socket on.

    Before, its handshakes failed with 500, and least_conn sent it every new socket
    (it never kept one open). Its 503 handshakes are now retried on the other daphne.
    """
    from launch.processes import free_port

    game_id, _, _ = two_players
    victim, other = layout["daphne"]
    drop_in = Path(layout["env_dir"]) / f"daphne-{victim['port']}.env"
    drop_in.write_text(f"REDIS_URL=redis://127.0.0.1:{free_port()}/0\n")  # nothing listens there
    restarted = victim["pid"]
    try:
        os.kill(victim["pid"], signal.SIGTERM)  # the check starts it again, with the drop-in
        restarted = wait_for_new_daphne(victim["port"], victim["pid"], healthy=503)
        time.sleep(6)  # nginx's mark on the restarted process (fail_timeout) runs out first

        async def spectators(count: int) -> list[str]:
            from websockets.asyncio.client import connect

            url = site_ws_url(f"/ws/game/{game_id}/")
            sockets = []
            try:
                for _ in range(count):
                    ws = await connect(url, origin=EXTERNAL_SITE, open_timeout=10)
                    sockets.append(ws)
                    await asyncio.sleep(0.2)  # nginx sees each one open before the next
                firsts = [json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] for ws in sockets]
                counts["victim"] = established_sockets(victim["port"])
                counts["other"] = established_sockets(other["port"])
                return firsts
            finally:
                for ws in sockets:
                    await ws.close()

        counts: dict[str, int] = {}
        pages = [request("GET", path)[0] for path in ("/", f"/play/{game_id}/", "/rankings/") * 2]
        firsts = asyncio.run(spectators(6))
        assert pages == [200] * 6, "every page answers, whichever daphne serves it"
        assert firsts == ["state"] * 6, "every socket opened, through nginx"
        assert counts["victim"] == 0 and counts["other"] >= 6, f"all on the healthy daphne: {counts}"
    finally:
        drop_in.unlink()
        os.kill(restarted, signal.SIGTERM)
        wait_for_restart(victim["port"], restarted)
        time.sleep(6)  # let nginx's marks run out before the next test


# --- daphne processes stopping mid-game (these run last) -----------------------------


def play_and_interrupt(game_id: int, alice: str, bob: str, interrupt) -> tuple[GameBot, GameBot, dict]:
    """Both players through nginx; ``interrupt(black, white)`` runs once the game is under way."""
    url = site_ws_url(f"/ws/game/{game_id}/")
    black = GameBot(url, cookie=alice, origin=EXTERNAL_SITE, think=lambda: 0.05)
    white = GameBot(url, cookie=bob, origin=EXTERNAL_SITE, think=lambda: 0.05)
    seen: dict = {}

    async def interrupt_mid_game():
        while not (black.snapshot and black.snapshot["ply"] >= 10 and white.snapshot):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)  # both sockets settled on their daphne
        seen["moves_before"] = list(black.snapshot["moves"])
        await interrupt(black, white, seen)

    async def play():
        await asyncio.gather(black.play(timeout=120), white.play(timeout=120), interrupt_mid_game())

    asyncio.run(play())
    return black, white, seen


def busiest_daphne(layout: dict) -> tuple[dict, dict, int]:
    """(the daphne holding a player's socket, the other one, its open sockets)."""
    first, second = layout["daphne"]
    a, b = established_sockets(first["port"]), established_sockets(second["port"])
    victim, other = (first, second) if a >= b else (second, first)
    return victim, other, max(a, b)


def assert_finished_with_every_move(
    game_id: int, black: GameBot, white: GameBot, moves_before: list[str]
) -> None:
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.end_reason in ("board_full", "no_moves")
    assert game.tokens[: len(moves_before)] == moves_before, "every move from before the stop is kept"
    assert list(Move.objects.filter(game=game).values_list("token", flat=True)) == game.tokens
    assert black.snapshot["moves"] == white.snapshot["moves"] == game.tokens
    assert not black.errors and not white.errors


def test_a_stopped_daphne_drains_and_its_players_continue_on_the_other(layout, celery_worker, two_players):
    """A release restarts daphne processes one by one with SIGTERM: nobody's game breaks."""
    import websockets
    from websockets.asyncio.client import connect

    game_id, alice, bob = two_players

    async def stop_one(black, white, seen):
        victim_, other_, sockets_ = busiest_daphne(read_layout())
        assert sockets_ >= 1, "a player's socket is open on one of the daphne processes"
        # A socket of our own straight to that process, to see the close code it gets.
        # Straight to daphne, its own address is the page's origin (config/origins.py).
        direct = f"127.0.0.1:{victim_['port']}"
        probe = await connect(f"ws://{direct}/ws/notify/", origin=f"http://{direct}")
        reconnects = black.reconnects + white.reconnects
        started = time.monotonic()
        os.kill(victim_["pid"], signal.SIGTERM)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(probe.recv(), 5)
        seen["close_code"] = closed.value.rcvd.code
        while not process_gone(victim_["pid"]):
            await asyncio.sleep(0.05)
        seen["stopped_after"] = time.monotonic() - started
        while black.reconnects + white.reconnects == reconnects:
            await asyncio.sleep(0.02)
        seen["victim"], seen["other"] = victim_, other_

    black, white, seen = play_and_interrupt(game_id, alice, bob, stop_one)
    assert seen["close_code"] == 1012, "service restart: reconnect now"
    assert seen["stopped_after"] < 5, "no socket kept it waiting for the whole drain deadline (10 s)"
    assert black.reconnects + white.reconnects >= 1
    assert_finished_with_every_move(game_id, black, white, seen["moves_before"])
    wait_for_the_worker(game_id)
    wait_for_restart(seen["victim"]["port"], seen["victim"]["pid"])


def test_a_daphne_killed_mid_game_its_players_reconnect_through_nginx_and_finish(
    layout, celery_worker, two_players
):
    """kill -9 of one daphne: its players come back through nginx on the other process."""
    game_id, alice, bob = two_players
    # nginx skips a daphne for fail_timeout (5 s) after a refused connection: let
    # any mark left by an earlier test's restart (the drain test) run out first,
    # or the surviving process could still be skipped when the other one dies.
    time.sleep(6)

    async def kill_one(black, white, seen):
        victim, other, sockets = busiest_daphne(read_layout())
        assert sockets >= 1, "a player's socket is open on one of the daphne processes"
        reconnects = black.reconnects + white.reconnects
        os.kill(victim["pid"], signal.SIGKILL)
        while black.reconnects + white.reconnects == reconnects:  # counted when the socket drops
            await asyncio.sleep(0.02)
        # Both players are back, on the other process, while the killed one is
        # still down (the check restarts it after a second, as systemd would, and
        # nginx skips it for 5 s after the refused connection).
        deadline = time.monotonic() + 4
        while True:
            seen["victim_sockets"] = established_sockets(victim["port"])
            seen["other_sockets"] = established_sockets(other["port"])
            if seen["other_sockets"] >= 2 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        seen["victim"] = victim

    black, white, seen = play_and_interrupt(game_id, alice, bob, kill_one)
    assert black.reconnects + white.reconnects >= 1
    assert seen["victim_sockets"] == 0 and seen["other_sockets"] >= 2, (
        f"both players on the surviving daphne: {seen}"
    )
    assert_finished_with_every_move(game_id, black, white, seen["moves_before"])
    wait_for_the_worker(game_id)
    wait_for_restart(seen["victim"]["port"], seen["victim"]["pid"])
    status, _, _ = request("GET", "/healthz")
    assert status == 200
