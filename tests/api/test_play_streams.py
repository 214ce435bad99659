"""The Play API over the real stack: a daphne process (ASGI, Redis channel layer) and PostgreSQL.

A BOT driven over HTTP (requests) plays a whole game against a person on the game
websocket (games/live/bot.py); challenges travel through the event streams; a game
stream that reconnects gets every move again; a revoked token ends an open stream.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from typing import Any

import pytest
import requests
from django.test import Client

from accounts.identity import Identity
from api import tokens
from games import services
from games.live.bot import GameBot
from games.models import Game

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def site(services, database_url_for_processes) -> str:
    # One daphne for the file's stories: a start costs seconds of CPU; each test's rows are flushed.
    # A short heartbeat, so that the test sees one on an idle stream without waiting long.
    _proc, port = services.start_daphne(
        database_url_for_processes, env={"API_STREAM_HEARTBEAT_SECONDS": "1", "API_RATE_PER_TOKEN": "10000"}
    )
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def bot(user_factory):
    user = user_factory("robo")
    user.is_bot = True
    user.save(update_fields=["is_bot"])
    return user


def secret(user, *scopes: str) -> str:
    return tokens.create_token(user=user, name="test", scopes=scopes).secret


class Reader:
    """An NDJSON stream read on a thread: each line (heartbeats as None) with the time it arrived."""

    def __init__(self, url: str, token: str) -> None:
        self.lines: queue.Queue[tuple[float, dict[str, Any] | None]] = queue.Queue()
        self.ended = threading.Event()
        self.ended_at = 0.0
        self.response = requests.get(
            url, headers={"Authorization": f"Bearer {token}"}, stream=True, timeout=30
        )
        assert self.response.status_code == 200, self.response.text
        assert self.response.headers["Content-Type"] == "application/x-ndjson"
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self.response.iter_lines(chunk_size=1):
                self.lines.put((time.monotonic(), json.loads(raw) if raw.strip() else None))
        except (requests.RequestException, AttributeError, ValueError):
            pass  # closed by the test (urllib3 then reads from a closed socket)
        self.ended_at = time.monotonic()
        self.ended.set()

    def next(self, kind: str | None = None, timeout: float = 20) -> dict[str, Any]:
        """The next message (of ``kind``), skipping heartbeats (and other kinds)."""
        deadline = time.monotonic() + timeout
        while True:
            _at, item = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if item is not None and (kind is None or item["type"] == kind):
                return item

    def close(self) -> None:
        self.response.close()


def post(site: str, path: str, token: str, **data: Any) -> requests.Response:
    return requests.post(site + path, data=data, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def test_challenges_travel_through_both_event_streams(site, alice, bot):
    person, robot = secret(alice, "challenge"), secret(bot, "bot:play")
    alice_events = Reader(f"{site}/api/stream/event", person)
    bot_events = Reader(f"{site}/api/stream/event", robot)
    try:
        made = post(site, "/api/challenge/robo", person, game="reversi", **{"clock.limit": 300})
        assert made.status_code == 200, made.text
        first = made.json()["id"]
        incoming = bot_events.next()
        assert incoming["type"] == "challenge"
        assert incoming["challenge"]["id"] == first
        assert incoming["challenge"]["direction"] == "in"
        assert incoming["challenge"]["challenger"]["name"] == "alice"
        assert incoming["challenge"]["destUser"]["title"] == "BOT"
        assert incoming["challenge"]["timeControl"]["label"] == "5+0"
        assert alice_events.next()["challenge"]["direction"] == "out"

        assert post(site, f"/api/challenge/{first}/decline", robot).status_code == 200
        declined = alice_events.next()
        assert (declined["type"], declined["challenge"]["id"]) == ("challengeDeclined", first)

        second = post(site, "/api/challenge/robo", person, game="ataxx", days=3).json()["id"]
        assert bot_events.next("challenge")["challenge"]["id"] == second
        assert post(site, f"/api/challenge/{second}/cancel", person).status_code == 200
        canceled = bot_events.next()
        assert (canceled["type"], canceled["challenge"]["id"]) == ("challengeCanceled", second)
        # Only the challenged can accept, only the challenger cancel: refused, and nothing changes.
        third = post(site, "/api/challenge/robo", person, game="reversi", **{"clock.limit": 60}).json()["id"]
        assert bot_events.next("challenge")["challenge"]["id"] == third
        refused = post(site, f"/api/challenge/{third}/accept", person)
        assert refused.status_code == 404 and "no challenge to you" in refused.json()["error"]
        assert Game.objects.get(pk=third).status == Game.Status.WAITING

        assert post(site, f"/api/challenge/{third}/accept", robot).status_code == 200
        for stream in (bot_events, alice_events):
            started = stream.next("gameStart")
            assert started["game"]["id"] == third
        assert Game.objects.get(pk=third).status == Game.Status.ACTIVE
        assert post(site, f"/api/bot/game/{third}/resign", robot).status_code == 200
        finished = alice_events.next("gameFinish")
        assert (finished["game"]["id"], finished["game"]["status"], finished["game"]["winner"]) == (
            third,
            "resign",
            finished["game"]["side"],
        )
    finally:
        alice_events.close()
        bot_events.close()


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def test_a_bot_over_http_plays_a_whole_game_against_a_person_on_the_websocket(site, alice, bot):
    robot = secret(bot, "bot:play")
    challenge = post(
        site, "/api/challenge/alice", robot, game="four_tac_toe", colour="first", **{"clock.limit": 300}
    )
    assert challenge.status_code == 200, challenge.text
    game_id = challenge.json()["id"]
    services.join_game(game_id=game_id, identity=Identity(user=alice, guest=None))  # the page's "Accept"
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE

    stream = Reader(f"{site}/api/bot/game/stream/{game_id}", robot)
    person = GameBot(
        f"ws://{site.removeprefix('http://')}/ws/game/{game_id}/",
        cookie=session_cookie(alice),
        origin=site,
    )
    person_thread = threading.Thread(target=lambda: asyncio.run(person.play(timeout=90)), daemon=True)
    person_thread.start()
    try:
        full = stream.next()
        assert full["type"] == "gameFull"
        assert (full["you"], full["players"][0]["title"], full["players"][1]["name"]) == (0, "BOT", "alice")
        assert full["clock"] == {"initial": 300_000, "increment": 0}
        states = [full["state"]]
        while states[-1]["status"] == "started":
            state = states[-1]
            if state["toMove"] == 0:
                moved = post(site, f"/api/bot/game/{game_id}/move/{state['legalMoves'][0]}", robot)
                assert moved.status_code == 200, moved.text
            states.append(stream.next("gameState", timeout=30))
        stream.ended.wait(10)
        assert stream.ended.is_set()  # the stream ends with the game
    finally:
        stream.close()
    person_thread.join(30)
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    # Every state extends the one before; the last has every move the database has, as the person saw.
    for before, after in zip(states, states[1:], strict=False):
        assert after["ply"] > before["ply"]
        assert after["moves"].startswith(before["moves"])
    assert states[-1]["moves"].split() == game.tokens
    assert person.snapshot["moves"] == game.tokens
    assert states[-1]["status"] == game.end_reason
    assert game.ply >= 7  # a real game: both sides moved several times (four in a row needs 7 plies)


def test_a_game_stream_that_reconnects_gets_every_move_again(site, alice, bob):
    board_a, board_b = secret(alice, "board:play"), secret(bob, "board:play")
    game_id = post(
        site, "/api/challenge/bob", board_a, game="reversi", colour="first", **{"clock.limit": 300}
    )
    game_id = game_id.json()["id"]
    assert post(site, f"/api/challenge/{game_id}/accept", board_b).status_code == 200
    first = Reader(f"{site}/api/board/game/stream/{game_id}", board_a)
    assert first.next()["type"] == "gameFull"
    played = []
    for n in range(4):
        token, mover = (board_a, first) if n % 2 == 0 else (board_b, None)
        legal = Game.objects.get(pk=game_id).engine.legal_moves(Game.objects.get(pk=game_id).engine_state())
        move = legal[0]
        assert post(site, f"/api/board/game/{game_id}/move/{move}", token).status_code == 200
        played.append(move)
        if n == 1:
            first.close()  # the program's connection drops after two moves; two more are played meanwhile
    again = Reader(f"{site}/api/board/game/stream/{game_id}", board_a)
    try:
        full = again.next()
        assert full["type"] == "gameFull"
        assert full["state"]["moves"].split() == played
        assert full["state"]["ply"] == 4
    finally:
        again.close()


def test_a_revoked_token_ends_its_open_stream_at_once_and_heartbeats_keep_it_alive(site, redis_layer, alice):
    token = tokens.create_token(user=alice, name="t", scopes=["challenge"])
    stream = Reader(f"{site}/api/stream/event", token.secret)
    # Idle: only heartbeats (empty lines) arrive, one a second here.
    at, item = stream.lines.get(timeout=10)
    assert item is None
    assert not stream.ended.is_set()
    settings_page = Client()
    settings_page.force_login(alice)
    settings_page.post(f"/settings/api-tokens/{token.token.pk}/revoke/")
    revoked_at = time.monotonic()  # committed once the page answers (measured after: not the page's own time)
    assert stream.ended.wait(10)
    # The design's bound is one second (a message at once, a database check every half second);
    # the margin is for this shared, busy test machine, not for the server.
    assert stream.ended_at - revoked_at < 2.0
    refused = requests.get(
        f"{site}/api/stream/event", headers={"Authorization": f"Bearer {token.secret}"}, timeout=10
    )
    assert refused.status_code == 401
