"""The compiled Ataxx and Ultimate TTT cores agree with the pure-Python engines and searches."""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np
import pytest

from games.ai import ataxx as ataxx_ai
from games.ai import budget_for, choose_move
from games.ai import ultimate_ttt as uttt_ai
from games.engines.ataxx import AtaxxEngine, generate, perft_bitboards
from games.engines.ultimate_ttt import UltimateTTTEngine, play_index

TESTDATA = Path(__file__).resolve().parents[4] / "shared" / "testdata"
ataxx_core = ataxx_ai.compiled_core()
uttt_core = uttt_ai.compiled_core()
pytestmark = pytest.mark.skipif(ataxx_core is None or uttt_core is None, reason="numba is not installed")


def perft_suite(name: str) -> list[tuple[str, list[int]]]:
    suite = []
    for line in (TESTDATA / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fen, _, counts = line.partition(";")
            suite.append((fen.strip(), [int(c) for c in counts.split()]))
    return suite


# -- Ataxx -------------------------------------------------------------------------------------


def test_ataxx_perft_matches_the_published_counts():
    engine = AtaxxEngine()
    for fen, counts in perft_suite("ataxx_perft.txt"):
        me, opp = engine.from_fen(fen).mover()
        for depth, expected in enumerate(counts[:5], start=1):
            got = ataxx_core.perft(ataxx_core.U(me), ataxx_core.U(opp), depth)
            assert got == expected, f"{fen} depth {depth}"


def test_ataxx_search_values_match_the_pure_python_search_in_random_games():
    """Same algorithm, same numbers: the compiled negamax gives the Python one's value at depth 1-3."""
    engine = AtaxxEngine()
    rng = random.Random(2)
    checked = 0
    for _ in range(6):
        state = engine.initial()
        while engine.outcome(state) is None and checked < 200:
            me, opp = state.mover()
            # Move generation, as the engine lists it, by perft at depth 1.
            assert ataxx_core.perft(ataxx_core.U(me), ataxx_core.U(opp), 1) == (len(generate(me, opp)) or 1)
            if len(generate(me, opp)) and rng.random() < 0.3:
                depth = rng.randint(1, 3)
                fast = ataxx_ai.Search(time.perf_counter() + 60)
                pure = ataxx_ai.Search(time.perf_counter() + 60)
                pure.fast = None
                window = (-ataxx_ai.WIN - 1, ataxx_ai.WIN + 1)
                assert fast._negamax(me, opp, depth, *window, 0) == pure._negamax(me, opp, depth, *window, 0)
                checked += 1
            state = engine.play(state, rng.choice(engine.legal_moves(state)))
    assert checked >= 50
    assert perft_bitboards(*AtaxxEngine().initial().mover(), 3) == 6460


def test_ataxx_hard_moves_at_a_quarter_of_the_old_budget():
    assert budget_for("ataxx", "hard") == 0.25
    engine = AtaxxEngine()
    state = engine.from_fen("x5o/7/7/7/7/7/o5x x 0 1")
    started = time.perf_counter()
    assert choose_move(engine, state, "hard", seed=1) in engine.legal_moves(state)
    assert time.perf_counter() - started < 0.5


# -- Ultimate TTT ------------------------------------------------------------------------------


def test_uttt_perft_matches_the_published_counts():
    engine = UltimateTTTEngine()
    for fen, counts in perft_suite("ultimate_ttt_perft.txt"):
        boards, won = uttt_core.state_arrays(engine.from_fen(fen))
        for depth, expected in enumerate(counts[:4], start=1):
            scratch = np.zeros((depth + 1, 81), np.int64)
            assert uttt_core.perft(boards, won, depth, scratch) == expected, f"{fen} depth {depth}"


def test_uttt_moves_and_positions_match_the_engine_move_by_move_in_random_games():
    engine = UltimateTTTEngine()
    rng = random.Random(5)
    out = np.zeros(81, np.int64)
    for _ in range(40):
        state = engine.initial()
        boards, won = uttt_core.state_arrays(state)
        while True:
            n = uttt_core.moves(boards, won, out)
            assert sorted(out[:n].tolist()) == sorted(uttt_ai.legal_indexes(state))
            if engine.outcome(state) is not None:
                assert n == 0
                break
            index = rng.choice(uttt_ai.legal_indexes(state))
            state = play_index(state, index)
            uttt_core.play(boards, won, index)
            expected_boards, expected_won = uttt_core.state_arrays(state)
            assert boards.tolist() == expected_boards.tolist() and won.tolist() == expected_won.tolist()


def test_uttt_compiled_search_is_reproducible_and_counts_every_iteration():
    state = play_index(UltimateTTTEngine().initial(), 40)
    moves = uttt_ai.legal_indexes(state)
    runs = [
        uttt_core.search(state, moves, 7, deadline=time.perf_counter() + 60, iterations=3000)
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    move, iterations, visits = runs[0]
    assert iterations == 3000 and sum(visits.values()) == 3000 and move in moves


def test_uttt_compiled_search_runs_far_more_iterations_than_the_python_one():
    from games.ai.mcts import search

    state = play_index(UltimateTTTEngine().initial(), 40)
    moves = uttt_ai.legal_indexes(state)
    cpu = time.process_time()
    _, fast, _ = uttt_core.search(state, moves, 1, deadline=time.perf_counter() + 0.1, iterations=None)
    fast_rate = fast / (time.process_time() - cpu)
    cpu = time.process_time()
    slow = search(uttt_ai.UTTTAdapter, state, random.Random(1), deadline=time.perf_counter() + 0.1).iterations
    slow_rate = slow / (time.process_time() - cpu)
    assert fast_rate > 10 * slow_rate  # measured: about 20 times


def test_after_the_warm_up_a_full_garbage_collection_is_short_again():
    """numba's objects would make every full collection (a pause inside a timed search) slow."""
    import gc

    from games.ai import warm_up

    warm_up()
    started = time.perf_counter()
    gc.collect()
    assert time.perf_counter() - started < 0.02  # measured: about 40 ms without the freeze, 1 ms with it
