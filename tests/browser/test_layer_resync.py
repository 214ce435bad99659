"""A board that missed a move while the server had lost Redis shows it once Redis is back (issue #38, 4).

The page's socket stays open through a Redis restart (it talks to daphne, not to Redis), and
what the channel layer carried meanwhile is lost. Here the move's event is dropped on its way to
bob's page, and daphne's subscription to Redis is cut as a restart cuts it: once daphne has
subscribed again it sends every game socket the state, without waiting for the page's ping (25 s).
"""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlsplit

import psutil
import pytest
from redis import Redis

from accounts.identity import Identity
from games import services as play
from games.models import Game
from tests.browser.pages import READY, in_thread, snapshot
from tests.processes import DAPHNES, EXTERNAL_SITE

pytestmark = [
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(bool(EXTERNAL_SITE), reason="cuts the connections of a daphne the suite started"),
]


def test_a_board_that_missed_a_move_while_redis_was_away_shows_it_once_the_server_is_back(
    new_context, login_session, user_factory, services
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = in_thread(services_create_human_game, alice=alice, bob=bob)
    page = new_context(session_cookie=login_session(bob)).new_page()
    lost: list[int] = []

    def between_server_and_page(ws) -> None:
        server = ws.connect_to_server()

        def from_server(message) -> None:
            frame = json.loads(message) if isinstance(message, str) else {}
            if frame.get("type") == "event" and frame.get("event") == "move":
                lost.append(frame["v"])
                return  # published while nobody listened: it never arrives
            ws.send(message)

        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/game/\d+/"), between_server_and_page)
    page.goto(game.get_absolute_url())
    page.wait_for_function(READY)
    in_thread(
        play.play_move, game_id=game.pk, identity=Identity(alice, None), token="d3", ply=0, client_id="a1"
    )
    deadline = time.monotonic() + 30
    while not lost:
        assert time.monotonic() < deadline, "the move's event never reached the page's socket"
        page.wait_for_timeout(100)
    assert snapshot(page)["ply"] == 0, "bob's board waits for a move it never heard of"

    # Redis drops daphne's subscribing connection, as when it restarts.
    assert cut_subscriptions(services.ensure_redis(), page.url) == 1
    cut_at = time.monotonic()
    page.wait_for_function("() => window.__game.snapshot.ply === 1", timeout=15_000)
    # Well before the page's ping (every 25 s) would have asked: pushed by the server.
    assert time.monotonic() - cut_at < 15
    shown = snapshot(page)
    assert shown["moves"] == ["d3"] and shown["position"]["to_move"] == 1


def services_create_human_game(*, alice, bob) -> Game:
    game = play.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    play.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    return game


def cut_subscriptions(redis_url: str, site_url: str) -> int:
    """Close the pub/sub connections of the daphne serving ``site_url``, and only those (the
    Redis may serve others: CLIENT KILL TYPE pubsub would cut them all). How many were closed."""
    site_port, redis_port = urlsplit(site_url).port, urlsplit(redis_url).port or 6379
    daphne = next(
        process
        for proc in DAPHNES
        if proc.poll() is None
        for process in [psutil.Process(proc.pid)]
        if any(
            c.status == psutil.CONN_LISTEN and c.laddr.port == site_port for c in process.net_connections()
        )
    )
    to_redis = {
        f"{c.laddr.ip}:{c.laddr.port}"
        for c in daphne.net_connections()
        if c.raddr and c.raddr.port == redis_port
    }
    redis = Redis.from_url(redis_url, decode_responses=True)
    try:
        cut = [c["id"] for c in redis.client_list(_type="pubsub") if c["addr"] in to_redis]
        for client_id in cut:
            redis.client_kill_filter(_id=client_id)
    finally:
        redis.close()
    return len(cut)
