"""Playing over the game socket: every command and every refusal, as the players see them.

Every test runs on both move paths, ``[fast]`` and ``[locked]`` (the ``move_path`` fixture, docs/move.md).
"""

from __future__ import annotations

import weakref
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games import services
from games.models import Game, Move
from tests.games.conftest import game_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("move_path")]


_held: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per socket: read, not yet asked for


async def next_of(ws, *types: str, timeout: float = 5) -> dict:
    """The next message of one of ``types``, skipping broadcasts that are not asked for (never errors).

    An ``ack`` may ride inside the move's event (the fast path, docs/protocol.md):
    asked for an ack, that event gives it, and the event is still there to be read.
    A rated game's end is followed by a ``ratings`` broadcast, sent by the ratings
    task after the end's own messages, in no fixed order with the next command's
    answer: skipped unless asked for (the test that checks it asks for it). So are a
    ``watchers`` count, sent whenever a spectator's socket comes or goes, and chat lines.
    """
    held = _held.setdefault(ws, [])
    while True:
        message = held.pop(0) if held else await ws.receive_json_from(timeout=timeout)
        if "ack" in types and message["type"] == "event" and "ack" in message:
            held.insert(0, {key: value for key, value in message.items() if key != "ack"})
            return message["ack"]
        if message["type"] in types:
            return message
        assert message["type"] in ("presence", "watchers", "event", "state", "ratings", "chat"), message


def shown(event: dict, before: dict) -> dict:
    """The snapshot a client shows after ``event`` when it held ``before``: whole, or patched (a fast move)."""
    if "patch" not in event:
        return event["game"]
    assert event["base"] == before["v"] == event["v"] - 1
    patch = dict(event["patch"])
    added = patch.pop("added")
    return {**before, **patch, "v": event["v"], "moves": before["moves"] + added}


async def presence_notice(ws, *, online: bool) -> dict:
    while True:
        message = await ws.receive_json_from(timeout=5)
        if message["type"] == "presence" and message["online"] is online:
            return message


async def open_socket(game_id: int, cookie: str | None):
    ws = game_socket(game_id, cookie)
    connected, _ = await ws.connect()
    assert connected
    state = await next_of(ws, "state")
    return ws, state


async def test_both_players_see_a_move_and_only_the_mover_gets_the_ack(human_game, move_path):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, state = await open_socket(game_id, alice)
    assert state["you"] == 0 and state["game"]["status"] == "active"
    assert "d3" in state["game"]["position"]["legal_moves"]
    b, state_b = await open_socket(game_id, bob)
    assert state_b["you"] == 1
    v = state_b["v"]
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    ack = await next_of(a, "ack")
    assert ack == {"type": "ack", "id": "m1", "ply": 0, "v": v + 1, "duplicate": False}
    seen_by_a = await next_of(a, "event")
    seen_by_b = await next_of(b, "event")
    for seen in (seen_by_a, seen_by_b):
        assert seen["event"] == "move" and seen["v"] == v + 1
        game = shown(seen, state_b["game"])
        assert game["moves"] == ["d3"] and game["ply"] == 1
        # No clock runs until each side has moved; Bob's first move has its window (docs/decisions.md).
        assert game["clock"]["running"] is None and game["clock"]["first_move_ms"] > 0
    assert seen_by_b["you"] == 1 and "ack" not in seen_by_b
    assert move_path.fast_moves == move_path.on_fast(["d3"])
    await a.disconnect()
    await b.disconnect()


