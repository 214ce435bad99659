"""The chat over the game socket: who receives which line, and what a refusal looks like.

Every test runs on both move paths (the ``move_path`` fixture): on ``[fast]`` a line is stored by the
on-loop statement (``services.post_line_on_loop``), on ``[locked]`` by ``post_line`` in a database thread.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session

from accounts.models import Preferences
from accounts.services import blocks
from chat import services
from chat.models import ChatLine, ChatReport
from config.asgi import application
from tests.chat.conftest import finish_games

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("move_path")]


def socket(game_id: int, cookie: str | None, *, language: str | None = None) -> WebsocketCommunicator:
    cookies = [f"sessionid={cookie}"] if cookie else []
    if language:
        cookies.append(f"django_language={language}")
    headers = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    if cookies:
        headers.append((b"cookie", "; ".join(cookies).encode()))
    return WebsocketCommunicator(application, f"/ws/game/{game_id}/", headers=headers)


async def next_of(ws, *types: str, timeout: float = 5) -> dict:
    while True:
        message = await ws.receive_json_from(timeout=timeout)
        if message["type"] in types:
            return message
        # A spectator's socket may open or close mid-story: its count is no part of it.
        assert message["type"] in ("presence", "event", "state", "chat", "watchers"), message


async def chatting(game_id: int, cookie: str | None, **kwargs) -> tuple[WebsocketCommunicator, dict]:
    """A page's socket: opened, and asking for the chat as the page does."""
    ws = socket(game_id, cookie, **kwargs)
    connected, _ = await ws.connect()
    assert connected
    await next_of(ws, "state")
    await ws.send_json_to({"type": "chat_history"})
    return ws, await next_of(ws, "chat_history")


@pytest.fixture
def table(human_game, player_factory):
    """alice and bob play, carol watches; all past their first three games. Returns ids and cookies."""

    def make():
        game_id, (alice, alice_cookie), (bob, bob_cookie) = human_game()
        carol, carol_cookie = player_factory("carol")
        finish_games(alice.user, bob.user)
        finish_games(carol.user, bob.user)
        return game_id, {
            "alice": (alice, alice_cookie),
            "bob": (bob, bob_cookie),
            "carol": (carol, carol_cookie),
        }

    return database_sync_to_async(make)


async def close(*sockets: WebsocketCommunicator) -> None:
    for ws in sockets:
        await ws.disconnect()


async def test_a_players_line_reaches_both_players_and_the_spectators_live(table, move_path):
    game_id, people = await table()
    a, history = await chatting(game_id, people["alice"][1])
    assert history["enabled"] is True and history["room"] == "players" and history["presets_only"] is False
    assert history["lines"] == [] and history["max_length"] == 140
    b, _ = await chatting(game_id, people["bob"][1])
    c, spectator = await chatting(game_id, people["carol"][1])
    assert spectator["room"] == "spectators"
    await a.send_json_to({"type": "chat", "text": "<b>gl</b> https://example.com"})
    for ws, mine in ((a, True), (b, False), (c, False)):
        line = (await next_of(ws, "chat"))["line"]
        # Stored and sent as typed: the page shows it as text.
        assert line["text"] == "<b>gl</b> https://example.com"
        assert (line["name"], line["room"], line["side"], line["mine"]) == ("alice", "players", 0, mine)
    # A page opened later gets it in its history.
    late, history = await chatting(game_id, people["bob"][1])
    assert [line["text"] for line in history["lines"]] == ["<b>gl</b> https://example.com"]
    assert move_path.loop_lines == move_path.on_fast(["<b>gl</b> https://example.com"])
    await close(a, b, c, late)


async def test_a_socket_that_never_asks_for_the_chat_receives_no_lines(table):
    game_id, people = await table()
    quiet = socket(game_id, people["bob"][1])
    await quiet.connect()
    await next_of(quiet, "state")
    a, _ = await chatting(game_id, people["alice"][1])
    await a.send_json_to({"type": "chat", "preset": "hello"})
    await next_of(a, "chat")
    await quiet.send_json_to({"type": "ping"})
    assert (await next_of(quiet, "pong", "chat"))["type"] == "pong"
    assert await quiet.receive_nothing(timeout=0.3)
    await close(quiet, a)


