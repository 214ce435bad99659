"""The per-player notification socket: new messages, invitations, lobby changes.

Other apps add their commands through ``accounts.hooks.notify_socket`` (the Watch page's feed).
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.utils.translation import gettext as _

from accounts.hooks import notify_socket
from core.messages import LOBBY_GROUP, Notify, user_group
from core.websocket import JsonConsumer, SocketCode


class NotificationConsumer(JsonConsumer):
    parts = notify_socket

    async def connect(self) -> None:
        user = self.scope.get("user")
        self.groups_joined: list[str] = [LOBBY_GROUP]
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        if user is not None and user.is_authenticated:
            group = user_group(user.pk)
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.append(group)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            from accounts.signals import notify_socket_closed

            await database_sync_to_async(notify_socket_closed.send, thread_sensitive=False)(
                sender=NotificationConsumer, user_id=user.pk
            )

    async def notify(self, event: Notify) -> None:
        await self.send_json(event["payload"])

    async def on_watch_analysis(self, message: dict[str, Any]) -> None:
        """Hear the progress of a game's computer analysis (games/services/analysis.py); a few games at most."""
        game = message.get("game")
        if not isinstance(game, int) or isinstance(game, bool) or game <= 0:
            return
        group = f"analysis.{game}"
        if group in self.groups_joined or len(self.groups_joined) >= 6:
            return
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def worker_pong(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "worker_pong", "text": event["text"]})

    async def on_worker_ping(self, message: dict[str, Any]) -> None:
        """Round trip through a Celery worker, for staff checking a deployment.

        Staff only: every ping is a task, and no anonymous frame may create one.
        """
        from config.celery import ping_channel

        user = self.scope.get("user")
        if user is None or not user.is_staff:
            await self.send_error(SocketCode.FORBIDDEN, _("Only staff can ping the workers."), ref=message)
            return
        text = str(message.get("text", ""))[:64]
        await database_sync_to_async(ping_channel.delay, thread_sensitive=False)(self.channel_name, text)
