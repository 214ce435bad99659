"""A daphne that cannot reach Redis answers pages, or a clear 503, and refuses sockets cleanly.

Before, one daphne that lost Redis answered game pages and socket handshakes with
500 tracebacks while /healthz said 503, and nginx kept sending players there.
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from accounts.identity import Identity
from config.unavailable import CLOSE_UNAVAILABLE, WebsocketUnavailableGuard
from games import services
from games import services as game_services
from games.models import Game
from launch.processes import free_port

pytestmark = [pytest.mark.django_db(transaction=True)]


def dead_redis_url() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there


def lose_redis(settings) -> None:
    """This process's sessions as production keeps them (cached_db), on a Redis that is now gone."""
    settings.CACHES = {
        **settings.CACHES,
        "sessions": {"BACKEND": "core.cache.SessionRedisCache", "LOCATION": dead_redis_url()},
    }
    settings.SESSION_CACHE_ALIAS = "sessions"
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"


def test_a_logged_in_player_s_pages_render_from_the_database_when_redis_is_gone(settings, user_factory):
    alice = user_factory("alice")
    client = Client()
    client.force_login(alice)
    lose_redis(settings)
    game = services.create_computer_game(
        identity=Identity(alice, None), game="reversi", level="easy", side=0, minutes=0
    )
    for path in ("/", game.get_absolute_url(), "/rankings/"):
        response = client.get(path)
        assert response.status_code == 200, path
    assert "alice" in client.get("/").content.decode(), "still logged in: the session came from the database"


def test_logging_out_without_redis_says_503_rather_than_leave_a_cached_session_to_come_back(
    settings, user_factory
):
    client = Client(raise_request_exception=False)
    client.force_login(user_factory("alice"))
    lose_redis(settings)
    response = client.post("/accounts/logout/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"


@pytest.mark.urls("tests.config.unavailable_urls")
def test_a_request_that_meets_an_unreachable_redis_gets_the_503_page_not_the_500_one():
    client = Client(raise_request_exception=False)
    response = client.get("/redis-gone/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "Temporarily unavailable" in response.content.decode()
    response = client.get("/bug/")
    assert response.status_code == 500, "a bug is still a bug"
    assert "Something went wrong on our side" in response.content.decode()


async def test_a_socket_open_when_redis_goes_is_closed_with_4503():
    async def consumer(scope, receive, send):
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:1.")

    ws = WebsocketCommunicator(WebsocketUnavailableGuard(consumer), "/ws/notify/")
    connected, _ = await ws.connect()
    assert connected
    assert await ws.receive_output() == {"type": "websocket.close", "code": CLOSE_UNAVAILABLE}


async def test_a_socket_that_meets_redis_gone_while_closing_is_not_closed_twice():
    async def consumer(scope, receive, send):
        await receive()
        await send({"type": "websocket.accept"})
        await receive()  # the client went away; recording its presence fails
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:1.")

    ws = WebsocketCommunicator(WebsocketUnavailableGuard(consumer), "/ws/notify/")
    assert (await ws.connect())[0]
    await ws.disconnect()
    assert await ws.receive_nothing()


async def test_other_errors_of_a_socket_are_left_to_daphne():
    async def consumer(scope, receive, send):
        raise ZeroDivisionError

    ws = WebsocketCommunicator(WebsocketUnavailableGuard(consumer), "/ws/notify/")
    with pytest.raises(ZeroDivisionError):
        await ws.connect()


def test_a_socket_whose_channel_layer_is_unreachable_is_refused_with_4503(settings):
    from channels.layers import channel_layers

    from config.asgi import application

    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.ProcessChannelLayer",
            "CONFIG": {"hosts": [dead_redis_url()], "prefix": "dead"},
        }
    }
    channel_layers.backends.clear()

    async def scenario():
        ws = WebsocketCommunicator(
            application, "/ws/notify/", headers=[(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
        )
        return await ws.connect(timeout=10)

    assert async_to_sync(scenario)() == (False, CLOSE_UNAVAILABLE)


# --- over a real daphne process ----------------------------------------------------------


def get(port: int, path: str, cookie: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if cookie:
        request.add_header("Cookie", f"sessionid={cookie}")
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.services
def test_a_real_daphne_pointed_at_a_dead_redis_serves_pages_and_refuses_sockets_with_503(
    services, database_url_for_processes, user_factory
):
    alice = user_factory("alice")
    game = game_services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
    )
    client = Client()
    client.force_login(alice)
    cookie = client.cookies["sessionid"].value
    proc, port = services.start_daphne(database_url_for_processes, env={"REDIS_URL": dead_redis_url()})
    own_log = services.logs[-1]  # this daphne's: the shared worker's log holds other tests' stories

    home, _ = get(port, "/")
    page, html = get(port, game.get_absolute_url(), cookie)
    health, _ = get(port, "/healthz")

    async def handshake() -> int:
        try:
            async with connect(
                f"ws://127.0.0.1:{port}/ws/game/{game.pk}/",
                origin=f"http://127.0.0.1:{port}",
                additional_headers={"Cookie": f"sessionid={cookie}"},
                open_timeout=10,
            ):
                return 101
        except InvalidStatus as refused:
            return refused.response.status_code

    socket_status = asyncio.run(handshake())
    log = own_log.read_text()
    assert home == 200 and page == 200, "pages that need no Redis render"
    assert "alice" in html, "her session was read from the database"
    assert health == 503, "and /healthz still tells the balancer"
    assert socket_status == 503, "the handshake is refused with a status nginx retries elsewhere"
    assert proc.poll() is None
    assert "Internal Server Error" not in log and "Traceback" not in log, log
