"""The lobby over a real daphne: quick games with increments and casual, and the open challenges kept live."""

from __future__ import annotations

import asyncio
import json
import secrets
import string
import urllib.parse
import urllib.request

import pytest

from accounts.identity import Identity
from games import services
from games.models import Game
from tests.config.test_real_sockets import daphne_port, first, open_socket, session_cookie

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

__all__ = ["daphne_port"]  # the fixture, shared with the other real-socket tests


def over_http(
    port: int, path: str, cookie: str | None = None, fields: dict | None = None
) -> tuple[int, dict]:
    """GET (or POST ``fields``, with a CSRF token as the page sends it) to the running server: (status, JSON)."""
    csrf = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
    headers = {"Cookie": f"csrftoken={csrf}" + (f"; sessionid={cookie}" if cookie else "")}
    data = None
    if fields is not None:
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": csrf}).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_a_casual_seeker_and_a_rated_one_pressing_5_3_hear_paired_into_a_casual_5_3_game(
    daphne_port, redis_layer, user_factory
):
    alice, bob = user_factory("alice"), user_factory("bob")
    cookies = session_cookie(alice), session_cookie(bob)

    async def scenario():
        async with (
            open_socket(daphne_port, "/ws/notify/", cookies[0]) as alice_ws,
            open_socket(daphne_port, "/ws/notify/", cookies[1]) as bob_ws,
        ):
            button = {"game": "reversi", "minutes": "5", "increment": "3"}
            waiting = await asyncio.to_thread(
                over_http, daphne_port, "/quick/seek/", cookies[0], {**button, "casual": "1"}
            )
            paired = await asyncio.to_thread(over_http, daphne_port, "/quick/seek/", cookies[1], button)
            to_alice, to_bob = await first(alice_ws, "paired"), await first(bob_ws, "paired")
            async with open_socket(
                daphne_port, to_alice["url"].replace("/play/", "/ws/game/"), cookies[0]
            ) as game:
                state = await first(game, "state")
            return waiting, paired, to_alice, to_bob, state

    waiting, paired, to_alice, to_bob, state = asyncio.run(scenario())
    game = Game.objects.get()
    assert waiting == (200, {"status": "waiting"})
    assert paired == (200, {"status": "paired", "url": f"/play/{game.pk}/"})
    assert to_alice["url"] == to_bob["url"] == f"/play/{game.pk}/"
    assert state["game"]["casual"] is True and state["you"] == 0  # alice waited longer
    assert (state["game"]["clock"]["initial_ms"], state["game"]["clock"]["increment_ms"]) == (300_000, 3_000)


def test_a_button_that_is_not_a_pool_is_refused_over_http_and_nobody_waits(daphne_port, user_factory):
    alice = user_factory("alice")
    status, answer = over_http(
        daphne_port,
        "/quick/seek/",
        session_cookie(alice),
        {"game": "reversi", "minutes": "5", "increment": "7"},
    )
    assert status == 400 and answer["error"] == "bad_time"
    assert over_http(daphne_port, "/quick/cancel/", session_cookie(alice), {}) == (
        200,
        {"status": "cancelled"},
    )


def test_an_open_lobby_page_hears_each_change_and_its_filtered_list_follows(
    daphne_port, redis_layer, user_factory
):
    alice, bob = user_factory("alice"), user_factory("bob")
    casual_ataxx = {"game": "ataxx", "mode": "casual"}

    async def scenario():
        # A visitor's home page: no account, the lobby's notification socket all the same.
        async with open_socket(daphne_port, "/ws/notify/") as page:
            posted = await asyncio.to_thread(
                services.create_human_game,
                identity=Identity(alice, None),
                game="ataxx",
                kind=Game.Kind.LOBBY,
                minutes=10,
                increment=5,
                casual=True,
            )
            await first(page, "lobby")
            query = urllib.parse.urlencode(casual_ataxx)
            shown = await asyncio.to_thread(over_http, daphne_port, f"/lobby.json?{query}")
            other = await asyncio.to_thread(over_http, daphne_port, "/lobby.json?mode=rated")
            await asyncio.to_thread(services.join_game, game_id=posted.pk, identity=Identity(bob, None))
            await first(page, "lobby")
            after = await asyncio.to_thread(over_http, daphne_port, f"/lobby.json?{query}")
            return posted, shown, other, after

    posted, shown, other, after = asyncio.run(scenario())
    (row,) = shown[1]["challenges"]
    assert (row["id"], row["by"], row["clock"], row["speed"], row["casual"]) == (
        posted.pk,
        "alice",
        "10+5",
        "rapid",
        True,
    )
    assert other[1]["challenges"] == [] and after[1]["challenges"] == []
