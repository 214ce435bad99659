"""The compiled Quantum TTT and Four Tac Toe cores agree with the pure-Python engines and searches."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from games.ai import budget_for, choose_move, quantum_ttt_search
from games.ai import four_tac_toe as ftt_ai
from games.ai import quantum_ttt as qttt_ai
from games.ai._cores import pure_python
from games.ai.four_tac_toe_playout import REWARD_SCALE, FourTacToeAdapter
from games.ai.four_tac_toe_tactics import free_cells, ordered_cells
from games.ai.quantum_ttt_eval import evaluate as qttt_evaluate
from games.engines import perft
from games.engines.four_tac_toe import PLAYABLE, FourTacToeEngine, count_lines, play_index
from games.engines.quantum_ttt import QuantumTTTEngine

REPO = Path(__file__).resolve().parents[3]
QTTT = QuantumTTTEngine()
FTT = FourTacToeEngine()
qttt_core = qttt_ai.compiled_core()
ftt_core = ftt_ai.compiled_core()
pytestmark = pytest.mark.skipif(qttt_core is None or ftt_core is None, reason="numba is not installed")


def random_qttt_positions(count: int, seed: int) -> list:
    """Positions from random games, every ply kept (pending collapses and finished games included)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = QTTT.initial()
        found.append(state)
        while QTTT.outcome(state) is None:
            state = QTTT.play(state, rng.choice(QTTT.legal_moves(state)))
            found.append(state)
    return found[:count]


# -- Quantum TTT -------------------------------------------------------------------------------


def test_qttt_perft_matches_the_engine():
    start = qttt_core.state_array(QTTT.initial())
    # The start position's counts (README: 36, 1,296, 45,432, 1,531,656).
    expected = [perft(QTTT, QTTT.initial(), d) for d in range(1, 4)] + [1_531_656]
    assert [qttt_core.perft(start, d) for d in range(1, 5)] == expected
    for state in random_qttt_positions(40, seed=3)[::4]:
        for depth in (1, 2, 3):
            assert qttt_core.perft(qttt_core.state_array(state), depth) == perft(QTTT, state, depth), (
                QTTT.fen(state)
            )


def test_qttt_moves_positions_and_results_match_the_engine_move_by_move_in_random_games():
    rng = random.Random(11)
    out = np.zeros(36, np.int64)
    results = {None: qttt_core.RUNNING, 0: qttt_core.X_WINS, 1: qttt_core.O_WINS}
    finished = 0
    for _ in range(300):
        state = QTTT.initial()
        s = qttt_core.state_array(state)
        while True:
            n = qttt_core.moves(s, out)
            assert [qttt_core.token(int(c)) for c in out[:n]] == QTTT.legal_moves(state)
            assert qttt_core.to_move(s) == QTTT.to_move(state)
            outcome = QTTT.outcome(state)
            expected = results[None] if outcome is None else results[outcome.winner]
            if outcome is not None and outcome.winner is None:
                expected = qttt_core.DRAW
            assert qttt_core.outcome(s) == expected
            if outcome is not None:
                finished += 1
                break
            move = rng.choice(QTTT.legal_moves(state))
            state = QTTT.play(state, move)
            qttt_core.play(s, qttt_core.code_of(move))
            assert qttt_core.to_state(s) == state
    assert finished == 300


def test_qttt_evaluation_matches_the_python_one():
    checked = 0
    for state in random_qttt_positions(400, seed=4):
        if state.pending or QTTT.outcome(state) is not None:
            continue
        s = qttt_core.state_array(state)
        for side in (0, 1):
            assert qttt_core.evaluate(s, side) == qttt_evaluate(state, side), QTTT.fen(state)
        checked += 1
    assert checked > 150


def test_qttt_positions_have_distinct_keys():
    seen: dict[int, object] = {}
    for state in random_qttt_positions(3000, seed=6):
        key = int(qttt_core.position_key(qttt_core.state_array(state)))
        assert seen.setdefault(key, state) == state
    assert len(seen) > 1000