@pytest.mark.parametrize(
    ("who", "message", "code"),
    [
        ("bob", {"type": "move", "move": "d3", "ply": 0}, "not_your_turn"),
        ("alice", {"type": "move", "move": "d3", "ply": 5}, "stale"),
        ("alice", {"type": "move", "move": "a1", "ply": 0}, "illegal"),
        ("alice", {"type": "move", "move": "zz99", "ply": 0}, "illegal"),
        ("alice", {"type": "move", "move": "d3"}, "malformed"),
        ("alice", {"type": "move", "move": ["d3"], "ply": 0}, "malformed"),
        ("alice", {"type": "move", "move": "d3", "ply": "0"}, "malformed"),
        ("alice", {"type": "fly_away"}, "unknown_type"),
    ],
)
async def test_a_refused_command_is_answered_to_the_sender_only_and_changes_nothing(
    human_game, who, message, code
):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, before = await open_socket(game_id, bob)
    sender, other = (a, b) if who == "alice" else (b, a)
    await sender.send_json_to({**message, "id": "x"})
    error = await next_of(sender, "error")
    assert error["code"] == code and error["message"] and error["id"] == "x"
    await other.send_json_to({"type": "sync"})
    after = await next_of(other, "state")
    assert after["v"] == before["v"] and after["game"]["moves"] == []
    assert await database_sync_to_async(Move.objects.count)() == 0
    await a.disconnect()
    await b.disconnect()


async def test_malformed_json_is_refused_clearly(human_game):
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    await a.send_to(text_data='{"type": "move", "move": ')
    assert (await next_of(a, "error"))["code"] == "malformed"
    await a.disconnect()


async def test_a_spectator_and_a_player_of_another_game_can_watch_but_not_move(human_game, player_factory):
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    _, carol = await database_sync_to_async(player_factory)("carol")
    for cookie in (None, carol):
        ws, state = await open_socket(game_id, cookie)
        assert state["you"] is None and state["game"]["status"] == "active"
        for command in ({"type": "move", "move": "d3", "ply": 0}, {"type": "resign"}, {"type": "offer_draw"}):
            await ws.send_json_to(command)
            assert (await next_of(ws, "error"))["code"] == "spectator"
        await ws.disconnect()
    assert await database_sync_to_async(lambda: Game.objects.get(pk=game_id).ply)() == 0


async def test_a_spectator_sees_moves_live(human_game):
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    watcher, state = await open_socket(game_id, None)
    a, _ = await open_socket(game_id, alice)
    await a.send_json_to({"type": "move", "move": "f5", "ply": 0, "id": 1})
    event = await next_of(watcher, "event")
    assert shown(event, state["game"])["moves"] == ["f5"] and event["you"] is None and "ack" not in event
    await watcher.disconnect()
    await a.disconnect()


async def test_a_move_sent_twice_is_applied_once_and_acknowledged_twice(human_game):
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "same"})
    first = await next_of(a, "ack")
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "same"})
    second = await next_of(a, "ack")
    assert first["ply"] == second["ply"] == 0 and second["duplicate"] is True
    assert await database_sync_to_async(Move.objects.filter(game_id=game_id).count)() == 1
    await a.disconnect()


async def test_resigning_ends_the_game_as_a_loss_for_the_resigner(human_game):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await b.send_json_to({"type": "resign"})
    end = await next_of(a, "event")
    assert end["event"] == "end"
    assert end["game"]["result"] == {"winner": 0, "reason": "resign", "score": [2, 2]}
    await b.send_json_to({"type": "move", "move": "c4", "ply": 0})
    assert (await next_of(b, "error"))["code"] == "game_over"
    await a.disconnect()
    await b.disconnect()


async def test_a_rated_games_end_brings_both_players_the_rating_changes_live(human_game):
    game_id, (alice_identity, alice), (bob_identity, bob) = await database_sync_to_async(human_game)()
    await database_sync_to_async(_opened)(game_id, alice_identity, bob_identity)
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await b.send_json_to({"type": "resign"})
    for ws in (a, b):
        assert (await next_of(ws, "event"))["event"] == "end"
        changes = (await next_of(ws, "ratings"))["changes"]
        won, lost = changes
        assert won["delta"] > 0 > lost["delta"], "alice won: she gains, bob loses"
        for change in changes:
            assert change["after"] - change["before"] == change["delta"]
    # The same changes a page opened later reads from the snapshot (docs/protocol.md).
    await a.send_json_to({"type": "sync"})
    assert (await next_of(a, "state"))["game"]["rating_changes"] == changes
    await a.disconnect()
    await b.disconnect()


