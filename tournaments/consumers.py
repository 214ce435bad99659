"""The tournament page's socket (/ws/tournament/<id>/, docs/protocol.md): live standings, and your next game.

It listens only: joining, leaving and pausing are forms (POST), checked in the
views. A participant's open socket also counts as "on the page"
(tournaments/presence.py), renewed every third of its lapse.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from channels.db import database_sync_to_async

from core.messages import Notify
from core.websocket import JsonConsumer
from tournaments import live, presence, selectors

CLOSE_NOT_FOUND = 4404


class TournamentConsumer(JsonConsumer):
    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.groups_joined: list[str] = []
        self.renewal: asyncio.Task | None = None
        # Listen first, then read: standings sent while the page reads are heard, never lost in between.
        await self._join(live.group(self.tournament_id))
        standings = await database_sync_to_async(live.standings_text, thread_sensitive=False)(
            self.tournament_id
        )
        if standings is None:
            await self.close(code=CLOSE_NOT_FOUND)  # before accept: the handshake is refused, as the game's
            return
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        if self.user_id is not None:
            from core.messages import user_group

            await self._join(user_group(self.user_id))  # "tournament_game": where your next game is
            await presence.arrive(self.tournament_id, self.user_id, self.channel_name)
            self.renewal = asyncio.get_running_loop().create_task(self._renew(self.user_id))
        await self.accept()
        await self.send(text_data=standings)
        if self.user_id is not None:
            # Paired while no page of theirs was open (the join's redirect, a reconnect): it is in the rows.
            game_id = await database_sync_to_async(selectors.game_in_play, thread_sensitive=False)(
                self.tournament_id, self.user_id
            )
            if game_id is not None:
                await self.send_json(live.game_message(self.tournament_id, game_id))

    async def _join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def _renew(self, user_id: int) -> None:
        while True:
            await asyncio.sleep(presence.TTL_SECONDS / 3)
            with contextlib.suppress(Exception):  # the next renewal tries again
                await presence.arrive(self.tournament_id, user_id, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if self.renewal is not None and self.user_id is not None:
            self.renewal.cancel()
            with contextlib.suppress(Exception):
                await presence.depart(self.tournament_id, self.user_id, self.channel_name)
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def tournament_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])  # encoded once for every page (live.send_standings)

    async def notify(self, event: Notify) -> None:
        """Of the player's notifications, only their next game of this tournament."""
        payload = event["payload"]
        if payload["type"] == "tournament_game" and payload["tournament"] == self.tournament_id:
            await self.send_json(payload)

    async def on_sync(self, message: dict[str, Any]) -> None:
        """The standings now (after a gap, or on demand): the last sent, which no change is newer than."""
        standings = await database_sync_to_async(live.standings_text, thread_sensitive=False)(
            self.tournament_id
        )
        if standings is not None:
            await self.send(text_data=standings)