async def test_players_see_the_spectators_room_only_once_they_ask_and_it_is_remembered(table):
    game_id, people = await table()
    b, _ = await chatting(game_id, people["bob"][1])
    c, _ = await chatting(game_id, people["carol"][1])
    a, _ = await chatting(game_id, people["alice"][1])
    await c.send_json_to({"type": "chat", "text": "spectator says hi"})
    assert (await next_of(c, "chat"))["line"]["room"] == "spectators"
    await a.send_json_to({"type": "chat", "text": "player line"})
    assert (await next_of(b, "chat"))["line"]["text"] == "player line"  # the spectator's was not sent to bob
    await b.send_json_to({"type": "chat_settings", "show_spectators": True})
    history = await next_of(b, "chat_history")
    assert history["show_spectators"] is True
    assert [line["text"] for line in history["lines"]] == ["spectator says hi", "player line"]
    await c.send_json_to({"type": "chat", "text": "second"})
    assert (await next_of(b, "chat"))["line"]["text"] == "second"
    assert await database_sync_to_async(
        lambda: Preferences.objects.get(user=people["bob"][0].user).chat_spectators
    )()
    await close(a, b, c)


async def test_the_blocker_does_not_receive_the_blocked_players_lines(table):
    game_id, people = await table()
    alice, bob = people["alice"][0].user, people["bob"][0].user
    await database_sync_to_async(blocks.block)(by=bob, user=alice)
    a, _ = await chatting(game_id, people["alice"][1])
    b, _ = await chatting(game_id, people["bob"][1])
    c, _ = await chatting(game_id, people["carol"][1])
    await a.send_json_to({"type": "chat", "text": "from alice"})
    assert (await next_of(c, "chat"))["line"]["text"] == "from alice"
    await b.send_json_to({"type": "chat", "text": "from bob"})
    # bob's next line is his own: alice's was never sent to him.
    assert (await next_of(b, "chat"))["line"]["text"] == "from bob"
    assert (await next_of(a, "chat"))["line"]["text"] == "from alice"
    assert (await next_of(a, "chat"))["line"]["text"] == "from bob"
    _, history = await chatting(game_id, people["bob"][1])
    assert [line["text"] for line in history["lines"]] == ["from bob"]
    await close(a, b, c)


async def test_a_muted_players_line_is_echoed_to_them_alone(table):
    game_id, people = await table()
    await database_sync_to_async(services.mute_user)(
        user_id=people["alice"][0].user.pk, duration=timedelta(hours=1)
    )
    a, _ = await chatting(game_id, people["alice"][1])
    b, _ = await chatting(game_id, people["bob"][1])
    await a.send_json_to({"type": "chat", "text": "nobody hears this"})
    line = (await next_of(a, "chat"))["line"]
    assert line["text"] == "nobody hears this" and line["mine"] is True
    await b.send_json_to({"type": "chat", "preset": "thanks"})
    assert (await next_of(b, "chat"))["line"]["preset"] == "thanks"  # and not alice's line before it
    await close(a, b)


async def test_with_the_chat_switched_off_a_player_gets_no_lines_and_cannot_post(table):
    game_id, people = await table()
    await database_sync_to_async(Preferences.objects.create)(user=people["bob"][0].user, chat=False)
    b, history = await chatting(game_id, people["bob"][1])
    assert history["enabled"] is False and history["lines"] == []
    a, _ = await chatting(game_id, people["alice"][1])
    await a.send_json_to({"type": "chat", "text": "hello?"})
    await next_of(a, "chat")
    await b.send_json_to({"type": "chat", "text": "me too"})
    error = await next_of(b, "error", "chat")
    assert error["type"] == "error" and error["code"] == "chat_off"
    await close(a, b)


