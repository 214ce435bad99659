"""The Play API's NDJSON streams: a player's events, and one game's (docs/api.md, "Streams").

Each stream is an async view's response (daphne serves ASGI): it joins the
channel-layer groups that announce changes, then reads what it sends from the
database, so what it says is always committed state, and a program that
reconnects gets everything again from the database (a game stream opens with
``gameFull``, all its moves included), losing nothing. The channel layer only
says *when* to read: a message it drops is made up for by the re-read every
heartbeat.

Between messages a stream:
- sends an empty line every ``API_STREAM_HEARTBEAT_SECONDS``, so that nginx and
  other proxies keep an idle stream open;
- ends when its token is revoked: at once when the revocation is announced to the
  token's group, else at the next check of the database (every
  ``API_STREAM_TOKEN_CHECK_SECONDS``: also a deactivated account, an admin's change).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.http import StreamingHttpResponse

from api import bots, playstate, tokens
from games.bus import game_group, stream_group
from games.models import Game

NDJSON = "application/x-ndjson"
Message = dict[str, Any]


def in_thread(func: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """A database read off the event loop, in a thread of its own (as the game sockets do)."""
    return sync_to_async(func, thread_sensitive=False)


def line(item: dict[str, Any]) -> str:
    return json.dumps(item, separators=(",", ":"), ensure_ascii=False) + "\n"


class Subscription:
    """The messages of some channel-layer groups, read by a task of its own into a queue."""

    def __init__(self, groups: list[str]) -> None:
        self.groups = groups
        self.queue: asyncio.Queue[Message] = asyncio.Queue()
        self.layer = get_channel_layer()
        self.channel = ""
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Subscription:
        self.channel = await self.layer.new_channel()
        for group in self.groups:
            await self.layer.group_add(group, self.channel)
        self.task = asyncio.create_task(self._pump())
        return self

    async def _pump(self) -> None:
        while True:
            self.queue.put_nowait(await self.layer.receive(self.channel))

    async def get(self, timeout: float) -> Message | None:
        try:
            return await asyncio.wait_for(self.queue.get(), timeout=max(0.0, timeout))
        except TimeoutError:
            return None

    async def __aexit__(self, *exc: object) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        for group in self.groups:
            with contextlib.suppress(Exception):  # the client went away; Redis may be gone too
                await self.layer.group_discard(group, self.channel)


class Stream(ABC):
    """One NDJSON stream: ``opening`` first, then what ``on_message`` and ``on_poll`` find, until ``done``.

    The three hooks are what each kind of stream (events, a game) says; ``lines`` is shared.
    """

    groups: list[str]
    done = False

    def __init__(self, token_id: int) -> None:
        self.token_id = token_id

    @abstractmethod
    async def opening(self) -> list[dict[str, Any]]:
        """The first lines: the state the client starts from."""

    @abstractmethod
    async def on_message(self, message: Message) -> list[dict[str, Any]]:
        """The lines a channel-layer message on one of ``groups`` brings."""

    @abstractmethod
    async def on_poll(self) -> list[dict[str, Any]]:
        """The heartbeat's re-read: what a lost channel-layer message would have announced."""

    async def lines(self) -> AsyncIterator[str]:
        heartbeat = settings.API_STREAM_HEARTBEAT_SECONDS
        check = settings.API_STREAM_TOKEN_CHECK_SECONDS
        # Listen first, then read: a change made while the opening is read arrives as a message.
        async with Subscription([*self.groups, tokens.token_group(self.token_id)]) as subscription:
            for item in await self.opening():
                yield line(item)
            last_sent = last_check = last_poll = time.monotonic()
            while not self.done:
                now = time.monotonic()
                wait = min(last_check + check, last_sent + heartbeat, last_poll + heartbeat) - now
                message = await subscription.get(wait)
                if message is not None and message.get("type") == "stream.revoked":
                    return
                now = time.monotonic()
                if now - last_check >= check:
                    if not await in_thread(tokens.is_live)(self.token_id):
                        return
                    last_check = now
                items: list[dict[str, Any]] = []
                if message is not None:
                    items += await self.on_message(message)
                if now - last_poll >= heartbeat:
                    items += await self.on_poll()
                    last_poll = now
                for item in items:
                    yield line(item)
                    last_sent = now
                if now - last_sent >= heartbeat:
                    yield "\n"
                    last_sent = now


def response(stream: Stream) -> StreamingHttpResponse:
    answer = StreamingHttpResponse(stream.lines(), content_type=NDJSON)
    answer["Cache-Control"] = "no-store"
    answer["X-Accel-Buffering"] = "no"  # nginx passes each line on at once (docs/deploy.md)
    return answer