async def test_exit_mid_game_is_a_loss_too(human_game):
    game_id, (_, alice), _ = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    await a.send_json_to({"type": "exit"})
    end = await next_of(a, "event")
    assert end["game"]["result"]["winner"] == 1 and end["game"]["result"]["reason"] == "exit"
    await a.disconnect()


async def test_a_draw_offer_shows_live_and_can_be_accepted(human_game):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await a.send_json_to({"type": "offer_draw"})
    offer = await next_of(b, "event")
    assert offer["event"] == "draw_offer" and offer["game"]["draw_offer"] == 0
    await a.send_json_to({"type": "accept_draw"})  # nobody accepts their own offer
    assert (await next_of(a, "error"))["code"] == "no_offer"
    await b.send_json_to({"type": "accept_draw"})
    end = await next_of(a, "event")
    while end["event"] != "end":
        end = await next_of(a, "event")
    assert end["game"]["result"] == {"winner": None, "reason": "draw_agreed", "score": [2, 2]}
    await a.disconnect()
    await b.disconnect()


async def test_a_declined_offer_blocks_new_offers_from_that_player_for_ten_plies(human_game):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await a.send_json_to({"type": "offer_draw"})
    await next_of(b, "event")
    await b.send_json_to({"type": "decline_draw"})
    declined = await next_of(a, "event")
    while declined["event"] != "draw_declined":
        declined = await next_of(a, "event")
    assert declined["game"]["draw_offer"] is None
    assert declined["game"]["draw_wait"] == [10, 0]  # the snapshot tells the page how long
    await a.send_json_to({"type": "offer_draw"})
    refused = await next_of(a, "error")
    assert refused["code"] == "too_soon" and "after 10 more moves" in refused["message"]
    await a.disconnect()
    await b.disconnect()


async def event_after(ws, v: int) -> dict:
    """The first event on ``ws`` past version ``v`` (earlier ones, e.g. of one's own command, skipped)."""
    event = await next_of(ws, "event")
    while event["v"] <= v:
        event = await next_of(ws, "event")
    return event


async def ack_and_event(ws, v: int) -> dict:
    """The mover's ack and then the move's event past version ``v``, which it returns.

    On the locked path the ack is a frame of its own, sent when the service returns, and the
    move's broadcast (sent on commit) may overtake it: waiting for the ack alone would skip
    the event.
    """
    acked, event = False, None
    while not acked or event is None:
        message = await next_of(ws, "ack", "event")
        if message["type"] == "event":
            if message["v"] > v:
                event = message
        else:
            acked = True
    return event


async def test_bob_s_move_answers_alice_s_draw_offer_with_no_on_both_boards(human_game, move_path):
    """Playing on instead of answering says "no"; unlike a decline, Alice may offer again at once."""
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": 1})
    await next_of(a, "ack")
    await a.send_json_to({"type": "offer_draw"})
    offer = await next_of(b, "event")
    while offer["event"] != "draw_offer":
        offer = await next_of(b, "event")
    assert offer["game"]["draw_offer"] == 0
    await b.send_json_to({"type": "move", "move": "c5", "ply": 1, "id": 2})
    await next_of(b, "ack")
    for ws in (a, b):
        board = shown(await event_after(ws, offer["v"]), offer["game"])
        assert board["moves"] == ["d3", "c5"] and board["draw_offer"] is None and board["draw_wait"] == [0, 0]
    assert move_path.fast_moves == move_path.on_fast(["d3", "c5"])
    await a.send_json_to({"type": "offer_draw"})
    again = await event_after(b, offer["v"] + 1)
    assert again["event"] == "draw_offer" and again["game"]["draw_offer"] == 0
    await a.disconnect()
    await b.disconnect()


