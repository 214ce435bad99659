"""The clocks start once each side has made its first move, on both move paths (docs/decisions.md, issue #37).

Before that no clock runs, a first move costs no time and earns no increment,
and each first move has ``GAMES_FIRST_MOVE_SECONDS``: a game whose first move
does not come in time is called off (never rated), whoever's move it was. A
correspondence game's days per move run from the start and are its first-move
window. The fast path and the locked path decide with the same functions; the
socket tests run on both (the ``move_path`` fixture).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games import services
from games.models import Game, Move
from tests.games.test_consumers import next_of, open_socket
from tests.people import me


def _moves(game_id: int) -> list[tuple[int, int]]:
    return list(Move.objects.filter(game_id=game_id).order_by("ply").values_list("ply", "clock_left_ms"))


async def _clock_after(ws, ply: int) -> dict:
    """The clock of the event that brought ``ply`` plies (earlier events, e.g. of one's own move, are skipped)."""
    while True:
        event = await next_of(ws, "event")
        game = event.get("patch") or event["game"]
        if game["ply"] >= ply:
            return game["clock"]


class Later:
    """Moves the services' clock on (``timezone.now``): the fast path keeps the game row it read, so the
    row cannot be changed under it; the time can."""

    def __init__(self, monkeypatch) -> None:
        self.offset = timedelta()
        real = timezone.now
        monkeypatch.setattr(timezone, "now", lambda: real() + self.offset)

    def __call__(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)


def _think(game_id: int, seconds: int) -> None:
    """The side to move has been thinking this long."""
    Game.objects.filter(pk=game_id).update(turn_started_at=timezone.now() - timedelta(seconds=seconds))


@pytest.mark.django_db(transaction=True)
async def test_no_clock_runs_and_no_time_is_charged_until_each_side_has_moved(
    move_path, human_game, monkeypatch
):
    later = Later(monkeypatch)
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)(minutes=3, increment=2)
    a, state = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    clock = state["game"]["clock"]
    assert (
        clock["running"] is None
        and clock["ms"] == [180_000, 180_000]
        and 0 < clock["first_move_ms"] <= 30_000
    )
    for ply, (ws, token) in enumerate([(a, "d3"), (b, "c5")]):
        later(20)  # long, but inside the first move's window
        await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": f"m{ply}"})
        await next_of(ws, "ack")
        clock = await _clock_after(a if ws is b else b, ply + 1)
    # After both first moves: nothing charged, no increment, and Alice's clock runs from now.
    assert clock["running"] == 0 and clock["first_move_ms"] is None
    assert 179_000 <= clock["ms"][0] <= 180_000 and clock["ms"][1] == 180_000  # hers runs from bob's move on
    assert await database_sync_to_async(_moves)(game_id) == [(0, 180_000), (1, 180_000)]
    later(10)
    await a.send_json_to({"type": "move", "move": "d6", "ply": 2, "id": "m2"})
    await next_of(a, "ack")
    (_, left) = (await database_sync_to_async(_moves)(game_id))[2]
    assert 180_000 - 11_000 + 2_000 <= left <= 180_000 - 10_000 + 2_000
    assert move_path.fast_moves == move_path.on_fast(["d3", "c5", "d6"])
    await a.disconnect()
    await b.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("late_ply", [0, 1])
async def test_a_first_move_too_late_calls_the_game_off_unrated(move_path, late_ply, human_game, monkeypatch):
    later = Later(monkeypatch)
    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)(minutes=3)
    a, _ = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    moves = [(a, "d3"), (b, "c5")]
    for ply in range(late_ply):
        ws, token = moves[ply]
        await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": f"m{ply}"})
        await next_of(ws, "ack")
    later(31)
    ws, token = moves[late_ply]
    await ws.send_json_to({"type": "move", "move": token, "ply": late_ply, "id": "late"})
    error = await next_of(ws, "error")
    assert error["code"] == "game_over" and "first move" in error["message"]
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert (game.status, game.end_reason, game.winner, game.ply) == (
        Game.Status.ABORTED,
        "aborted",
        None,
        late_ply,
    )
    assert game.clock0_ms == game.clock1_ms == 180_000
    await a.disconnect()
    await b.disconnect()


@pytest.mark.django_db
def test_the_sweep_calls_off_a_game_whose_first_move_never_comes(alice, bob):
    created = services.create_human_game(
        identity=me(alice), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, minutes=10
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    # Due at the end of the first move's window, not of Alice's ten minutes.
    assert game.flag_at == game.turn_started_at + timedelta(seconds=30)
    Game.objects.filter(pk=game.pk).update(attention_at=timezone.now() - timedelta(seconds=1))
    _think(game.pk, 31)
    assert services.attend_overdue() == 1
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winner) == (Game.Status.ABORTED, "aborted", None)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"])
def test_every_game_s_clocks_start_at_the_third_ply(name, alice, bob):
    created = services.create_human_game(
        identity=me(alice), game=name, kind=Game.Kind.INVITE_LINK, side=0, minutes=5, increment=3
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    for ply in range(3):
        game.refresh_from_db()
        who = (alice, bob)[
            game.to_move
        ]  # Quantum's collapse is chosen by the side that did not close the cycle
        _think(game.pk, 5)
        token = game.engine.legal_moves(game.engine_state())[0]
        services.play_move(game_id=game.pk, identity=me(who), token=token, ply=ply)
    game.refresh_from_db()
    clocks = [left for _, left in _moves(game.pk)]
    assert clocks[:2] == [300_000, 300_000]
    assert 300_000 - 6_000 + 3_000 <= clocks[2] <= 300_000 - 5_000 + 3_000


@pytest.mark.django_db
def test_a_correspondence_game_whose_first_move_never_comes_is_called_off(alice, bob):
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, days_per_move=1
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    assert game.flag_at == game.turn_started_at + timedelta(days=1)  # its days run from the start
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(days=1, seconds=1))
    with pytest.raises(services.GameError) as refused:
        services.offer_draw(game_id=game.pk, identity=me(bob))
    assert refused.value.code == "game_over"
    game.refresh_from_db()
    assert (game.status, game.end_reason, game.winner) == (Game.Status.ABORTED, "aborted", None)
