from __future__ import annotations

from django.urls import path

from accounts.routing import websocket_urlpatterns as accounts_ws
from chat.routing import websocket_urlpatterns as games_ws  # the game socket, with its chat
from games.live.watch import WatchSocket
from tournaments.routing import websocket_urlpatterns as tournaments_ws

# /ws/notify/ is the accounts' notification socket with the Watch page's feed added
# (games/live/watch.py): the first route that matches wins, so accounts never imports games.
websocket_urlpatterns = [path("ws/notify/", WatchSocket.as_asgi()), *accounts_ws, *games_ws, *tournaments_ws]
