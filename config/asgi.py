"""HTTP and websockets in one ASGI application (served by daphne)."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (the consumers below).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from accounts.socket_identity import SocketIdentityMiddleware  # noqa: E402
from config import body_limit  # noqa: E402
from config.origins import ExactOriginValidator  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from config.unavailable import WebsocketUnavailableGuard  # noqa: E402
from games.live import presence  # noqa: E402

body_limit.install()


class PresenceHeartbeat:
    """Every websocket makes sure this process's presence heartbeat runs (games/live/presence.py).

    The heartbeat says the process is alive; without it, its players would look
    gone after PRESENCE_TTL_SECONDS. It starts with the first socket, on the loop.
    """

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        presence.ensure_heartbeat()
        return await self.inner(scope, receive, send)


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Browsers send cookies with cross-site websocket handshakes, so an Origin
        # that is not exactly one of ours (scheme, host and port), or none at all,
        # is refused before any consumer runs (config/origins.py).
        # A Redis out of reach refuses (503) or closes (4503) the socket, never a traceback.
        "websocket": ExactOriginValidator(
            WebsocketUnavailableGuard(
                PresenceHeartbeat(SocketIdentityMiddleware(URLRouter(websocket_urlpatterns)))
            )
        ),
    }
)
