"""The compiled Ataxx and Ultimate TTT cores agree with the pure-Python engines and searches."""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pytest

from games.ai import ataxx as ataxx_ai
from games.ai import budget_for, choose_move
from games.ai import ultimate_ttt as uttt_ai
from games.engines.ataxx import FULL as ATAXX_FULL
from games.engines.ataxx import NEIGHBOURS as ATAXX_NEIGHBOURS
from games.engines.ataxx import AtaxxEngine
from games.engines.ataxx import apply as ataxx_apply
from games.engines.ataxx import dilate as ataxx_dilate
from games.engines.ataxx import game_over as ataxx_game_over
from games.engines.ataxx_perft import generate, perft_bitboards
from games.engines.ultimate_ttt import UltimateTTTEngine, play_index
from tests.data import DATA

ataxx_core = ataxx_ai.compiled_core()
uttt_core = uttt_ai.compiled_core()
pytestmark = pytest.mark.skipif(ataxx_core is None or uttt_core is None, reason="numba is not installed")


def perft_suite(name: str) -> list[tuple[str, list[int]]]:
    suite = []
    for line in (DATA / name).read_text().splitlines():
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


def ataxx_random_positions(seed: int, games: int) -> list[tuple[int, int]]:
    """(me, opp) of every position of ``games`` random games (clones mostly, as in real play)."""
    engine = AtaxxEngine()
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        state = engine.initial()
        while engine.outcome(state) is None:
            positions.append(state.mover())
            moves = engine.legal_moves(state)
            clones = [m for m in moves if len(m) == 2]
            state = engine.play(state, rng.choice(clones if clones and rng.random() < 0.8 else moves))
    return positions


def test_ataxx_moves_and_positions_match_the_engine_move_by_move_in_random_games():
    out = np.zeros(ataxx_core.MAX_MOVES, np.int64)
    positions = ataxx_random_positions(seed=2, games=12)
    assert len(positions) > 500
    for me, opp in positions:
        n = ataxx_core.generate(ataxx_core.U(me), ataxx_core.U(opp), out)
        expected = generate(me, opp)
        assert [(code >> 6, code & 63) for code in out[:n]] == expected
        assert ataxx_core.perft(ataxx_core.U(me), ataxx_core.U(opp), 1) == (len(expected) or 1)
        for frm, to in expected:
            nxt, mine = ataxx_core.play(ataxx_core.U(me), ataxx_core.U(opp), frm * 64 + to)
            assert (int(nxt), int(mine)) == ataxx_apply(me, opp, frm, to)
    assert perft_bitboards(*AtaxxEngine().initial().mover(), 3) == 6460


EDGE_SQUARES = [sq for sq in range(49) if sq % 7 in (0, 6) or sq // 7 in (0, 6)]


def ataxx_reference_evaluation(me: int, opp: int) -> int:
    """The compiled evaluation, written out on the rules engine's own functions."""
    piece, gain_share, exposed_cost, edge_bonus = (int(w) for w in ataxx_core.PARAMS)
    empty = ATAXX_FULL ^ (me | opp)
    exposed = ataxx_dilate(empty)
    edge = sum(1 << sq for sq in EDGE_SQUARES)
    value = piece * (me.bit_count() - opp.bit_count())
    value -= exposed_cost * ((me & exposed).bit_count() - (opp & exposed).bit_count())
    value += edge_bonus * ((me & edge).bit_count() - (opp & edge).bit_count())
    gains = [2 * (ATAXX_NEIGHBOURS[to] & opp).bit_count() + (frm == to) for frm, to in generate(me, opp)]
    return value + gain_share * max(gains, default=0) * piece // 100


def ataxx_reference_value(me: int, opp: int, depth: int, ply: int, alpha: float, beta: float) -> int:
    """Plain alpha-beta (exact at the root with the full window) on the rules engine."""
    if ataxx_game_over(me, opp):
        diff = me.bit_count() - opp.bit_count()
        return 0 if diff == 0 else (ataxx_core.WIN - ply if diff > 0 else -ataxx_core.WIN + ply)
    if depth == 0:
        return ataxx_reference_evaluation(me, opp)
    moves = generate(me, opp)
    if not moves:
        return -ataxx_reference_value(opp, me, depth - 1, ply + 1, -beta, -alpha)
    best = -math.inf
    for frm, to in moves:
        best = max(
            best, -ataxx_reference_value(*ataxx_apply(me, opp, frm, to), depth - 1, ply + 1, -beta, -alpha)
        )
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return int(best)


def test_ataxx_evaluation_matches_the_reference_in_random_games():
    for me, opp in ataxx_random_positions(seed=3, games=6):
        assert ataxx_core.evaluate(ataxx_core.U(me), ataxx_core.U(opp), ataxx_core.PARAMS) == (
            ataxx_reference_evaluation(me, opp)
        )


def test_ataxx_full_width_search_values_match_a_plain_alpha_beta_in_random_games():
    """Without its selectivity the compiled search (PVS, table, ordering) is exact: same values."""
    rng = random.Random(4)
    positions = rng.sample(ataxx_random_positions(seed=4, games=6), 60)
    for me, opp in positions:
        moves = generate(me, opp)
        if not moves:
            continue
        depth = 3 if len(moves) < 30 else rng.randint(1, 2)
        searcher = ataxx_core.Searcher(time.perf_counter() + 60, selective=False)
        code = searcher.best_move(
            me, opp, [frm * 64 + to for frm, to in moves], depth, time.perf_counter() + 60
        )
        expected = ataxx_reference_value(me, opp, depth, 0, -math.inf, math.inf)
        assert searcher.value == expected
        # The move chosen is worth that much.
        after = ataxx_apply(me, opp, code >> 6, code & 63)
        assert -ataxx_reference_value(*after, depth - 1, 1, -math.inf, math.inf) == expected


def test_ataxx_selective_search_cut_short_by_its_deadline_keeps_a_legal_move():
    me, opp = ataxx_random_positions(seed=6, games=1)[30]
    codes = [frm * 64 + to for frm, to in generate(me, opp)]
    searcher = ataxx_core.Searcher(time.perf_counter() + 0.05)
    code = searcher.best_move(me, opp, codes, 60, time.perf_counter() + 0.05)
    # How deep it got in 50 ms depends on the machine's load (depth 2 at load 20): only that it was cut short.
    assert code in codes and 1 <= searcher.depth_reached < 60


@pytest.mark.perf
def test_ataxx_selective_search_stops_on_the_deadline():
    me, opp = ataxx_random_positions(seed=6, games=1)[30]
    codes = [frm * 64 + to for frm, to in generate(me, opp)]
    searcher = ataxx_core.Searcher(time.perf_counter() + 0.05)
    started = time.perf_counter()
    searcher.best_move(me, opp, codes, 60, time.perf_counter() + 0.05)
    assert time.perf_counter() - started < 0.1


@pytest.mark.perf
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


@pytest.mark.perf
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


@pytest.mark.perf
def test_after_the_warm_up_a_full_garbage_collection_is_short_again():
    """numba's objects would make every full collection (a pause inside a timed search) slow."""
    import gc

    from games.ai import warm_up

    warm_up()
    started = time.perf_counter()
    gc.collect()
    assert time.perf_counter() - started < 0.02  # measured: about 40 ms without the freeze, 1 ms with it