async def test_the_ten_plies_after_a_declined_offer_count_down_with_the_moves(human_game, move_path):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await a.send_json_to({"type": "offer_draw"})
    offered = await next_of(b, "event")  # Bob declines what he has seen: his socket may be served first
    assert offered["event"] == "draw_offer"
    await b.send_json_to({"type": "decline_draw"})
    declined = await next_of(a, "event")
    while declined["event"] != "draw_declined":
        declined = await next_of(a, "event")
    board, v = declined["game"], declined["v"]
    for ply, (ws, token) in enumerate([(a, "d3"), (b, "c5")]):
        await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": ply})
        if ws is a:  # Alice's own move: her ack and its event, in either order
            event = await ack_and_event(a, v)
        else:
            await next_of(ws, "ack")
            event = await event_after(a, v)
        board, v = shown(event, board), event["v"]
        assert board["draw_wait"] == [10 - ply - 1, 0]
    await a.send_json_to({"type": "offer_draw"})
    refused = await next_of(a, "error")
    assert refused["code"] == "too_soon" and "after 8 more moves" in refused["message"]
    assert move_path.fast_moves == move_path.on_fast(["d3", "c5"])
    await a.disconnect()
    await b.disconnect()


async def test_a_guest_who_registers_mid_game_is_not_undone_by_the_next_move(human_game, move_path):
    """Writes that bump no version (here: a guest's seat passing to their new account) are never overwritten."""
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    await database_sync_to_async(Game.objects.filter(pk=game_id).update)(guest1_name="kept")
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": "m1"})
    await next_of(a, "ack")
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.guest1_name == "kept" and game.tokens == ["d3"]
    await a.disconnect()


async def test_abort_is_allowed_only_before_both_sides_moved(human_game):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": 1})
    await next_of(a, "ack")
    await b.send_json_to({"type": "move", "move": "c3", "ply": 1, "id": 2})
    await next_of(b, "ack")
    await a.send_json_to({"type": "abort"})
    assert (await next_of(a, "error"))["code"] == "too_late"
    await a.disconnect()
    await b.disconnect()


async def test_a_player_whose_board_missed_an_event_catches_up_at_the_next_ping(human_game, guest_factory):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, before = await open_socket(game_id, bob)
    _, visitor = await database_sync_to_async(guest_factory)()
    watcher, _ = await open_socket(game_id, visitor)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": 1})
    await next_of(a, "ack")
    moved = await next_of(b, "event")

    # Bob's page never saw that event (the layer lost it): it still shows the old version.
    await b.send_json_to({"type": "ping", "v": before["v"]})
    caught_up = await next_of(b, "state")
    assert caught_up["v"] == moved["v"] and caught_up["game"]["moves"] == ["d3"]

    await b.send_json_to({"type": "ping", "v": moved["v"]})  # up to date: a plain pong
    assert (await next_of(b, "pong", "state"))["type"] == "pong"
    await watcher.send_json_to({"type": "ping", "v": before["v"]})  # spectators are not checked
    assert (await next_of(watcher, "pong", "state"))["type"] == "pong"
    for ws in (a, b, watcher):
        await ws.disconnect()


async def test_reconnecting_puts_a_player_back_into_the_position(human_game):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    await a.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": 1})
    await next_of(a, "ack")
    await a.disconnect()
    again, state = await open_socket(game_id, alice)
    assert state["game"]["moves"] == ["d3"] and state["you"] == 0
    assert state["game"]["clock"]["running"] is None and state["game"]["clock"]["first_move_ms"] > 0
    await again.disconnect()


async def test_the_opponent_hears_about_disconnects_and_reconnects(human_game):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a, _ = await open_socket(game_id, alice)
    b, state = await open_socket(game_id, bob)
    assert state["online"] == [True, True]
    await a.disconnect()
    # Presence notices are not versioned; on Redis a late "online" from alice's
    # first connection may still arrive first, so wait for the one that matters.
    assert (await presence_notice(b, online=False))["side"] == 0
    a2, _ = await open_socket(game_id, alice)
    assert (await presence_notice(b, online=True))["side"] == 0
    await a2.disconnect()
    await b.disconnect()


