"""Each websocket path is served by one consumer; what another app adds to a socket is a part of it."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.routing import websocket_urlpatterns
from core.socket_parts import SocketPart, SocketParts
from core.websocket import JsonConsumer


def test_no_two_websocket_routes_share_a_path():
    # Channels' router takes the first match: a second route on a path would never be reached.
    paths = Counter(str(route.pattern) for route in websocket_urlpatterns)
    assert {path for path, count in paths.items() if count > 1} == set()
    assert {"ws/notify/", "ws/game/<int:game_id>/", "ws/tournament/<int:tournament_id>/"} <= set(paths)


def test_the_game_socket_answers_the_chat_and_the_notification_socket_the_watch_page():
    consumers = {str(route.pattern): route.callback.consumer_class for route in websocket_urlpatterns}
    game, notify = consumers["ws/game/<int:game_id>/"], consumers["ws/notify/"]
    assert game.__module__ == "games.live.consumers" and notify.__module__ == "accounts.consumers"
    assert {"chat", "chat_history", "chat_report", "chat_settings"} <= set(game.parts.commands)
    assert {"chat_line", "chat_hidden"} <= set(game.parts.events)
    assert "watch" in notify.parts.commands


def test_an_app_cannot_take_over_a_command_the_socket_or_another_part_answers():
    parts = SocketParts("a test socket")

    class Socket(JsonConsumer):
        pass

    Socket.parts = parts
    parts.bind(Socket)

    class Greeting(SocketPart[Any]):
        async def on_hello(self, message: dict[str, Any]) -> None: ...

    class Pong(SocketPart[Any]):
        async def on_ping(self, message: dict[str, Any]) -> None: ...

    class SecondGreeting(SocketPart[Any]):
        async def on_hello(self, message: dict[str, Any]) -> None: ...

    parts.register(Greeting)
    parts.register(Greeting)  # an app's ready() run again changes nothing
    with pytest.raises(ImproperlyConfigured, match="on_ping"):
        parts.register(Pong)  # the socket's own
    with pytest.raises(ImproperlyConfigured, match="on_hello"):
        parts.register(SecondGreeting)
    assert parts.commands == {"hello": Greeting}
