"""Every way a game can end reaches ratings at once, so the minute-long backstop finds nothing.

The backstop (``ratings.tasks.apply_missing_ratings``) exists for a lost task or a
broker outage; on a quiet site it must never have work. Each test ends a game one
way, with tasks running in-process as a worker would run them right after commit.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import services
from games.models import Game
from games.signals import game_finished
from ratings.models import AppliedGame
from ratings.services import games_missing_ratings
from tests.people import me

pytestmark = pytest.mark.django_db(transaction=True)

WIPEOUT_IN_ONE = "7/3o3/3oo2/2x3x/7/7/x6 x 0 1"  # Ataxx: c4e6 takes White's last pieces


@pytest.fixture
def announced():
    """The ids game_finished was sent for, each checked to be sent outside any transaction."""
    seen: list[int] = []

    def receiver(sender, *, game_id: int, **kwargs) -> None:
        assert not connection.in_atomic_block, "game_finished sent before its transaction committed"
        seen.append(game_id)

    game_finished.connect(receiver, weak=False, dispatch_uid="test_every_ending")
    yield seen
    game_finished.disconnect(dispatch_uid="test_every_ending")


def later(monkeypatch, **delta) -> None:
    moment = timezone.now() + timedelta(**delta)
    monkeypatch.setattr(timezone, "now", lambda: moment)


def live_game(alice, bob, *, minutes: int = 5) -> Game:
    created = services.create_human_game(
        identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=minutes
    )
    return services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)


def end_on_the_board(alice, bob, monkeypatch):
    game = services.create_computer_game(
        identity=me(alice), game="ataxx", level="easy", side=0, start_fen=WIPEOUT_IN_ONE
    )
    services.play_move(game_id=game.pk, identity=me(alice), token="c4e6", ply=game.ply)
    return game


def resign(alice, bob, monkeypatch):
    game = live_game(alice, bob)
    services.resign(game_id=game.pk, identity=me(bob))
    return game


def exit_mid_game(alice, bob, monkeypatch):
    game = live_game(alice, bob)
    services.resign(game_id=game.pk, identity=me(alice), reason="exit")
    return game


def resign_before_the_first_move(alice, bob, monkeypatch):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=5)
    services.resign(game_id=game.pk, identity=me(alice))
    return game


def flag_task(alice, bob, monkeypatch):
    game = live_game(alice, bob, minutes=1)
    later(monkeypatch, seconds=61)
    services.flag(game.pk)
    return game


def flag_by_the_sweep(alice, bob, monkeypatch):
    game = live_game(alice, bob, minutes=1)
    later(monkeypatch, seconds=61)
    services.attend_overdue()
    return game


def agreed_draw(alice, bob, monkeypatch):
    game = live_game(alice, bob)
    services.offer_draw(game_id=game.pk, identity=me(alice))
    services.answer_draw(game_id=game.pk, identity=me(bob), accept=True)
    return game


def abort(alice, bob, monkeypatch):
    game = live_game(alice, bob)
    services.abort(game_id=game.pk, identity=me(alice))
    return game


def abandon(alice, bob, monkeypatch):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=1, minutes=0)
    services.abandon_computer_game(game_id=game.pk, identity=me(alice))
    return game


def new_game_resigns(alice, bob, monkeypatch):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0, minutes=5)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)  # the computer replies
    services.rematch_computer(game_id=game.pk, identity=me(alice))
    return game


def new_game_aborts(alice, bob, monkeypatch):
    game = services.create_computer_game(identity=me(alice), game="ataxx", level="easy", side=0, minutes=0)
    services.rematch_computer(game_id=game.pk, identity=me(alice))
    return game


def idle_computer_game_expires(alice, bob, monkeypatch):
    game = services.create_computer_game(identity=me(alice), game="reversi", level="easy", side=0)
    later(monkeypatch, days=31)
    services.attend_overdue()
    return game


def invitation_declined(alice, bob, monkeypatch):
    game = services.create_human_game(
        identity=me(alice), game="ataxx", kind=Game.Kind.DIRECT, side=0, invited_user=bob
    )
    services.decline_invitation(game_id=game.pk, identity=me(bob))
    return game


def challenge_withdrawn(alice, bob, monkeypatch):
    game = services.create_human_game(identity=me(alice), game="ataxx", kind=Game.Kind.LOBBY)
    services.cancel_waiting_game(game_id=game.pk, identity=me(alice))
    return game


def challenge_expires(alice, bob, monkeypatch):
    game = services.create_human_game(identity=me(alice), game="ataxx", kind=Game.Kind.LOBBY)
    later(monkeypatch, hours=25)
    services.attend_overdue()
    return game


ENDINGS = [
    end_on_the_board,
    resign,
    exit_mid_game,
    resign_before_the_first_move,
    flag_task,
    flag_by_the_sweep,
    agreed_draw,
    abort,
    abandon,
    new_game_resigns,
    new_game_aborts,
    idle_computer_game_expires,
    invitation_declined,
    challenge_withdrawn,
    challenge_expires,
]


@pytest.mark.parametrize("end", ENDINGS, ids=[end.__name__ for end in ENDINGS])
def test_a_game_that_ends_reaches_ratings_at_once_and_leaves_the_backstop_nothing(
    end, user_factory, announced, monkeypatch
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = end(alice, bob, monkeypatch)

    game.refresh_from_db()
    assert game.is_over
    assert announced.count(game.pk) == 1
    assert AppliedGame.objects.filter(game=game).exists()
    monkeypatch.undo()
    assert games_missing_ratings(older_than=timedelta(0)) == []