def test_qttt_search_values_match_the_python_search():
    """Same algorithm, same numbers: depth-limited values, and exact results once solved."""
    checked = solved = 0
    for state in random_qttt_positions(200, seed=8)[::5]:
        if QTTT.outcome(state) is not None or len(QTTT.legal_moves(state)) < 2:
            continue
        # Three plies of the Python search take seconds in the opening: two there.
        for depth in (1, 2, 3) if state.move >= 4 else (1, 2):
            order = quantum_ttt_search.order_keys(random.Random(0))
            _, fast, _, _ = qttt_core.search(state, order, depth, time.perf_counter() + 60)
            python = quantum_ttt_search.Searcher(QTTT, time.perf_counter() + 60, random.Random(0))
            python.frontier = False  # the compiled search has no last-ply shortcut (same values, tested)
            _, slow, _ = python.best_move(state, depth)
            if (
                abs(slow) >= quantum_ttt_search.WIN - 100
            ):  # a forced result: its length may differ through the table
                assert (fast > 0) == (slow > 0), QTTT.fen(state)
            else:
                assert fast == slow, (QTTT.fen(state), depth)
            checked += 1
        if state.move < 4:
            continue  # solving the opening takes seconds
        move, value, reached, _ = qttt_core.search(
            state, quantum_ttt_search.order_keys(random.Random(0)), 12, time.perf_counter() + 60
        )
        if reached < 12:
            solved += 1
            child = QTTT.play(state, move)  # the move keeps the solved value
            over = QTTT.outcome(child)
            if over is not None:
                assert np.sign(value) == (
                    0 if over.winner is None else 1 if over.winner == QTTT.to_move(state) else -1
                )
                continue
            _, after, _, _ = qttt_core.search(
                child, quantum_ttt_search.order_keys(random.Random(0)), 12, time.perf_counter() + 60
            )
            same = QTTT.to_move(child) == QTTT.to_move(state)
            assert np.sign(after if same else -after) == np.sign(value), QTTT.fen(state)
    assert checked >= 30 and solved >= 10


def test_qttt_compiled_search_solves_from_the_third_move_within_the_default_budget():
    state = QTTT.play(QTTT.play(QTTT.initial(), "1-5"), "3-7")
    move, value, _, _ = qttt_core.search(
        state, quantum_ttt_search.order_keys(random.Random(0)), 12, time.perf_counter() + 5
    )
    assert value >= quantum_ttt_search.WIN - 100  # X wins by force (the Python search at 1 s sees about +30)
    assert move in QTTT.legal_moves(state)


@pytest.mark.perf
def test_qttt_hard_moves_at_a_quarter_of_the_old_budget():
    assert budget_for("quantum_ttt", "hard") == 0.25
    assert budget_for("quantum_ttt", "medium") == 0.0625
    for state in (QTTT.initial(), QTTT.play(QTTT.initial(), "1-5")):
        started = time.perf_counter()
        assert choose_move(QTTT, state, "hard", seed=1) in QTTT.legal_moves(state)
        assert time.perf_counter() - started < 0.5


# -- Four Tac Toe ------------------------------------------------------------------------------


def arrays_equal(got: tuple, expected: tuple) -> bool:
    """Same marks, line codes, side and score; same threat counts on the empty cells (elsewhere they are stale)."""
    owner, codes, gains, info = got
    empty = owner == ftt_core.EMPTY
    return (
        np.array_equal(owner, expected[0])
        and np.array_equal(codes, expected[1])
        and np.array_equal(gains[:, empty], expected[2][:, empty])
        and np.array_equal(info, expected[3])
    )


def test_ftt_moves_positions_and_scores_match_the_engine_move_by_move_in_random_games():
    rng = random.Random(5)
    out = np.zeros(81, np.int64)
    for _ in range(25):
        state = FTT.initial()
        arrays = ftt_core.state_arrays(state)
        while True:
            n = ftt_core.moves(arrays[0], out)
            assert [ftt_core.rules.CELL_TOKENS[c] for c in out[:n]] == FTT.legal_moves(state)
            assert arrays[3][1] == state.score_x - state.score_o
            if FTT.outcome(state) is not None:
                assert n == 0
                break
            index = rng.choice(free_cells(state))
            state = play_index(state, index)
            ftt_core.play(*arrays, index)
            assert arrays_equal(arrays, ftt_core.state_arrays(state))


def test_ftt_move_order_is_the_python_heuristics():
    rng = random.Random(2)
    out = np.zeros(81, np.int64)
    for _ in range(40):
        state = FTT.initial()
        for _ in range(rng.randrange(0, 79)):
            state = FTT.play(state, rng.choice(FTT.legal_moves(state)))
        owner, codes, _, info = ftt_core.state_arrays(state)
        n = ftt_core.ordered_moves(owner, codes, info[0], out)
        assert out[:n].tolist() == ordered_cells(state)


