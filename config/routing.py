from __future__ import annotations

from accounts.routing import websocket_urlpatterns as accounts_ws
from chat.routing import websocket_urlpatterns as games_ws  # the game socket, with its chat
from tournaments.routing import websocket_urlpatterns as tournaments_ws

websocket_urlpatterns = [*accounts_ws, *games_ws, *tournaments_ws]
