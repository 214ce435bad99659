"""Takeback requests between people: ask, accept or decline; one or two moves back; the clocks; the limits."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Game, Move
from tests.people import me

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(user_factory):
    return user_factory("alice"), user_factory("bob")


def live_game(alice, bob, *, minutes: int = 5, increment: int = 0) -> Game:
    created = services.create_human_game(
        identity=me(alice),
        game="reversi",
        kind=Game.Kind.INVITE_LINK,
        side=0,
        minutes=minutes,
        increment=increment,
    )
    return services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)


def opened(game: Game, alice, bob) -> Game:
    """After each side's first move (d3 c5), when the clocks run (docs/decisions.md)."""
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)
    return game


def spend(game: Game, seconds: float) -> None:
    """The side to move has been thinking for ``seconds``."""
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=seconds))


def test_an_accepted_request_takes_back_the_askers_move_and_gives_the_opponent_its_time(players):
    alice, bob = players
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    spend(game, 20)  # bob thinks 20 s, then alice regrets d3
    asked = services.request_takeback(game_id=game.pk, identity=me(alice))
    assert asked.takeback_side == 0
    done = services.answer_takeback(game_id=game.pk, identity=me(bob), accept=True)
    assert (done.ply, done.tokens, done.takeback_side, done.to_move) == (0, [], None, 0)
    assert done.clock1_ms == 300_000, "bob gets back the 20 s he spent"
    assert not Move.objects.filter(game=game).exists()


def test_on_the_askers_turn_the_opponents_reply_goes_too_and_its_clock_is_restored(players):
    alice, bob = players
    game = opened(live_game(alice, bob, increment=2), alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    spend(game, 30)
    services.play_move(game_id=game.pk, identity=me(bob), token="e3", ply=3)
    alice_clock = Game.objects.get(pk=game.pk).clock0_ms
    services.request_takeback(game_id=game.pk, identity=me(alice))
    done = services.answer_takeback(game_id=game.pk, identity=me(bob), accept=True)
    assert (done.ply, done.to_move) == (2, 0)
    assert done.clock1_ms == 300_000, "bob's 30 s (less his increment) come back"
    # Alice keeps the time she used (the turn under way is charged), without d6's increment.
    assert alice_clock - 2_000 - 1_000 <= done.clock0_ms <= alice_clock - 2_000


def test_a_declined_request_changes_nothing_but_the_request(players):
    alice, bob = players
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.request_takeback(game_id=game.pk, identity=me(alice))
    declined = services.answer_takeback(game_id=game.pk, identity=me(bob), accept=False)
    assert (declined.ply, declined.takeback_side) == (1, None)


def test_a_move_lapses_the_request(players):
    alice, bob = players
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.request_takeback(game_id=game.pk, identity=me(alice))
    services.play_move(game_id=game.pk, identity=me(bob), token="c5", ply=1)
    assert Game.objects.get(pk=game.pk).takeback_side is None
    with pytest.raises(services.GameError) as refused:
        services.answer_takeback(game_id=game.pk, identity=me(bob), accept=True)
    assert refused.value.code == "no_takeback"


def test_one_request_per_side_per_four_plies(players):
    alice, bob = players
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.request_takeback(game_id=game.pk, identity=me(alice))
    services.answer_takeback(game_id=game.pk, identity=me(bob), accept=False)
    with pytest.raises(services.GameError) as refused:
        services.request_takeback(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "too_soon"
    for ply, (who, token) in enumerate([(bob, "c5"), (alice, "d6"), (bob, "e3"), (alice, "f4")], start=1):
        services.play_move(game_id=game.pk, identity=me(who), token=token, ply=ply)
    assert services.request_takeback(game_id=game.pk, identity=me(alice)).takeback_side == 0


def test_the_opponent_cannot_answer_its_own_request_nor_ask_twice(players):
    alice, bob = players
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.request_takeback(game_id=game.pk, identity=me(alice))
    with pytest.raises(services.GameError) as own:
        services.answer_takeback(game_id=game.pk, identity=me(alice), accept=True)
    with pytest.raises(services.GameError) as twice:
        services.request_takeback(game_id=game.pk, identity=me(bob))
    assert (own.value.code, twice.value.code) == ("no_takeback", "takeback_pending")


def test_no_request_without_a_move_of_yours(players):
    alice, bob = players
    game = live_game(alice, bob)
    with pytest.raises(services.GameError) as refused:
        services.request_takeback(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "nothing_to_undo"
    assert Game.objects.get(pk=game.pk).takeback_side is None


def test_no_takeback_in_the_last_seconds_of_a_clock(players):
    alice, bob = players
    game = opened(live_game(alice, bob, minutes=1), alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    spend(game, 55)  # bob is down to 5 s
    with pytest.raises(services.GameError) as refused:
        services.request_takeback(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "low_time"
    assert Game.objects.get(pk=game.pk).takeback_side is None


def test_a_request_after_the_clock_ran_out_ends_the_game_on_time_first(players):
    alice, bob = players
    game = opened(live_game(alice, bob, minutes=1), alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d6", ply=2)
    spend(game, 61)
    with pytest.raises(services.GameError) as refused:
        services.request_takeback(game_id=game.pk, identity=me(alice))
    game.refresh_from_db()
    assert refused.value.code == "game_over" and (game.end_reason, game.winner) == ("timeout", 0)


def test_against_the_computer_it_is_undo(user_factory):
    alice = user_factory("alice")
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0)
    with pytest.raises(services.GameError) as refused:
        services.request_takeback(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "no_takeback"


def test_a_player_who_blocked_the_other_is_not_asked_and_nothing_is_stored(players):
    from accounts.services.blocks import block

    alice, bob = players
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    block(by=bob, user=alice)
    with pytest.raises(services.GameError) as refused:
        services.request_takeback(game_id=game.pk, identity=me(alice))
    assert refused.value.code == "no_takeback"
    assert "block" not in refused.value.message.lower()
    assert Game.objects.get(pk=game.pk).takeback_side is None


def test_a_request_ends_with_the_game(players):
    alice, bob = players
    game = live_game(alice, bob)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.request_takeback(game_id=game.pk, identity=me(alice))
    services.resign(game_id=game.pk, identity=me(bob))
    game.refresh_from_db()
    assert (game.status, game.takeback_side) == ("finished", None)
    with pytest.raises(services.GameError) as refused:
        services.answer_takeback(game_id=game.pk, identity=me(bob), accept=True)
    assert refused.value.code == "game_over"
