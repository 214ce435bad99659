"""The fast path of a move (games/live/fastpath.py): the same result as the locked path, in one statement.

Fast path only: these follow the fast path's own workings (its row cache, its
statement, what it hands to the locked path); the stories both paths share are
in test_consumers.py and the other socket modules, on both (the ``move_path`` fixture).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games import services
from games.engines import get
from games.models import Game, Move
from tests.games.test_consumers import next_of, open_socket
from tests.move_paths import FAST, only_on

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("move_path"),
    only_on(FAST),  # the fast path's own details: on the locked path there is nothing of them to see
]


@pytest.fixture
def locked_path_calls(monkeypatch):
    """Every move the locked path had to decide."""
    calls = []
    original = services.play_move

    def counting(**kwargs):
        calls.append(kwargs["token"])
        return original(**kwargs)

    monkeypatch.setattr(services, "play_move", counting)
    return calls


def record_calls(monkeypatch, owner, name: str) -> list[tuple]:
    """The arguments of every call of the coroutine function ``owner.name``, which still runs."""
    calls: list[tuple] = []
    original = getattr(owner, name)

    async def recording(*args):
        calls.append(args)
        return await original(*args)

    monkeypatch.setattr(owner, name, recording)
    return calls


def _row(game_id: int) -> dict:
    game = Game.objects.get(pk=game_id)
    skip = {"id", "invite_token", "created_at", "started_at", "turn_started_at", "flag_at", "attention_at"}
    return {f.attname: getattr(game, f.attname) for f in Game._meta.concrete_fields if f.attname not in skip}


def _moves(game_id: int) -> list[tuple]:
    return list(
        Move.objects.filter(game_id=game_id).order_by("ply").values_list("ply", "token", "side", "client_id")
    )


async def test_a_move_is_stored_and_announced_without_the_locked_path(human_game, locked_path_calls):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, state = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    v = state["v"]
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    assert await next_of(a, "ack") == {"type": "ack", "id": "m1", "ply": 0, "v": v + 1, "duplicate": False}
    event = await next_of(b, "event")
    assert event["v"] == v + 1 and event["base"] == v and event["patch"]["added"] == ["d3"]
    assert (
        "ack" not in event and "players" not in event["patch"]
    )  # the ack is the mover's, names never change
    await b.send_json_to({"type": "move", "move": "c3", "ply": 1, "id": "m2"})
    assert (await next_of(b, "ack"))["v"] == v + 2
    assert locked_path_calls == []
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.tokens == ["d3", "c3"] and game.ply == 2 and game.version == v + 2
    # Each side's first move is free (docs/decisions.md): the clocks start now, Alice's running.
    assert game.clock0_ms == 5 * 60_000 and game.flag_at is not None and game.attention_at == game.flag_at
    assert game.flag_at == game.turn_started_at + timedelta(minutes=5)
    assert await database_sync_to_async(_moves)(game_id) == [(0, "d3", 0, "m1"), (1, "c3", 1, "m2")]
    await a.disconnect()
    await b.disconnect()


async def test_the_fast_and_the_locked_path_store_the_same_game(human_game, settings):
    """Ten Reversi moves played both ways leave the same rows (timestamps aside)."""
    tokens = ["d3", "c5", "d6", "e3", "f4", "c6", "f5", "c3", "c4", "b5"]
    rows = []
    for fast in (True, False):
        settings.GAMES_FAST_MOVES = fast
        names = ("ann", "ben") if fast else ("cat", "dan")
        game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)(names=names)
        sockets = [(await open_socket(game_id, alice))[0], (await open_socket(game_id, bob))[0]]
        for ply, token in enumerate(tokens):
            ws = sockets[ply % 2]
            await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": f"m{ply}"})
            await next_of(ws, "ack")
        rows.append(
            (await database_sync_to_async(_row)(game_id), await database_sync_to_async(_moves)(game_id))
        )
        for ws in sockets:
            await ws.disconnect()
    (fast_row, fast_moves), (locked_row, locked_moves) = rows
    for row in (fast_row, locked_row):  # players are other accounts in each game
        for name in ("user0_id", "user1_id", "created_by_id"):
            row.pop(name)
        row["clock0_ms"] //= 10_000  # the clocks differ by the milliseconds the moves took
        row["clock1_ms"] //= 10_000
    assert fast_row == locked_row
    assert fast_moves == locked_moves


async def test_a_row_changed_elsewhere_is_read_again_and_the_move_still_goes_through(
    human_game, locked_path_calls
):
    """A write this process never heard of (no event reached it): the version check catches it."""
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    a, state = await open_socket(game_id, alice)
    v = state["v"]

    def offer_draw_silently():
        Game.objects.filter(pk=game_id).update(version=v + 1, draw_offer_side=0, draw_offer_at=timezone.now())

    await database_sync_to_async(offer_draw_silently)()
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    assert (await next_of(a, "ack"))["v"] == v + 2 and locked_path_calls == []
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.tokens == ["d3"] and game.draw_offer_side == 0  # alice's own offer stands
    await a.disconnect()


async def test_a_process_that_serves_the_other_player_applies_the_move_s_changes_and_reads_nothing(
    human_game, locked_path_calls, monkeypatch
):
    """Alice's socket and Bob's on different daphne processes: Bob's process learns
    Alice's move from its event alone, and checks Bob's reply without reading the row."""
    from games.live import fastpath

    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    # One process stands for two: the row Alice's process keeps after her move
    # is not put where Bob's process would see it.
    monkeypatch.setattr(fastpath.cache, "put", lambda game, players: None)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    await next_of(b, "event")
    monkeypatch.undo()
    cached = fastpath.cache.get(game_id)
    assert cached is not None and not cached.stale
    fresh = await fastpath.read(game_id, cached)
    assert fresh is not None and fresh.values == cached.values, "the event brought the row as stored"

    reads = record_calls(monkeypatch, fastpath, "read")
    await b.send_json_to({"type": "move", "move": "c3", "ply": 1, "id": "m2"})
    await next_of(b, "ack")
    assert reads == [] and locked_path_calls == []
    assert await database_sync_to_async(_moves)(game_id) == [(0, "d3", 0, "m1"), (1, "c3", 1, "m2")]
    await a.disconnect()
    await b.disconnect()


async def test_a_process_that_missed_an_event_reads_the_row_before_the_next_move(
    human_game, locked_path_calls, monkeypatch
):
    """Changes apply only to the version just below: with one event lost, the row is read."""
    from games.live import fastpath

    game_id, (alice_identity, _), (_, bob) = await database_sync_to_async(human_game)()
    b, state = await open_socket(game_id, bob)
    cached = fastpath.cache.get(game_id)
    await database_sync_to_async(services.play_move)(
        game_id=game_id, identity=alice_identity, token="d3", ply=0
    )
    fastpath.cache.saw_version(game_id, state["v"] + 2, {"version": state["v"] + 2})  # v + 1 never came
    assert fastpath.cache.get(game_id).stale and fastpath.cache.get(game_id).values == cached.values

    reads = record_calls(monkeypatch, fastpath, "read")
    await b.send_json_to({"type": "move", "move": "c3", "ply": 1, "id": "m2"})
    assert (await next_of(b, "ack"))["v"] == state["v"] + 2
    assert len(reads) == 1 and locked_path_calls == ["d3"]  # alice's, made through the locked path above
    await b.disconnect()


async def test_a_move_that_ends_the_game_takes_the_locked_path(human_game, locked_path_calls):
    """``finish`` and the ratings signal belong to the locked path."""
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    reversi = get("reversi")
    last_empty = "-O" + "X" * 62 + " X"  # black's a1 flips b1 and fills the board

    def set_up():
        Game.objects.filter(pk=game_id).update(
            state=reversi.dumps(reversi.from_fen(last_empty)), start_fen=last_empty
        )

    await database_sync_to_async(set_up)()
    a, _ = await open_socket(game_id, alice)
    await a.send_json_to({"type": "move", "move": "a1", "ply": 0, "id": "m1"})
    await next_of(a, "ack")
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.winner == 0 and locked_path_calls == ["a1"]
    await a.disconnect()


async def test_a_resent_move_is_answered_by_the_locked_path_as_a_duplicate(human_game, locked_path_calls):
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    await next_of(a, "ack")
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    assert (await next_of(a, "ack"))["duplicate"] is True and locked_path_calls == ["d3"]
    assert await database_sync_to_async(_moves)(game_id) == [(0, "d3", 0, "m1")]
    await a.disconnect()


async def test_a_move_after_the_clock_ran_out_is_handed_to_the_locked_path_which_ends_the_game_on_time(
    human_game, locked_path_calls, monkeypatch
):
    """The cached row says the clock has run out: the fast path stores nothing and the locked path flags."""
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)(minutes=1)
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    # After each side's first move, when the clocks run (docs/decisions.md; tests/games/test_clock_start.py before).
    for ply, (ws, token) in enumerate([(a, "d3"), (b, "c5")]):
        await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": f"o{ply}"})
        await next_of(ws, "ack")
    await next_of(a, "event")
    moment = timezone.now() + timedelta(seconds=70)
    monkeypatch.setattr(timezone, "now", lambda: moment)  # Alice thought for 70 s on a 1-minute clock
    await a.send_json_to({"type": "move", "move": "d6", "ply": 2, "id": "m1"})
    assert (await next_of(a, "error"))["code"] == "timeout" and locked_path_calls == ["d6"]
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert (game.end_reason, game.winner, game.clock0_ms) == ("timeout", 1, 0)
    assert len(await database_sync_to_async(_moves)(game_id)) == 2
    await a.disconnect()
    await b.disconnect()


async def test_a_stale_move_is_refused_by_the_locked_path_with_its_message(human_game, locked_path_calls):
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 3, "id": "m1"})
    error = await next_of(a, "error")
    assert error["code"] == "stale" and locked_path_calls == ["d3"]
    await a.disconnect()


async def test_a_reconnect_to_a_process_that_saw_the_game_reads_it_fresh_without_a_database_thread(
    human_game, monkeypatch
):
    from games.live import opening

    game_id, (alice_identity, alice), (bob_identity, bob) = await database_sync_to_async(human_game)()
    a, first = await open_socket(game_id, alice)  # through a database thread: this process now knows the game
    await a.disconnect()
    await database_sync_to_async(services.play_move)(
        game_id=game_id, identity=alice_identity, token="d3", ply=0
    )
    threads = record_calls(monkeypatch, opening, "open_in_thread")
    b, state = await open_socket(game_id, bob)
    assert threads == []
    assert state["you"] == 1 and state["game"]["moves"] == ["d3"] and state["v"] == first["v"] + 1
    assert state["game"]["players"] == first["game"]["players"] and state["online"] == [False, True]
    await b.disconnect()


async def test_a_player_s_ping_is_checked_on_the_event_loop_s_connection(human_game, monkeypatch):
    from games.live import opening

    game_id, (alice_identity, alice), _ = await database_sync_to_async(human_game)()
    a, first = await open_socket(game_id, alice)
    await database_sync_to_async(services.play_move)(
        game_id=game_id, identity=alice_identity, token="d3", ply=0
    )
    await next_of(a, "event")

    async def no_thread(game_id):
        raise AssertionError("the version was read in a database thread")

    monkeypatch.setattr(opening, "version_in_thread", no_thread)
    await a.send_json_to({"type": "ping", "v": first["v"]})  # as if the move's event never came
    state = await next_of(a, "state")
    assert state["game"]["moves"] == ["d3"]
    await a.disconnect()
