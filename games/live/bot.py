"""A scripted player over the game websocket (docs/protocol.md).

Used by the multi-process tests and by ``bench/ws_load.py``; also a starting
point for anyone writing a bot. It reconnects with backoff when the socket
drops, keeps only the newest snapshot (highest ``v``) and resends an unacked
move with the same id, which the server answers without applying it twice.
Like the page, it pings every ``PING_EVERY`` seconds with the version it shows
(a board left behind is sent the state), and takes the ``state`` the server
pushes when its channel layer lost Redis for a while.
It keeps reading while it thinks, as a page does, and can take part in the
chat on the same socket (``chat``, ``on_message``, ``ws``).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

Chooser = Callable[[dict[str, Any]], str]


# As the page (static/js/play/client.js, PING_EVERY_MS): a ping carries the version shown.
PING_EVERY = 25.0


def first_legal(snapshot: dict[str, Any]) -> str:
    return snapshot["position"]["legal_moves"][0]


class GameBot:
    def __init__(
        self,
        url: str,
        *,
        cookie: str | None = None,
        origin: str = "http://127.0.0.1",
        choose: Chooser = first_legal,
        think: Callable[[], float] = lambda: 0.0,
        connect_gate: asyncio.Semaphore | None = None,
        ack_timeout: float = 5.0,
        chat: bool = False,
        on_message: Callable[[dict[str, Any]], bool] | None = None,
        ping_every: float = PING_EVERY,
    ) -> None:
        self.connect_gate = connect_gate  # limits handshakes in flight (load tests)
        # As the browser does (config/static/js/play/client.js): a move not acknowledged
        # in this time is resent with a sync; waiting for the opponent never syncs.
        self.ack_timeout = ack_timeout
        self.ping_every = ping_every
        self.ping_due = 0.0  # monotonic: when the next ping goes (set when the socket opens)
        self.url = url
        self.cookie = cookie
        self.origin = origin
        self.choose = choose
        self.think = think
        # ``chat``: ask for the chat on every (re)connect, as the page does, so lines arrive here.
        # ``on_message``: sees every message first; True when it was the caller's (a chat line,
        # a chat refusal), which the bot then leaves alone.
        self.chat = chat
        self.on_message = on_message
        self.ws: ClientConnection | None = None  # the socket in use: a chat writer sends on it
        self.snapshot: dict[str, Any] | None = None
        self.side: int | None = None
        self.pending: dict[str, Any] | None = None  # the move sent and not yet acknowledged
        self.sent_at: float = 0.0
        # (when the move was sent, seconds until it was seen broadcast), perf_counter clock
        self.round_trips: list[tuple[float, float]] = []
        self.errors: list[dict[str, Any]] = []
        self.reconnects = 0
        self.moves_made = 0
        self.last_change = time.monotonic()  # when the game last changed, as seen here
        self.longest_wait = 0.0  # the longest time between two changes of the game seen here

    @property
    def finished(self) -> bool:
        return self.snapshot is not None and self.snapshot["status"] in ("finished", "aborted")

    def _patched(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """A move event's patch applied to the snapshot it was made for (docs/protocol.md)."""
        if self.snapshot is None or self.snapshot["v"] != message["base"]:
            return None
        patch = dict(message["patch"])
        added = patch.pop("added")
        return {**self.snapshot, **patch, "v": message["v"], "moves": [*self.snapshot["moves"], *added]}

    def _take(self, message: dict[str, Any]) -> bool:
        """Keep the newest snapshot; False when a gap means the state must be asked for."""
        game = self._patched(message) if "patch" in message else message.get("game")
        if game is None:
            return "patch" not in message or self.snapshot is None or message["v"] <= self.snapshot["v"]
        if self.snapshot is not None and game["v"] <= self.snapshot["v"]:
            return True
        if self.snapshot is None or game["ply"] != self.snapshot["ply"]:
            now = time.monotonic()
            if self.snapshot is not None:
                self.longest_wait = max(self.longest_wait, now - self.last_change)
            self.last_change = now
        self.snapshot = game
        if message.get("you") is not None:
            self.side = message["you"]
        if self.pending is not None and game["ply"] > self.pending["ply"]:
            if game["moves"][self.pending["ply"]] == self.pending["move"]:
                self.round_trips.append((self.sent_at, time.perf_counter() - self.sent_at))
            self.pending = None
        return True

    def _my_turn(self) -> dict[str, Any] | None:
        """The snapshot when this player is to move (and can), else None."""
        game = self.snapshot
        if (
            game is not None
            and game["status"] == "active"
            and self.side is not None
            and game["position"]["to_move"] == self.side
            and bool(game["position"]["legal_moves"])
        ):
            return game
        return None

    async def _connect(self) -> ClientConnection:
        from websockets.asyncio.client import connect
        from websockets.typing import Origin

        headers = {"Cookie": f"sessionid={self.cookie}"} if self.cookie else {}
        origin = Origin(self.origin)
        if self.connect_gate is None:
            return await connect(self.url, origin=origin, additional_headers=headers, open_timeout=10)
        async with self.connect_gate:
            return await connect(self.url, origin=origin, additional_headers=headers, open_timeout=10)

    async def _handle(self, ws: ClientConnection, raw: str | bytes) -> None:
        message = json.loads(raw)
        if self.on_message is not None and self.on_message(message):
            return
        if message["type"] == "error":
            self.errors.append(message)
            self.pending = None
            return
        if not self._take(message):
            await ws.send(json.dumps({"type": "sync"}))

    async def _ping(self, ws: ClientConnection) -> None:
        """As the page does: the version this board shows, so that a board left behind gets the state."""
        message: dict[str, Any] = {"type": "ping"}
        if self.snapshot is not None:
            message["v"] = self.snapshot["v"]
        self.ping_due = time.monotonic() + self.ping_every
        await ws.send(json.dumps(message))

    async def _recv(self, ws: ClientConnection, timeout: float) -> str | bytes:
        """The next frame within ``timeout`` (else ``TimeoutError``), pinging when a ping is due meanwhile."""
        due = time.monotonic() + timeout
        while True:
            if time.monotonic() >= self.ping_due:
                await self._ping(ws)
            try:
                return await asyncio.wait_for(ws.recv(), timeout=min(due, self.ping_due) - time.monotonic())
            except TimeoutError:
                if time.monotonic() >= due:
                    raise

    async def _thought(self, ws: ClientConnection, version: int) -> bool:
        """The thinking time, reading what arrives meanwhile; False if the game moved on."""
        due = time.monotonic() + self.think()
        while (left := due - time.monotonic()) > 0:
            try:
                raw = await self._recv(ws, left)
            except TimeoutError:
                break
            await self._handle(ws, raw)
            if self.snapshot is None or self.snapshot["v"] != version:
                return False
        return True

    async def play(self, *, max_moves: int | None = None, timeout: float = 120) -> dict[str, Any] | None:
        """Play until the game ends (or after ``max_moves`` of ours); returns the last snapshot.

        None only when ``max_moves`` was reached before the game was ever received.
        """
        deadline = time.monotonic() + timeout
        backoff = 0.2
        while time.monotonic() < deadline:
            from websockets.exceptions import WebSocketException

            try:
                ws = await self._connect()
            except (OSError, TimeoutError, WebSocketException):
                await asyncio.sleep(backoff * random.uniform(0.7, 1.3))
                backoff = min(backoff * 2, 3.0)
                self.reconnects += 1
                continue
            backoff = 0.2
            ack_wait = self.ack_timeout
            try:
                async with ws:
                    self.ws = ws
                    self.ping_due = time.monotonic() + self.ping_every
                    if self.chat:
                        await ws.send(json.dumps({"type": "chat_history"}))
                    if self.pending is not None:  # resend after a reconnect: applied at most once
                        await ws.send(json.dumps(self.pending))
                    while time.monotonic() < deadline:
                        if self.finished or (
                            max_moves is not None and self.moves_made >= max_moves and self.pending is None
                        ):
                            return self.snapshot
                        if (game := self._my_turn()) is not None and self.pending is None:
                            if not await self._thought(ws, game["v"]):
                                continue  # the game changed while thinking: look again
                            move = self.choose(game)
                            self.pending = {
                                "type": "move",
                                "move": move,
                                "ply": game["ply"],
                                "id": uuid.uuid4().hex[:12],
                            }
                            self.sent_at = time.perf_counter()
                            self.moves_made += 1
                            ack_wait = self.ack_timeout
                            await ws.send(json.dumps(self.pending))
                        try:
                            wait = max(0.05, deadline - time.monotonic())
                            if self.pending is not None:
                                wait = min(wait, ack_wait)
                            raw = await self._recv(ws, wait)
                        except TimeoutError:
                            if self.pending is not None:
                                await ws.send(json.dumps(self.pending))
                                await ws.send(json.dumps({"type": "sync"}))
                                # As the page does (config/static/js/play/client.js): an overloaded
                                # server gets slower for every resend it must answer.
                                ack_wait = min(2 * ack_wait, 4 * self.ack_timeout)
                            continue
                        await self._handle(ws, raw)
            except (OSError, WebSocketException):  # a dropped connection: reconnect and resync
                self.reconnects += 1
                await asyncio.sleep(backoff * random.uniform(0.7, 1.3))
        raise TimeoutError(
            f"game did not finish in {timeout} s; last snapshot v={self.snapshot and self.snapshot['v']}"
        )
