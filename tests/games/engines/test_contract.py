"""The shared engine contract, checked the same way for all five games."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from config.launcher import BASE_DIR
from games.engines import ENGINES, Engine, IllegalMove, get, perft
from games.engines.record import dump_record, parse_record, parse_record_headers


def test_the_engines_import_without_django():
    code = (
        "import sys, games.engines, games.ai; "
        "print(sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, capture_output=True, text=True, check=True)
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