# --- a player's events ----------------------------------------------------------------------------


class EventStream(Stream):
    """``GET /api/stream/event``: challenges (made, called off, declined) and games (started, finished).

    It keeps only the ids it has announced; every wake-up reads the player's open
    challenges and running games again and tells the differences.
    """

    def __init__(self, token_id: int, user_id: int) -> None:
        super().__init__(token_id)
        self.user_id = user_id
        self.groups = [stream_group(user_id)]
        self.challenges: set[int] = set()
        self.games: set[int] = set()

    async def opening(self) -> list[dict[str, Any]]:
        await in_thread(self._present)()
        return await in_thread(self._changes)()

    async def on_message(self, message: Message) -> list[dict[str, Any]]:
        return await in_thread(self._changes)()

    async def on_poll(self) -> list[dict[str, Any]]:
        await in_thread(self._present)()
        return await in_thread(self._changes)()

    async def lines(self) -> AsyncIterator[str]:
        try:
            async for item in super().lines():
                yield item
        finally:
            # Closed (or revoked): offline now; a stream whose process died expires instead.
            await in_thread(bots.mark_offline)(self.user_id)

    def _present(self) -> None:
        """A BOT with its event stream open is online on the Bots page (api/bots.py)."""
        bots.mark_online(self.user_id)

    def _changes(self) -> list[dict[str, Any]]:
        challenges = playstate.open_challenges(self.user_id)
        games = playstate.active_games(self.user_id)
        gone = [pk for pk in self.challenges | self.games if pk not in challenges and pk not in games]
        fates = playstate.fates(gone, self.user_id) if gone else {}
        out: list[dict[str, Any]] = []
        for pk in sorted(self.challenges - challenges.keys()):
            fate = fates.get(pk)
            if fate is None or fate["game"].status != Game.Status.ABORTED:
                continue  # it started: the gameStart below says so
            kind = "challengeDeclined" if fate["game"].end_reason == "declined" else "challengeCanceled"
            game = fate["game"]
            summary = playstate.challenge_json(game, self.user_id)
            summary["status"] = "declined" if kind == "challengeDeclined" else "canceled"
            out.append({"type": kind, "challenge": summary})
        for pk, challenge in challenges.items():
            if pk not in self.challenges:
                out.append({"type": "challenge", "challenge": challenge})
        for pk, summary in games.items():
            if pk not in self.games:
                out.append({"type": "gameStart", "game": summary})
        for pk in sorted(self.games - games.keys()):
            fate = fates.get(pk)
            if fate is not None:
                out.append({"type": "gameFinish", "game": fate["summary"]})
        self.challenges, self.games = set(challenges), set(games)
        return out


# --- one game -------------------------------------------------------------------------------------


class GameStream(Stream):
    """``GET /api/{bot|board}/game/stream/{id}``: ``gameFull``, then ``gameState`` at each change, and ``chatLine``.

    Ends after the state that says the game is over.
    """

    def __init__(self, token_id: int, user_id: int, game_id: int) -> None:
        super().__init__(token_id)
        self.user_id = user_id
        self.game_id = game_id
        self.groups = [game_group(game_id)]
        self.version = -1

    def _read(self) -> Game:
        return Game.objects.select_related("user0", "user1").get(pk=self.game_id)

    def _full(self) -> dict[str, Any]:
        game = self._read()
        self.version = game.version
        self.done = game.is_over
        return playstate.game_full(game, 0 if game.user_id_of(0) == self.user_id else 1)

    def _state_if_changed(self) -> list[dict[str, Any]]:
        game = Game.objects.get(pk=self.game_id)
        if game.version <= self.version:
            return []
        self.version = game.version
        self.done = game.is_over
        return [playstate.game_state(game)]

    async def opening(self) -> list[dict[str, Any]]:
        return [await in_thread(self._full)()]

    async def on_message(self, message: Message) -> list[dict[str, Any]]:
        kind = message.get("type")
        if kind == "game.event" and message.get("v", 0) > self.version:
            return await in_thread(self._state_if_changed)()
        if kind == "chat.line" and self._shows(message):
            return [playstate.chat_line(message)]
        return []

    def _shows(self, event: Message) -> bool:
        if event["muted"] and event["user"] != self.user_id:
            return False  # a muted author's lines reach nobody but the author
        return self.user_id not in event["hide_from"]  # the player blocked the author

    async def on_poll(self) -> list[dict[str, Any]]:
        return await in_thread(self._state_if_changed)()
