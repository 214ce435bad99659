"""A computer player never waits for numba: until its game's core is loaded, it plays pure Python.

A worker starts answering before its cores are compiled (games/ai/preload.py);
every computer move in that window must come from the pure-Python search at its
own budget, without compiling (or even importing) anything on the caller's thread.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import games.ai
from games import engines
from games.ai import COMPILED_BUDGET, DEFAULT_BUDGET, _cores, budget_for, choose_move, compiled_games

BASE_DIR = Path(__file__).resolve().parents[3]


def positions():
    """A position a few moves in, for each game with a core: the search has choices to weigh."""
    for slug in compiled_games():
        engine = engines.get(slug)
        state = engine.initial()
        for ply in range(3):
            state = engine.play(state, engine.legal_moves(state)[ply % 2])
        yield engine, state


@pytest.fixture
def cores_not_ready(monkeypatch):
    """This process as a worker sees it in its first seconds: no core loaded yet, and reaching one fails."""
    monkeypatch.setattr(games.ai, "_ready", set())

    def reached(module: str):
        raise AssertionError(f"choose_move reached the compiled core {module} before it was ready")

    monkeypatch.setattr(_cores, "_import_core", reached)


@pytest.mark.usefixtures("cores_not_ready")
@pytest.mark.parametrize(("engine", "state"), list(positions()), ids=compiled_games())
def test_a_game_whose_core_is_not_ready_gets_a_legal_move_from_the_pure_python_search(engine, state):
    move = choose_move(engine, state, "medium", seed=7)
    assert move in engine.legal_moves(state)
    # ...thinking for the pure-Python search's time, not the compiled one's quarter of it.
    assert budget_for(engine.slug, "hard") == DEFAULT_BUDGET["hard"]


def test_once_warmed_up_the_same_game_searches_compiled_at_the_compiled_budget():
    if not games.ai.core_ready("reversi"):
        pytest.skip("numba is not installed")
    assert budget_for("reversi", "hard") == COMPILED_BUDGET["hard"]
    with _cores.pure_python():  # the switch holds for this thread only, and only inside the block
        assert games.ai.reversi.compiled_core() is None
    assert games.ai.reversi.compiled_core() is not None


def test_a_fresh_process_with_an_empty_cache_answers_every_game_without_touching_numba(tmp_path):
    """What the first computer move in a new release directory used to cost: 28 s of compiling."""
    cache = tmp_path / "numba-cache"
    script = (
        "import json, sys\n"
        "from games import engines\n"
        "from games.ai import choose_move, compiled_games\n"
        "moves = {}\n"
        "for slug in compiled_games():\n"
        "    engine = engines.get(slug)\n"
        "    state = engine.play(engine.initial(), engine.legal_moves(engine.initial())[0])\n"
        "    move = choose_move(engine, state, 'medium', seed=1)\n"
        "    moves[slug] = move in engine.legal_moves(state)\n"
        "print(json.dumps({'legal': moves, 'numba_imported': 'numba' in sys.modules}))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("GAMES_AI_PURE_PYTHON", None)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report == {"legal": dict.fromkeys(compiled_games(), True), "numba_imported": False}
    assert not cache.exists() or not any(cache.iterdir()), "something was compiled into the cache"


def test_in_a_worker_an_analysis_never_reaches_a_core_that_is_not_loaded(monkeypatch):
    """A worker closes the gate (games/ai/preload.py): the reversi solver then runs pure Python."""
    from games.ai.analysis import evaluate

    monkeypatch.setattr(_cores, "_gate_closed", True)
    monkeypatch.setattr(_cores, "loaded", set())

    def reached(module: str):
        raise AssertionError(f"the analysis reached the compiled core {module} before it was loaded")

    monkeypatch.setattr(_cores, "_import_core", reached)
    engine = engines.get("reversi")
    # FFO endgame position 5 after four more moves: exact solving, on the core when it is loaded.
    state = engine.from_fen("-OOOOO----OXXO-XXXOXOXX-XXOXOXXOXXOOXOOOXXXXOO-OX-XOOO---XXXXX-- X")
    for _ in range(4):
        state = engine.play(state, engine.legal_moves(state)[0])
    result = evaluate(engine, state)
    assert result.best in engine.legal_moves(state)