async def test_each_reader_sees_a_preset_in_their_own_language(table):
    game_id, people = await table()
    a, _ = await chatting(game_id, people["alice"][1])
    b, _ = await chatting(game_id, people["bob"][1], language="el")
    await a.send_json_to({"type": "chat", "preset": "good_game"})
    assert (await next_of(a, "chat"))["line"]["text"] == "Good game"
    greek = (await next_of(b, "chat"))["line"]
    assert greek["text"] != "Good game" and greek["preset"] == "good_game" and greek["text"]
    await close(a, b)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "chat"}, "chat_invalid"),
        ({"type": "chat", "text": 5}, "chat_invalid"),
        ({"type": "chat", "text": "x", "preset": "hello"}, "chat_invalid"),
        ({"type": "chat", "text": "x" * 141}, "chat_invalid"),
        ({"type": "chat", "preset": "nonsense"}, "chat_invalid"),
        ({"type": "chat_report", "line": "1"}, "chat_invalid"),
        ({"type": "chat_report", "line": 999999}, "chat_not_found"),
        ({"type": "chat_settings", "show_spectators": "yes"}, "chat_invalid"),
    ],
)
async def test_a_bad_chat_frame_is_refused_to_the_sender_and_stores_nothing(table, message, code):
    game_id, people = await table()
    a, _ = await chatting(game_id, people["alice"][1])
    await a.send_json_to({**message, "id": "c1"})
    error = await next_of(a, "error")
    assert (error["code"], error["id"]) == (code, "c1") and error["message"]
    assert await database_sync_to_async(ChatLine.objects.count)() == 0
    await close(a)


async def test_a_guest_spectator_sends_presets_only(table, guest_factory):
    game_id, people = await table()
    _, cookie = await database_sync_to_async(guest_factory)("Guest 1234")
    g, history = await chatting(game_id, cookie)
    assert history["presets_only"] is True and history["room"] == "spectators"
    await g.send_json_to({"type": "chat", "text": "hello all"})
    assert (await next_of(g, "error"))["code"] == "chat_presets_only"
    await g.send_json_to({"type": "chat", "preset": "hello"})
    line = (await next_of(g, "chat"))["line"]
    assert (line["name"], line["guest"], line["text"], line["mine"]) == ("Guest 1234", True, "Hello", True)
    await close(g)


async def test_the_sixth_line_in_ten_seconds_is_refused_even_from_another_socket(table):
    game_id, people = await table()
    first, _ = await chatting(game_id, people["alice"][1])
    second, _ = await chatting(game_id, people["alice"][1])
    for n in range(5):
        await (first if n % 2 else second).send_json_to({"type": "chat", "text": f"line {n}"})
        await next_of(first, "chat")
    await second.send_json_to({"type": "chat", "text": "one too many"})
    assert (await next_of(second, "error"))["code"] == "chat_rate_limited"
    await close(first, second)


async def test_a_reported_and_hidden_line_disappears_from_open_pages(table):
    game_id, people = await table()
    a, _ = await chatting(game_id, people["alice"][1])
    b, _ = await chatting(game_id, people["bob"][1])
    await a.send_json_to({"type": "chat", "text": "rude words"})
    line = (await next_of(b, "chat"))["line"]
    await b.send_json_to({"type": "chat_report", "line": line["id"], "reason": "rude", "id": 7})
    assert await next_of(b, "chat_reported") == {"type": "chat_reported", "line": line["id"], "id": 7}
    report = await database_sync_to_async(ChatReport.objects.get)()
    assert (report.line_id, report.reason) == (line["id"], "rude")
    await database_sync_to_async(services.hide_line)(line_id=line["id"])
    for ws in (a, b):
        assert await next_of(ws, "chat_hidden") == {"type": "chat_hidden", "id": line["id"]}
    await close(a, b)


async def test_a_visitor_who_has_not_acted_reads_the_chat_but_cannot_write(table):
    game_id, people = await table()
    a, _ = await chatting(game_id, people["alice"][1])
    visitor, history = await chatting(game_id, None)
    assert (history["can_write"], history["can_report"], history["room"]) == (False, False, "spectators")
    await a.send_json_to({"type": "chat", "text": "visible to all"})
    assert (await next_of(visitor, "chat"))["line"]["text"] == "visible to all"
    await visitor.send_json_to({"type": "chat", "preset": "hello"})
    assert (await next_of(visitor, "error"))["code"] == "chat_no_identity"
    assert await database_sync_to_async(ChatLine.objects.count)() == 1
    # Nor does the visitor get a session by ticking a box over the socket.
    sessions = await database_sync_to_async(Session.objects.count)()
    await visitor.send_json_to({"type": "chat_settings", "show_spectators": True})
    assert (await next_of(visitor, "error"))["code"] == "chat_no_identity"
    assert await database_sync_to_async(Session.objects.count)() == sessions
    await close(a, visitor)
