"""The Play API's commands in-process: scopes and accounts, and refusals that change nothing (docs/api.md)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.identity import Identity
from games import services
from games.models import Game


@pytest.fixture
def robo(user_factory):
    user = user_factory("robo")
    user.is_bot = True
    user.save(update_fields=["is_bot"])
    return user


def post(path: str, token: str, **data):
    return Client().post(path, data=data, headers={"Authorization": f"Bearer {token}"})


@pytest.fixture
def started(alice, bob):
    """A 5+0 reversi game, alice first, made as a challenge and accepted."""
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.DIRECT, side=0, invited_user=bob
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None))
    return Game.objects.get(pk=game.pk)


def snapshot(game_id: int) -> tuple:
    game = Game.objects.get(pk=game_id)
    return game.version, game.ply, game.status, game.draw_offer_side, game.takeback_side


def test_each_family_of_endpoints_takes_its_scope_and_its_kind_of_account(token_for, alice, robo, started):
    read_only, board, bot_token = (
        token_for(alice, "read"),
        token_for(alice, "board:play"),
        token_for(robo, "bot:play"),
    )
    refused = post("/api/challenge/bob", read_only, game="reversi", **{"clock.limit": 300})
    assert refused.status_code == 403
    assert refused.json()["token_scopes"] == ["read"]
    # A person's board token on the bot endpoints, a bot on the board endpoints: 403, nothing played.
    assert post(f"/api/bot/game/{started.pk}/move/d3", board).status_code == 403
    assert post(f"/api/board/game/{started.pk}/move/d3", bot_token).status_code == 403
    bot_scope_on_a_person = post(f"/api/bot/game/{started.pk}/move/d3", token_for(alice, "bot:play"))
    assert bot_scope_on_a_person.status_code == 403
    assert "BOT accounts" in bot_scope_on_a_person.json()["error"]
    assert Game.objects.get(pk=started.pk).ply == 0
    assert post(f"/api/board/game/{started.pk}/move/d3", board).status_code == 200
    assert Game.objects.get(pk=started.pk).tokens == ["d3"]


def test_refused_commands_say_why_and_change_nothing(token_for, alice, bob, carol, started):
    a, b, c = (token_for(user, "board:play") for user in (alice, bob, carol))
    before = snapshot(started.pk)
    cases = [
        (post(f"/api/board/game/{started.pk}/move/d3", b), 400, "not_your_turn"),
        (post(f"/api/board/game/{started.pk}/move/a1", a), 400, "illegal"),
        (post(f"/api/board/game/{started.pk}/move/d3", c), 404, "not_found"),  # not carol's game
        (post(f"/api/board/game/{started.pk}/draw/no", b), 400, "no_offer"),
        (post(f"/api/board/game/{started.pk}/takeback/yes", b), 400, "nothing_to_undo"),
    ]
    for answer, status, code in cases:
        assert (answer.status_code, answer.json()["code"]) == (status, code), answer.json()
        assert answer.json()["error"]
    assert snapshot(started.pk) == before


def test_draws_takebacks_abort_and_resign_go_through_the_services(token_for, alice, bob, started):
    a, b = token_for(alice, "board:play"), token_for(bob, "board:play")
    game = f"/api/board/game/{started.pk}"
    assert post(f"{game}/move/d3", a).status_code == 200
    assert post(f"{game}/draw/yes", b).status_code == 200  # an offer
    assert Game.objects.get(pk=started.pk).draw_offer_side == 1
    assert post(f"{game}/draw/no", a).status_code == 200  # declined
    assert Game.objects.get(pk=started.pk).draw_offer_side is None
    assert post(f"{game}/draw/yes", b).json()["code"] == "too_soon"  # the socket's cool-down
    assert post(f"{game}/move/c5", b).status_code == 200
    assert post(f"{game}/takeback/yes", b).status_code == 200  # bob asks to take c5 back
    assert post(f"{game}/takeback/yes", a).status_code == 200  # alice accepts
    assert Game.objects.get(pk=started.pk).tokens == ["d3"]
    assert post(f"{game}/abort", a).status_code == 200  # before each side has moved
    ended = Game.objects.get(pk=started.pk)
    assert (ended.status, ended.end_reason) == (Game.Status.ABORTED, "aborted")
    assert post(f"{game}/resign", a).json()["code"] == "game_over"


def test_a_move_for_a_ply_that_has_passed_is_stale(token_for, alice, started):
    a = token_for(alice, "board:play")
    answer = post(f"/api/board/game/{started.pk}/move/d3?ply=3", a)
    assert answer.status_code == 400
    assert Game.objects.get(pk=started.pk).ply == 0


def test_only_an_account_that_never_played_becomes_a_bot_and_for_good(
    token_for, alice, user_factory, started
):
    played = post("/api/bot/account/upgrade", token_for(alice, "bot:play"))
    assert played.status_code == 400 and "never played" in played.json()["error"]
    fresh = user_factory("newbot")
    token = token_for(fresh, "bot:play")
    assert post("/api/bot/account/upgrade", token).status_code == 200
    fresh.refresh_from_db()
    assert fresh.is_bot
    assert post("/api/bot/account/upgrade", token).status_code == 400
    assert post("/api/bot/account/upgrade", token_for(user_factory("other"), "board:play")).status_code == 403


def test_a_challenge_needs_a_clock_or_days_and_a_real_player(token_for, alice):
    token = token_for(alice, "challenge")
    assert post("/api/challenge/nobody", token, game="reversi", **{"clock.limit": 300}).status_code == 404
    assert (
        post("/api/challenge/alice", token, game="reversi", **{"clock.limit": 300}).json()["code"]
        == "bad_invitee"
    )
    assert post("/api/challenge/alice", token, game="reversi").status_code == 400
    assert post("/api/challenge/alice", token, game="chess", **{"clock.limit": 300}).status_code == 400
    assert not Game.objects.exists()
