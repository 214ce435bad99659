"""The shared engine contract, checked the same way for all five games."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import ENGINES, Engine, IllegalMove, get, perft
from games.engines.record import dump_record, parse_record, parse_record_headers
from launch.processes import BASE_DIR


def test_the_engines_import_without_django():
    code = (
        "import sys, games.engines, games.ai; "
        "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=BASE_DIR, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_an_unknown_game_is_a_key_error():
    with pytest.raises(KeyError):
        get("chess")


@pytest.mark.parametrize("slug", sorted(ENGINES))
def test_every_engine_follows_the_contract(slug):
    engine = get(slug)
    assert isinstance(engine, Engine) and engine.slug == slug
    state = engine.initial()
    assert engine.to_move(state) == 0 and engine.outcome(state) is None
    view = engine.view(state)
    json.dumps(view)  # JSON-safe for the pages
    assert {"to_move", "legal_moves", "score", "outcome", "cells"} <= view.keys()
    assert engine.loads(json.loads(json.dumps(engine.dumps(state)))) == state
    assert engine.from_fen(engine.fen(state)) == state
    assert perft(engine, state, 1) == len(engine.legal_moves(state))
    with pytest.raises(IllegalMove):
        engine.play(state, "not-a-move")


@pytest.mark.parametrize("slug", sorted(ENGINES))
def test_a_game_record_round_trips(slug):
    engine = get(slug)
    state, moves = engine.initial(), []
    for _ in range(6):
        move = engine.legal_moves(state)[-1]
        moves.append(move)
        state = engine.play(state, move)
    text = dump_record(engine, moves, {"Player0": 'ali "the" cat', "Result": "*"})
    headers, parsed = parse_record_headers(text)
    assert parsed == parse_record(text) == moves
    assert headers == {"Game": slug, "Player0": 'ali "the" cat', "Result": "*"}


def test_a_record_of_an_illegal_game_is_refused():
    with pytest.raises(IllegalMove):
        dump_record(get("reversi"), ["a1"])


@st.composite
def random_game(draw: st.DrawFn, slug: str) -> list[str]:
    """A game of ``slug`` played with random legal moves, to the end or for up to 120 plies."""
    engine, state, moves = get(slug), get(slug).initial(), []
    while engine.outcome(state) is None and len(moves) < 120:
        legal = engine.legal_moves(state)
        move = legal[draw(st.integers(0, len(legal) - 1))]
        moves.append(move)
        state = engine.play(state, move)
    return moves


@pytest.mark.parametrize("slug", sorted(ENGINES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_games_keep_the_contract_in_every_position(slug, data):
    """Every position of a random game: immutable states, round trips, and only legal tokens accepted."""
    engine = get(slug)
    moves = data.draw(random_game(slug))
    state = engine.initial()
    for move in moves:
        fen = engine.fen(state)
        following = engine.play(state, move)
        assert engine.fen(state) == fen and following != state  # play never changes the state it is given
        assert engine.outcome(state) is None and engine.legal_moves(state)
        state = following
        # A FEN holds the position, not the way to it (Ataxx's history of repetitions).
        assert engine.from_fen(engine.fen(state)) == (
            state._replace(history=()) if hasattr(state, "history") else state
        )
        assert engine.loads(json.loads(json.dumps(engine.dumps(state)))) == state
        assert engine.to_move(state) in (0, 1)
        hash(state)
    assert (engine.outcome(state) is None) == bool(engine.legal_moves(state))
    stranger = data.draw(st.text(max_size=6))
    if stranger in engine.legal_moves(state):
        engine.play(state, stranger)
    else:
        with pytest.raises(IllegalMove):
            engine.play(state, stranger)
