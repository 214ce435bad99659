"""The Watch page's feed, on the notification socket: the games in play and the TV, pushed as they change.

``WatchPart`` adds ``watch`` to the accounts' notification socket: games registers
it in ``accounts.hooks.notify_socket`` (games/apps.py), so accounts never imports
games and ``/ws/notify/`` keeps one consumer. A socket that sends ``{"type": "watch"}`` gets the list at once and again
whenever what it would show changes (docs/protocol.md, "Games to watch").

Why a refresh every ``GAMES_WATCH_SECONDS`` (2 s) in each daphne process that has
a Watch page open, rather than an event per move: a move event to every Watch
page would cost each of the 400 moves a second a second broadcast, and make every
open Watch page take them all, to show a ply number. Instead each such process
reads the games in play once per refresh (two queries, however many pages watch),
counts their spectators in one Redis round trip, and sends each socket its own
list (blocks differ) only when it changed. A process without a Watch page open
reads nothing. Games that start, move and end show within one refresh; the TV's
board follows its game over the game's own socket, move by move.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import translation

from accounts.consumers import NotificationConsumer
from accounts.services.blocks import related_by_blocks
from core.socket_parts import SocketPart
from core.websocket import compact_json
from games.live import spectators
from games.store import watchlist
from games.store.watchlist import Watchable

logger = logging.getLogger(__name__)


def payload(games: list[Watchable], blocked: set[int]) -> dict[str, Any]:
    """What one viewer is shown: the best ``SHOWN`` games, and the TV's game of each kind.

    In the active language: a correspondence game's clock reads "3 days" in the viewer's words.
    """
    mine = watchlist.for_viewer(games, blocked)
    tv = watchlist.featured(mine)
    return {
        "type": "watch",
        "games": [game.as_json() for game in mine[: watchlist.SHOWN]],
        "tv": {kind: None if game is None else game.as_json() for kind, game in tv.items()},
    }


def shown_ids(games: list[Watchable], blocked: set[int]) -> set[int]:
    mine = watchlist.for_viewer(games, blocked)
    ids = {game.id for game in mine[: watchlist.SHOWN]}
    return ids | {game.id for game in watchlist.featured(mine).values() if game is not None}


async def read(viewers: list[set[int]]) -> list[Watchable]:
    """The games in play with the spectator counts of those any of ``viewers`` is shown."""
    games = await database_sync_to_async(watchlist.games_in_play, thread_sensitive=False)()
    wanted: set[int] = set()
    for blocked in viewers:
        wanted |= shown_ids(games, blocked)
    counts = await spectators.counts(sorted(wanted))
    return watchlist.with_spectators(games, counts)


class Feed:
    """The Watch pages of this process on one event loop, refreshed together while any is open."""

    def __init__(self) -> None:
        self.sockets: set[WatchPart] = set()
        self.task: asyncio.Task | None = None
        self.games: list[Watchable] | None = None
        self.read_at = 0.0
        self._shared: dict[str, str] = {}  # by language

    async def join(self, socket: WatchPart) -> None:
        self.sockets.add(socket)
        if self.games is None or time.monotonic() - self.read_at > settings.GAMES_WATCH_SECONDS:
            await self.refresh(push=False)
        await socket.show(self.games or [], self.shared(socket.language))
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.run(), name="watch-feed")

    def leave(self, socket: WatchPart) -> None:
        self.sockets.discard(socket)
        if not self.sockets and self.task is not None:
            self.task.cancel()  # nobody watches here: read nothing until someone does
            self.task = None

    async def refresh(self, *, push: bool = True) -> None:
        self.games = await read([socket.blocked for socket in self.sockets])
        self.read_at = time.monotonic()
        self._shared = {}
        if push:
            for socket in list(self.sockets):
                await socket.show(self.games, self.shared(socket.language))

    def shared(self, language: str) -> str:
        """The message of every viewer with no block who reads ``language``, encoded once per refresh
        (most viewers have no block, and the page's languages are few)."""
        if language not in self._shared:
            with translation.override(language):
                self._shared[language] = compact_json(payload(self.games or [], set()))
        return self._shared[language]

    async def run(self) -> None:
        while self.sockets:
            await asyncio.sleep(settings.GAMES_WATCH_SECONDS)
            try:
                await self.refresh()
            except Exception:  # the database or Redis away for a moment: the next refresh tries again
                logger.warning("the watch feed could not refresh", exc_info=True)


_feeds: dict[asyncio.AbstractEventLoop, Feed] = {}


def feed() -> Feed:
    loop = asyncio.get_running_loop()
    if loop not in _feeds:
        _feeds.clear()  # one loop per daphne; tests run one loop each, and the old ones are gone
        _feeds[loop] = Feed()
    return _feeds[loop]


class WatchPart(SocketPart[NotificationConsumer]):
    """The Watch page's feed on one notification socket, for the pages that ask for it."""

    blocked: set[int] = set()
    watching = False
    last_sent = ""

    @property
    def language(self) -> str:
        return self.socket.language

    async def on_watch(self, message: dict[str, Any]) -> None:
        """Send the games to watch now and whenever they change, until the socket closes."""
        if self.watching:
            await self.show(feed().games or [], feed().shared(self.language), force=True)
            return
        self.watching = True
        self.blocked = await database_sync_to_async(related_by_blocks, thread_sensitive=False)(
            self.socket.scope.get("user")
        )
        await feed().join(self)

    async def closed(self) -> None:
        if self.watching:
            feed().leave(self)

    async def show(self, games: list[Watchable], shared: str, *, force: bool = False) -> None:
        """Send this viewer's list if it changed (``shared``: the list of a viewer with no block, in this
        socket's language; the feed's task pushes it, outside the socket's own handlers)."""
        if self.blocked:
            with translation.override(self.language):
                text = compact_json(payload(games, self.blocked))
        else:
            text = shared
        if text != self.last_sent or force:
            self.last_sent = text
            await self.socket.send(text_data=text)
