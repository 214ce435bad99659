"""'Play from here': a game against the computer from any position of a finished game."""

from __future__ import annotations

import random

import pytest
from django.test import Client

from accounts.identity import Identity
from games import services
from games.engines import get
from games.engines.base import replay
from games.engines.record import parse_record_headers
from games.models import Analysis, Game
from games.services import analysis
from tests.games.test_analysis import SHORT_REVERSI, finished_game

REVERSI = get("reversi")


@pytest.fixture
def no_tasks(monkeypatch):
    """Computer moves the service queues (after commit), instead of a broker."""
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(
        "games.tasks.computer_move.apply_async", lambda args, **options: sent.append(tuple(args))
    )
    monkeypatch.setattr("games.tasks.analyse_game.apply_async", lambda *args, **kwargs: None)
    return sent


@pytest.mark.django_db
def test_a_new_game_starts_from_the_position_shown(
    user_factory, no_tasks, django_capture_on_commit_callbacks
):
    ann = user_factory()
    old = finished_game(user=ann)
    expected = replay(REVERSI, SHORT_REVERSI[:4])
    with django_capture_on_commit_callbacks(execute=True):
        new = analysis.play_from_here(
            game_id=old.pk, ply=4, identity=Identity(ann, None), level="easy", side=0
        )
    assert new.status == Game.Status.ACTIVE and new.kind == Game.Kind.COMPUTER and new.ai1 == "easy"
    assert new.start_fen == REVERSI.fen(expected)
    assert new.engine_state() == expected and new.tokens == [] and new.ply == 0
    assert no_tasks == []  # black (ann) moves first here: the computer waits
    # From white's turn with ann as black, the computer moves at once.
    with django_capture_on_commit_callbacks(execute=True):
        other = analysis.play_from_here(
            game_id=old.pk, ply=3, identity=Identity(ann, None), level="hard", side=0
        )
    assert REVERSI.to_move(other.engine_state()) == 1 and no_tasks == [(other.pk, 0)]


@pytest.mark.django_db
def test_moves_undo_replay_record_and_analysis_all_start_from_that_position(user_factory, no_tasks):
    ann = user_factory()
    old = finished_game(user=ann)
    new = analysis.play_from_here(game_id=old.pk, ply=2, identity=Identity(ann, None), level="easy", side=0)
    start = replay(REVERSI, SHORT_REVERSI[:2])
    move = REVERSI.legal_moves(start)[0]
    services.play_move(game_id=new.pk, identity=Identity(ann, None), token=move, ply=0)
    services.computer_move_for(new.pk, 1)
    assert Game.objects.get(pk=new.pk).ply == 2
    services.undo(game_id=new.pk, identity=Identity(ann, None))
    assert Game.objects.get(pk=new.pk).engine_state() == start  # back to the position it started from
    services.redo(game_id=new.pk, identity=Identity(ann, None))
    services.resign(game_id=new.pk, identity=Identity(ann, None))
    client = Client()
    client.force_login(ann)
    assert client.get(f"/play/{new.pk}/replay/").status_code == 200
    headers, moves = parse_record_headers(client.get(f"/play/{new.pk}/record.txt").content.decode())
    assert headers["FEN"] == REVERSI.fen(start) and moves == Game.objects.get(pk=new.pk).tokens
    pending = analysis.request_analysis(game_id=new.pk, identity=Identity(ann, None))
    assert analysis.run_analysis(pending.pk)
    assert [j["move"] for j in Analysis.objects.get(pk=pending.pk).judgements] == moves


@pytest.mark.django_db
def test_play_from_here_refuses_games_in_play_bad_plies_and_finished_positions(user_factory, no_tasks):
    ann = user_factory()
    identity = Identity(ann, None)
    live = finished_game(tokens=SHORT_REVERSI[:4], user=ann, status=Game.Status.ACTIVE)
    with pytest.raises(analysis.AnalysisRefused, match="once the game is over"):
        analysis.play_from_here(game_id=live.pk, ply=2, identity=identity, level="easy", side=0)
    old = finished_game(user=ann)
    with pytest.raises(analysis.AnalysisRefused, match="no move 12"):
        analysis.play_from_here(game_id=old.pk, ply=12, identity=identity, level="easy", side=0)
    with pytest.raises(analysis.AnalysisRefused, match="already over"):
        analysis.play_from_here(
            game_id=old.pk, ply=len(SHORT_REVERSI), identity=identity, level="easy", side=0
        )
    with pytest.raises(analysis.AnalysisRefused, match="Easy, Medium or Hard"):
        analysis.play_from_here(game_id=old.pk, ply=1, identity=identity, level="expert", side=0)
    assert Game.objects.count() == 2


@pytest.mark.django_db
def test_the_replay_form_starts_the_game_and_refusals_come_back_to_the_replay(user_factory, no_tasks):
    ann = user_factory()
    old = finished_game(user=ann)
    client = Client()
    client.force_login(ann)
    page = client.get(f"/play/{old.pk}/replay/").content.decode()
    assert f'action="/play/{old.pk}/from/"' in page
    response = client.post(f"/play/{old.pk}/from/", {"ply": "5", "level": "medium", "side": "1"})
    new = Game.objects.exclude(pk=old.pk).get()
    assert response.status_code == 302 and response["Location"] == new.get_absolute_url()
    assert (
        new.user1 == ann
        and new.ai0 == "medium"
        and new.start_fen == REVERSI.fen(replay(REVERSI, SHORT_REVERSI[:5]))
    )
    refused = client.post(f"/play/{old.pk}/from/", {"ply": "x", "level": "medium", "side": "1"}, follow=True)
    assert b"Choose a move and a side." in refused.content and Game.objects.count() == 2
    assert (
        client.post(f"/play/{old.pk}/from/", {"ply": "99", "level": "easy", "side": "0"}).status_code == 302
    )
    assert client.post("/play/999999/from/", {"ply": "1", "level": "easy", "side": "0"}).status_code == 404
    assert Game.objects.count() == 2


@pytest.mark.parametrize("slug", ["reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"])
def test_every_games_positions_fit_the_stored_fen(slug):
    engine = get(slug)
    rng = random.Random(7)
    longest = len(engine.fen(engine.initial()))
    state, plies = engine.initial(), 0
    while engine.outcome(state) is None and plies < 300:  # the FEN grows with the marks on the board
        state = engine.play(state, rng.choice(engine.legal_moves(state)))
        longest = max(longest, len(engine.fen(state)))
        plies += 1
    assert longest <= Game._meta.get_field("start_fen").max_length