async def test_closing_one_of_two_tabs_leaves_the_player_online(human_game):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    a1, _ = await open_socket(game_id, alice)
    a2, _ = await open_socket(game_id, alice)
    b, state = await open_socket(game_id, bob)
    assert state["online"] == [True, True]
    await a1.disconnect()
    notice = await next_of(b, "presence")
    assert notice["side"] == 0 and notice["online"] is True
    await a2.disconnect()
    assert (await presence_notice(b, online=False))["side"] == 0
    await b.disconnect()


async def test_presence_notices_are_numbered_so_a_late_one_can_be_told_apart(human_game):
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)()
    b, state = await open_socket(game_id, bob)
    a, _ = await open_socket(game_id, alice)
    back = await presence_notice(b, online=True)
    await a.disconnect()
    gone = await presence_notice(b, online=False)
    assert state["presence_seq"] < back["seq"] < gone["seq"]
    await b.send_json_to({"type": "sync"})
    synced = await next_of(b, "state")
    assert synced["online"] == [False, True] and synced["presence_seq"] == gone["seq"]
    await b.disconnect()


async def test_an_unknown_game_closes_the_socket():
    ws = game_socket(999999)
    connected, code = await ws.connect()
    assert not connected and code == 4404


def _opened(game_id: int, alice, bob) -> None:
    """Each side's first move (d3 c5): the clocks run from here (docs/decisions.md)."""
    services.play_move(game_id=game_id, identity=alice, token="d3", ply=0)
    services.play_move(game_id=game_id, identity=bob, token="c5", ply=1)


async def test_a_sync_after_the_clock_ran_out_shows_the_loss_on_time(human_game):
    game_id, (alice_identity, alice), (bob_identity, _) = await database_sync_to_async(human_game)(minutes=1)
    await database_sync_to_async(_opened)(game_id, alice_identity, bob_identity)
    a, _ = await open_socket(game_id, alice)
    await database_sync_to_async(
        lambda: Game.objects.filter(pk=game_id).update(turn_started_at=timezone.now() - timedelta(seconds=70))
    )()
    await a.send_json_to({"type": "sync"})
    state = await next_of(a, "state")
    assert state["game"]["result"] == {"winner": 1, "reason": "timeout", "score": [3, 3]}
    await a.disconnect()


async def test_a_move_made_while_the_opponent_s_socket_opens_still_reaches_it(human_game, monkeypatch):
    """The socket listens before it reads the game: a move in between arrives as an event."""
    from games.live import opening

    game_id, (alice_identity, _), (_, bob) = await database_sync_to_async(human_game)()
    original = opening.open_in_thread

    async def read_then_alice_moves(*args):
        opened = await original(*args)
        await database_sync_to_async(services.play_move)(
            game_id=game_id, identity=alice_identity, token="d3", ply=0
        )
        return opened

    monkeypatch.setattr(opening, "open_in_thread", read_then_alice_moves)
    b, state = await open_socket(game_id, bob)
    assert state["game"]["moves"] == []  # read before the move
    event = await next_of(b, "event")
    assert shown(event, state["game"])["moves"] == ["d3"]
    await b.disconnect()


async def test_accepting_a_draw_after_the_clock_ran_out_loses_on_time_instead(human_game):
    """Alice offered a draw and let her clock run out; Bob accepts before any flag task came."""
    game_id, (alice_identity, alice), (bob_identity, bob) = await database_sync_to_async(human_game)(
        minutes=1
    )
    await database_sync_to_async(_opened)(game_id, alice_identity, bob_identity)
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    await a.send_json_to({"type": "offer_draw"})
    assert (await next_of(b, "event"))["event"] == "draw_offer"
    await database_sync_to_async(
        lambda: Game.objects.filter(pk=game_id).update(turn_started_at=timezone.now() - timedelta(seconds=70))
    )()
    await b.send_json_to({"type": "accept_draw", "id": 7})
    end = await next_of(a, "event")
    while end["event"] != "end":  # Alice's own offer comes first
        end = await next_of(a, "event")
    assert end["game"]["result"] == {"winner": 1, "reason": "timeout", "score": [3, 3]}
    refused = await next_of(b, "error")
    assert (refused["code"], refused["id"]) == ("game_over", 7)
    await a.disconnect()
    await b.disconnect()
