"""What other apps may add to accounts' notification socket (``/ws/notify/``), from their ``AppConfig.ready()``.

Every page opens this one socket (config/static/js/notify.js). Another app that
needs a page's live feed adds a part to it here rather than routing a second
consumer on the same path: games registers the Watch page's feed
(games.live.watch.WatchPart). core/socket_parts.py says what a part is.
"""

from __future__ import annotations

from typing import Any

from core.socket_parts import SocketPart, SocketParts

# accounts.consumers.NotificationConsumer declares these as its parts.
notify_socket = SocketParts("the notification socket")


def register_notify_socket_part(part: type[SocketPart[Any]]) -> None:
    """Commands and group events another app answers on the notification socket."""
    notify_socket.register(part)
