"""The increment on both move paths: the fast path (PostgreSQL) adds it exactly as the locked path does."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Move
from tests.games.test_consumers import next_of, open_socket
from tests.games.test_live import locked_path_calls  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.django_db(transaction=True),
]


def _clocks(game_id: int) -> list[tuple[int, int, int]]:
    return list(
        Move.objects.filter(game_id=game_id)
        .order_by("ply")
        .values_list("side", "time_used_ms", "clock_left_ms")
    )


async def test_moves_over_the_fast_path_get_the_increment_like_the_locked_path(
    human_game,
    settings,
    locked_path_calls,  # noqa: F811
):
    results = {}
    for fast in (True, False):
        settings.GAMES_FAST_MOVES = fast
        names = ("ann", "ben") if fast else ("cat", "dan")
        game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)(
            minutes=3, increment=2, names=names
        )
        a, _ = await open_socket(game_id, alice)
        b, _ = await open_socket(game_id, bob)
        for ply, (ws, token) in enumerate([(a, "d3"), (b, "c5"), (a, "d6")]):
            await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": f"m{ply}"})
            await next_of(ws, "ack")
        event = await next_of(b, "event")
        results[fast] = (await database_sync_to_async(_clocks)(game_id), event)
        await a.disconnect()
        await b.disconnect()
        if fast:
            assert locked_path_calls == [], "the moves took the fast path"
    for clocks, _event in results.values():
        left = {0: 180_000, 1: 180_000}
        for ply, (side, used, clock_left) in enumerate(clocks):
            if ply >= 2:  # each side's first move is free and earns nothing: the clocks start after them
                left[side] = left[side] - used + 2_000
            assert clock_left == left[side]
    fast_event = results[True][1]
    assert fast_event["patch"]["clock"]["increment_ms"] == 2_000
