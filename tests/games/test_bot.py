"""The scripted player (games/live/bot.py) against a socket that stays open and silent, as the page is.

The server here is a bare websocket that plays the game socket's part (docs/protocol.md): no
Django, so what is checked is only what the bot itself sends and takes.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from websockets.asyncio.server import ServerConnection, serve

from games.live.bot import PING_EVERY, GameBot


def game(v: int, *, status: str = "active", to_move: int = 1) -> dict[str, Any]:
    return {
        "v": v,
        "ply": v - 1,
        "status": status,
        "moves": ["d3"] * (v - 1),
        "position": {"to_move": to_move, "legal_moves": ["c5"]},
    }


def test_the_bot_pings_as_often_as_the_page():
    client = (Path(settings.BASE_DIR) / "config/static/js/play/client.js").read_text()
    assert f"const PING_EVERY_MS = {int(PING_EVERY * 1000)};" in client


async def test_a_bot_whose_board_missed_a_move_pings_with_its_version_and_takes_the_newer_state():
    pings: list[dict[str, Any]] = []

    async def server(ws: ServerConnection) -> None:
        # The bot plays side 0 and waits for the opponent; the opponent's move (v2, which ends
        # the game) is never announced to it. Only a ping that shows v1 is answered with v2.
        await ws.send(json.dumps({"type": "state", "v": 1, "you": 0, "game": game(1)}))
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "ping":
                pings.append(message)
                answer = {"type": "state", "v": 2, "you": 0, "game": game(2, status="finished")}
                await ws.send(json.dumps(answer if message.get("v") == 1 else {"type": "pong"}))

    async with serve(server, "127.0.0.1", 0) as listening:
        port = listening.sockets[0].getsockname()[1]
        bot = GameBot(f"ws://127.0.0.1:{port}/ws/game/1/", ping_every=0.3)
        started = time.monotonic()
        last = await asyncio.wait_for(bot.play(timeout=30), 30)
        took = time.monotonic() - started
    assert pings and pings[0] == {"type": "ping", "v": 1}
    assert last is not None and last["v"] == 2 and last["status"] == "finished"
    assert took >= 0.3  # it waited for its ping: nothing else told it
    assert bot.moves_made == 0 and not bot.errors and bot.reconnects == 0
