"""The increment over the game socket, on both move paths (the ``move_path`` fixture): each move in time earns it."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Move
from tests.games.test_consumers import next_of, open_socket

pytestmark = [
    pytest.mark.django_db(transaction=True),
]


def _clocks(game_id: int) -> list[tuple[int, int, int]]:
    return list(
        Move.objects.filter(game_id=game_id)
        .order_by("ply")
        .values_list("side", "time_used_ms", "clock_left_ms")
    )


async def test_each_move_in_time_earns_the_increment_from_the_third_ply_on(human_game, move_path):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)(minutes=3, increment=2)
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    for ply, (ws, token) in enumerate([(a, "d3"), (b, "c5"), (a, "d6")]):
        await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": f"m{ply}"})
        await next_of(ws, "ack")
    event = await next_of(b, "event")  # the board's clock tells the increment
    clocks = await database_sync_to_async(_clocks)(game_id)
    left = {0: 180_000, 1: 180_000}
    for ply, (side, used, clock_left) in enumerate(clocks):
        if ply >= 2:  # each side's first move is free and earns nothing: the clocks start after them
            left[side] = left[side] - used + 2_000
        assert clock_left == left[side]
    assert len(clocks) == 3
    board = event.get("patch") or event["game"]
    assert board["clock"]["increment_ms"] == 2_000
    assert move_path.fast_moves == move_path.on_fast(["d3", "c5", "d6"])
    await a.disconnect()
    await b.disconnect()