def test_ftt_playouts_end_with_a_full_board_and_the_right_score():
    rng = random.Random(6)
    for seed in range(30):
        state = FTT.initial()
        for _ in range(rng.randrange(0, 79)):
            state = FTT.play(state, rng.choice(FTT.legal_moves(state)))
        owner, codes, gains, info = ftt_core.state_arrays(state)
        diff = ftt_core.playout(owner, codes, gains, info, np.array([seed + 1], np.uint64))
        x = sum(1 << i for i in range(81) if owner[i] == 1)
        o = sum(1 << i for i in range(81) if owner[i] == 2)
        assert x | o == PLAYABLE and x & state.x == state.x and o & state.o == state.o
        assert diff == count_lines(x) - count_lines(o)


def test_ftt_compiled_search_is_reproducible_and_counts_every_iteration():
    state = FTT.play(FTT.initial(), "a1")
    moves = ordered_cells(state)
    runs = [
        ftt_core.search(
            state,
            moves,
            7,
            deadline=time.perf_counter() + 60,
            iterations=3000,
            exploration=ftt_ai.EXPLORATION,
            widening=ftt_ai.WIDENING,
            scale=REWARD_SCALE,
        )
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    move, iterations, visits = runs[0]
    assert iterations == 3000 and sum(visits.values()) == 3000 and move in moves


@pytest.mark.perf
def test_ftt_compiled_search_runs_far_more_iterations_than_the_python_one():
    state = FTT.play(FTT.initial(), "a1")
    moves = ordered_cells(state)
    cpu = time.process_time()
    _, fast, _ = ftt_core.search(
        state,
        moves,
        1,
        deadline=time.perf_counter() + 0.1,
        iterations=None,
        exploration=ftt_ai.EXPLORATION,
        widening=ftt_ai.WIDENING,
        scale=REWARD_SCALE,
    )
    fast_rate = fast / (time.process_time() - cpu)
    cpu = time.process_time()
    slow = ftt_ai.search(
        FourTacToeAdapter(state),
        state,
        random.Random(1),
        deadline=time.perf_counter() + 0.1,
        exploration=ftt_ai.EXPLORATION,
        widening=ftt_ai.WIDENING,
        root_moves=moves,
    ).iterations
    slow_rate = slow / (time.process_time() - cpu)
    assert fast_rate > 6 * slow_rate  # measured: about 13 times


@pytest.mark.perf
def test_ftt_hard_moves_at_a_quarter_of_the_old_budget():
    assert budget_for("four_tac_toe", "hard") == 0.25
    state = FTT.play(FTT.initial(), "a1")
    started = time.perf_counter()
    assert choose_move(FTT, state, "hard", seed=1) in FTT.legal_moves(state)
    assert time.perf_counter() - started < 0.5


# -- Both --------------------------------------------------------------------------------------


def test_the_pure_python_switch_turns_the_cores_off_for_a_block():
    with pure_python():
        assert qttt_ai.compiled_core() is None and ftt_ai.compiled_core() is None
        assert budget_for("quantum_ttt", "hard") == 1.0 and budget_for("four_tac_toe", "hard") == 1.0
    assert qttt_ai.compiled_core() is qttt_core and ftt_ai.compiled_core() is ftt_core


def test_without_numba_both_games_play_their_pure_python_search_at_the_old_budgets():
    script = (
        "from games.ai import budget_for, choose_move, warm_up\n"
        "from games.ai import four_tac_toe, quantum_ttt\n"
        "from games.engines import ENGINES\n"
        "assert warm_up() == {}\n"
        "for slug, module in (('quantum_ttt', quantum_ttt), ('four_tac_toe', four_tac_toe)):\n"
        "    assert module.compiled_core() is None\n"
        "    assert budget_for(slug, 'hard') == 1.0\n"
        "    e = ENGINES[slug]\n"
        "    print(choose_move(e, e.initial(), 'hard', seed=1, time_budget=0.1))\n"
    )
    env = {**os.environ, "GAMES_AI_PURE_PYTHON": "1"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    quantum, four = result.stdout.split()
    assert quantum in QTTT.legal_moves(QTTT.initial()) and four in FTT.legal_moves(FTT.initial())
