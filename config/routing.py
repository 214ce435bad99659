from __future__ import annotations

from accounts.routing import websocket_urlpatterns as accounts_ws
from games.live.routing import websocket_urlpatterns as games_ws
from tournaments.routing import websocket_urlpatterns as tournaments_ws

# One consumer per path, each routed by the app that owns it; what other apps add
# to a socket is a part registered with it (core/socket_parts.py), not a second route.
websocket_urlpatterns = [*accounts_ws, *games_ws, *tournaments_ws]
