"""Takebacks over the game socket, on both move paths (the ``move_path`` fixture)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Game
from tests.games.test_consumers import event_after, next_of, open_socket, shown

pytestmark = [
    pytest.mark.django_db(transaction=True),
]


async def test_bob_s_move_lapses_alice_s_pending_takeback_request(human_game, move_path):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    await next_of(a, "ack")
    await a.send_json_to({"type": "propose_takeback"})
    asked = await next_of(b, "event")
    while asked["event"] != "takeback_request":
        asked = await next_of(b, "event")
    assert asked["game"]["takeback"] == 0
    await b.send_json_to({"type": "move", "move": "c5", "ply": 1, "id": "m2"})
    await next_of(b, "ack")
    moved = await event_after(a, asked["v"])
    assert shown(moved, asked["game"])["takeback"] is None, "the boards hear the request lapsed"
    assert move_path.fast_moves == move_path.on_fast(["d3", "c5"])
    assert (await database_sync_to_async(Game.objects.get)(pk=game_id)).takeback_side is None
    await a.disconnect()
    await b.disconnect()


async def test_after_a_takeback_the_asker_plays_another_move_in_its_place(human_game, move_path):
    """The position went back a ply: the next move is checked against it, not against the one taken back."""
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    for ply, (ws, token) in enumerate([(a, "d3"), (b, "c5"), (a, "d6")]):
        await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": f"m{ply}"})
        await next_of(ws, "ack")
    await a.send_json_to({"type": "propose_takeback"})
    asked = await next_of(b, "event")
    while asked["event"] != "takeback_request":
        asked = await next_of(b, "event")
    await b.send_json_to({"type": "accept_takeback"})
    back = await event_after(a, asked["v"])
    assert back["game"]["moves"] == ["d3", "c5"] and back["game"]["ply"] == 2
    await a.send_json_to({"type": "move", "move": "e6", "ply": 2, "id": "again"})
    ack = await next_of(a, "ack", "error")
    assert ack["type"] == "ack" and ack["ply"] == 2 and ack["v"] == back["v"] + 1
    seen = await event_after(b, back["v"])
    assert shown(seen, back["game"])["moves"] == ["d3", "c5", "e6"]
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.tokens == ["d3", "c5", "e6"] and game.ply == 3
    assert move_path.fast_moves == move_path.on_fast(["d3", "c5", "d6", "e6"])
    await a.disconnect()
    await b.disconnect()
