"""The move path's precompiled statements store exactly what the ORM would have stored."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.forms.models import model_to_dict

from accounts.identity import Identity
from games import services
from games.models import Game, Move
from games.store import rows

pytestmark = pytest.mark.django_db


def live_game(user_factory, game: str = "ataxx") -> tuple[Game, Identity, Identity]:
    black, white = (
        Identity(user=user_factory("ann"), guest=None),
        Identity(user=user_factory("ben"), guest=None),
    )
    created = services.create_human_game(identity=black, game=game, kind=Game.Kind.INVITE_LINK, side=0)
    services.join_game(game_id=created.pk, identity=white, token=created.invite_token)
    return Game.objects.get(pk=created.pk), black, white


def everything(game: Game) -> dict:
    return {field.attname: getattr(game, field.attname) for field in Game._meta.concrete_fields}


def test_locked_and_plain_reads_are_the_same_game_the_orm_reads(user_factory):
    game, _, _ = live_game(user_factory)
    with transaction.atomic():
        locked = rows.lock_game(game.pk)
    plain = rows.read_game(game.pk)
    assert everything(locked) == everything(plain) == everything(Game.objects.get(pk=game.pk))
    assert isinstance(locked.state, dict) and locked.turn_started_at.tzinfo is not None
    assert plain.side_name(0) == "ann"  # related players still load on demand


def test_a_missing_game_is_reported_as_missing(db):
    with transaction.atomic(), pytest.raises(Game.DoesNotExist):
        rows.lock_game(987654)
    with pytest.raises(Game.DoesNotExist):
        rows.read_game(987654)


def test_moves_played_through_the_fast_path_survive_a_reload(user_factory):
    game, black, white = live_game(user_factory)
    for ply, identity in enumerate([black, white, black]):
        current = Game.objects.get(pk=game.pk)
        token = current.engine.legal_moves(current.engine_state())[0]
        services.play_move(game_id=game.pk, identity=identity, token=token, ply=ply, client_id=f"c{ply}")
    stored = Game.objects.get(pk=game.pk)
    assert stored.ply == 3 and len(stored.tokens) == 3
    assert list(Move.objects.filter(game=stored).values_list("token", "client_id")) == [
        (token, f"c{ply}") for ply, token in enumerate(stored.tokens)
    ]
    replayed = stored.engine.initial()
    for token in stored.tokens:
        replayed = stored.engine.play(replayed, token)
    assert stored.engine_state() == replayed


def test_only_changed_fields_are_written_and_in_place_edits_count(user_factory):
    game, _, _ = live_game(user_factory)
    with transaction.atomic():
        locked = rows.lock_game(game.pk)
        locked.tokens.append("a1")  # edited in place, not replaced
        locked.clock0_ms = 1234
        # Another field changed behind this copy's back must be left alone.
        Game.objects.filter(pk=game.pk).update(unrated_reason="set elsewhere")
        rows.save_game(locked)
    stored = model_to_dict(Game.objects.get(pk=game.pk))
    assert stored["tokens"] == [*game.tokens, "a1"] and stored["clock0_ms"] == 1234
    assert stored["unrated_reason"] == "set elsewhere"


def test_a_game_built_in_memory_is_saved_the_ordinary_way(user_factory):
    game, _, _ = live_game(user_factory)
    game.end_reason = "test"
    rows.save_game(game)  # not read by lock_game: a plain save
    assert Game.objects.get(pk=game.pk).end_reason == "test"
