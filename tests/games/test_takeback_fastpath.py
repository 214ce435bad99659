"""A move on the fast path (PostgreSQL) lapses a takeback request exactly as the locked path does."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Game
from tests.games.test_consumers import next_of, open_socket
from tests.games.test_live import locked_path_calls  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.django_db(transaction=True),
]


async def test_a_fast_path_move_lapses_a_pending_takeback_request(
    human_game,
    locked_path_calls,  # noqa: F811
):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    await next_of(a, "ack")
    await a.send_json_to({"type": "propose_takeback"})
    asked = await next_of(b, "event")
    while asked["event"] != "takeback_request":
        asked = await next_of(b, "event")
    await b.send_json_to({"type": "move", "move": "c5", "ply": 1, "id": "m2"})
    await next_of(b, "ack")
    moved = await next_of(a, "event")
    while moved.get("v", 0) <= asked["v"]:
        moved = await next_of(a, "event")
    assert moved["patch"]["takeback"] is None, "the patch tells the boards the request lapsed"
    assert locked_path_calls == [], "both moves took the fast path"
    assert (await database_sync_to_async(Game.objects.get)(pk=game_id)).takeback_side is None
    await a.disconnect()
    await b.disconnect()
