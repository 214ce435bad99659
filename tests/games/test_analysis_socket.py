"""Analysis progress reaches the pages watching it over the notification socket."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from accounts.identity import Identity
from games.services import analysis
from tests.accounts.test_notify import logged_in_client, socket_for
from tests.games.test_analysis import SHORT_REVERSI, finished_game

pytestmark = [pytest.mark.django_db(transaction=True)]


async def test_a_watching_page_hears_every_position_then_the_end(user_factory, monkeypatch):
    monkeypatch.setattr("games.tasks.analyse_game.apply_async", lambda *args, **kwargs: None)
    ann = await sync_to_async(user_factory)("ann")
    game = await sync_to_async(finished_game)(user=ann)
    watcher = socket_for(await logged_in_client(ann))
    stranger = socket_for(None)  # a guest's page on another game hears nothing
    for ws in (watcher, stranger):
        assert (await ws.connect())[0]
    await watcher.send_json_to({"type": "watch_analysis", "game": game.pk})
    await stranger.send_json_to({"type": "watch_analysis", "game": "not a number"})
    for ws in (watcher, stranger):  # the ping's answer proves the watch was handled
        await ws.send_json_to({"type": "ping"})
        assert await ws.receive_json_from() == {"type": "pong"}
    pending = await sync_to_async(analysis.request_analysis)(game_id=game.pk, identity=Identity(ann, None))
    await sync_to_async(analysis.run_analysis)(pending.pk)
    total = len(SHORT_REVERSI) + 1
    events = [await watcher.receive_json_from(timeout=2) for _ in range(total + 1)]
    assert [e["done"] for e in events[:-1]] == list(range(1, total + 1))
    assert all(e["type"] == "analysis" and e["game"] == game.pk and e["total"] == total for e in events)
    assert events[-1]["status"] == "done"
    assert await stranger.receive_nothing(timeout=0.2)
    for ws in (watcher, stranger):
        await ws.disconnect()
