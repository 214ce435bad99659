"""Every player command re-checks the clock: a player out of time loses on time, whatever they send.

The command envelope (games/services/envelope.py) ends the game on time before
it looks at the command; the command is then refused, ``timeout`` for the
player whose clock fell and ``game_over`` for the opponent. Also here: undo
charges the time spent on the turn it interrupts.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Game, Move
from tests.people import me

pytestmark = pytest.mark.django_db


def live_game(alice, bob, *, minutes: int = 1, opened: bool = True) -> Game:
    """Alice (side 0, to move) against Bob; ``opened``: after the first move of each (d3 c5), when the clocks run."""
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=minutes
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    if opened:
        services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
        services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)
        game.refresh_from_db()
    return game


def run_out_the_clock(game: Game) -> None:
    """The side to move has been thinking longer than its whole clock (and no flag task came yet)."""
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=61))


def refused(command, **kwargs) -> str:
    with pytest.raises(services.GameError) as caught:
        command(**kwargs)
    return caught.value.code


def ended_on_time(game: Game) -> tuple:
    game.refresh_from_db()
    return game.status, game.end_reason, game.winner


def test_a_player_out_of_time_who_accepts_a_draw_loses_on_time(alice, bob):
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    services.offer_draw(game_id=game.pk, identity=me(alice))
    run_out_the_clock(game)  # Bob's, who is to move
    assert refused(services.answer_draw, game_id=game.pk, identity=me(bob), accept=True) == "timeout"
    assert ended_on_time(game) == (Game.Status.FINISHED, "timeout", 0)


def test_accepting_the_draw_of_a_player_out_of_time_wins_on_time_instead(alice, bob):
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    services.offer_draw(game_id=game.pk, identity=me(bob))
    run_out_the_clock(game)  # Bob's: he offered, then let his clock run out
    assert refused(services.answer_draw, game_id=game.pk, identity=me(alice), accept=True) == "game_over"
    assert ended_on_time(game) == (Game.Status.FINISHED, "timeout", 0)


def test_a_player_out_of_time_who_offers_a_draw_loses_on_time(alice, bob):
    game = live_game(alice, bob)
    run_out_the_clock(game)
    assert refused(services.offer_draw, game_id=game.pk, identity=me(alice)) == "timeout"
    game.refresh_from_db()
    assert (game.end_reason, game.winner, game.draw_offer_side, game.clock0_ms) == ("timeout", 1, None, 0)


# Abort is for the first moves, when no clock runs yet: what runs out then is the
# first move's window, and the game is called off whoever sends the command (docs/decisions.md).
def test_a_first_move_not_made_in_time_calls_the_game_off_whoever_aborts(alice, bob):
    game = live_game(alice, bob, opened=False)
    run_out_the_clock(game)  # 61 s: past alice's first-move window
    assert refused(services.abort, game_id=game.pk, identity=me(alice)) == "game_over"
    assert ended_on_time(game) == (Game.Status.ABORTED, "aborted", None)


def test_the_opponent_of_a_player_whose_first_move_is_late_finds_the_game_called_off(alice, bob):
    game = live_game(alice, bob, opened=False)
    run_out_the_clock(game)  # Alice's first-move window
    assert refused(services.abort, game_id=game.pk, identity=me(bob)) == "game_over"
    game.refresh_from_db()
    assert (game.status, game.winner, game.clock0_ms, game.clock1_ms) == (
        Game.Status.ABORTED,
        None,
        60_000,
        60_000,
    )


def test_a_player_out_of_time_who_resigns_loses_on_time(alice, bob):
    game = live_game(alice, bob)
    run_out_the_clock(game)
    assert refused(services.resign, game_id=game.pk, identity=me(alice)) == "timeout"
    assert ended_on_time(game) == (Game.Status.FINISHED, "timeout", 1)


def test_a_refused_command_out_of_time_still_counts_the_flag_once(alice, bob):
    """The flag is stored and announced once; a second command finds the game over."""
    game = live_game(alice, bob)
    run_out_the_clock(game)
    assert refused(services.offer_draw, game_id=game.pk, identity=me(alice)) == "timeout"
    version = Game.objects.get(pk=game.pk).version
    assert refused(services.offer_draw, game_id=game.pk, identity=me(alice)) == "game_over"
    assert Game.objects.get(pk=game.pk).version == version


@pytest.mark.django_db(transaction=True)
def test_a_player_out_of_time_who_undoes_loses_on_time_and_keeps_the_moves(alice):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=1)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    game.refresh_from_db()
    assert game.ply == 2, "the eager computer task answered"
    run_out_the_clock(game)
    assert refused(services.undo, game_id=game.pk, identity=me(alice)) == "timeout"
    assert ended_on_time(game) == (Game.Status.FINISHED, "timeout", 1)
    assert game.ply == 2 and Move.objects.filter(game=game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_new_game_after_the_clock_ran_out_records_a_loss_on_time_then_starts(alice):
    old = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=1)
    services.play_move(game_id=old.pk, identity=me(alice), token="d3", ply=0)  # the eager computer answers
    run_out_the_clock(old)
    new = services.rematch_computer(game_id=old.pk, identity=me(alice))
    assert ended_on_time(old) == (Game.Status.FINISHED, "timeout", 1)
    assert new.pk != old.pk and new.status == Game.Status.ACTIVE


def test_new_game_after_the_first_move_s_window_ran_out_calls_the_old_game_off_then_starts(alice):
    old = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=1)
    run_out_the_clock(old)
    new = services.rematch_computer(game_id=old.pk, identity=me(alice))
    assert ended_on_time(old) == (Game.Status.ABORTED, "aborted", None)
    assert new.pk != old.pk and new.status == Game.Status.ACTIVE


@pytest.mark.django_db(transaction=True)
def test_undo_charges_the_time_spent_on_the_turn_it_interrupts(alice, monkeypatch):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=5)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    game.refresh_from_db()
    assert game.ply == 2, "the eager computer task answered"
    left, turn_began = game.clock0_ms, game.turn_started_at
    moment = timezone.now() + timedelta(seconds=20)
    monkeypatch.setattr(timezone, "now", lambda: moment)  # Alice thinks 20 s, then takes her move back
    services.undo(game_id=game.pk, identity=me(alice))
    game.refresh_from_db()
    thought_ms = (moment - turn_began) / timedelta(milliseconds=1)  # 20 s and the computer's reply
    assert game.ply == 0 and game.turn_started_at == moment
    assert game.clock0_ms == int(left - thought_ms), "the 20 s of this turn stay spent"
    assert game.remaining_ms(0, now=moment) == game.clock0_ms  # and her clock runs on from there
