"""The Ataxx computer player: legal, reproducible, on time, and not blind."""

from __future__ import annotations

import random
import time

import pytest

from games.ai import ataxx as ataxx_ai
from games.ai import choose_move
from games.engines.ataxx import AtaxxEngine, AtaxxState

ENGINE = AtaxxEngine()
LEVELS = ("easy", "medium", "hard")
PASS_ONLY = "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1"
# x to move; every move but d5 lets o capture all of x's pieces at once (c4e3 looks best).
ONLY_D5_SURVIVES = "7/7/7/2xo1o1/6o/7/4o1o x 0 1"
# x to move; every move but f3 loses every x piece to o's reply.
ONLY_F3_SURVIVES = "3o3/7/7/1oo1o2/1o1o3/6x/o6 x 0 1"
# x to move; a jump to e6 (from c4 or g4) takes all three o pieces.
WIPEOUT_IN_ONE = "7/3o3/3oo2/2x3x/7/7/x6 x 0 1"


def random_positions(count: int, seed: int) -> list[AtaxxState]:
    """Positions from random games, from the opening to near the end."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        state = ENGINE.initial()
        for _ in range(rng.randrange(0, 80)):
            moves = ENGINE.legal_moves(state)
            if not moves:
                break
            clones = [m for m in moves if len(m) == 2]
            state = ENGINE.play(state, rng.choice(clones if clones and rng.random() < 0.8 else moves))
        if ENGINE.outcome(state) is None:
            positions.append(state)
    return positions


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_only_plays_legal_moves(level):
    for i, state in enumerate(random_positions(25, seed=11)):
        move = choose_move(ENGINE, state, level, seed=i, time_budget=0.03)
        assert move in ENGINE.legal_moves(state)


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_passes_when_0000_is_the_only_move(level):
    state = ENGINE.from_fen(PASS_ONLY)
    deadline = time.perf_counter() + 0.1
    assert ataxx_ai.choose(ENGINE, state, level, random.Random(0), deadline) == "0000"
    assert choose_move(ENGINE, state, level, seed=0) == "0000"


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_the_same_seed_gives_the_same_move(level):
    for i, state in enumerate(random_positions(8, seed=5)):
        first = choose_move(ENGINE, state, level, seed=i, time_budget=2.0)
        assert choose_move(ENGINE, state, level, seed=i, time_budget=2.0) == first


def test_hard_repeats_itself_when_its_search_reaches_the_end_of_the_game():
    # Three empty squares: the whole game tree is searched well within the budget.
    state = ENGINE.from_fen("xxxxxxx/xxoooxx/xo1ooox/oooooxx/xxx1xoo/oxxxxo1/ooooxxx x 0 1")
    moves = [choose_move(ENGINE, state, "hard", seed=3, time_budget=2.0) for _ in range(2)]
    assert moves[0] == moves[1]


def test_a_fixed_depth_search_depends_only_on_the_seed():
    for state in random_positions(4, seed=8):
        me, opp = state.mover()
        results = set()
        for _ in range(2):
            search = ataxx_ai.Search(time.perf_counter() + 60)
            results.add(search.best_move(me, opp, ataxx_ai.root_moves(me, opp, random.Random(4)), 3))
            assert search.depth_reached == 3
        assert len(results) == 1


@pytest.mark.perf
def test_hard_answers_within_its_budget():
    # A crowded middle game with dozens of moves: the search has to be cut short.
    state = next(s for s in random_positions(40, seed=2) if len(ENGINE.legal_moves(s)) > 40)
    for budget in (0.1, 0.4):
        started = time.perf_counter()
        move = choose_move(ENGINE, state, "hard", seed=1, time_budget=budget)
        assert time.perf_counter() - started < budget + 0.25
        assert move in ENGINE.legal_moves(state)


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_the_searching_levels_take_a_wipeout_in_one(level):
    state = ENGINE.from_fen(WIPEOUT_IN_ONE)
    move = choose_move(ENGINE, state, level, seed=0)
    outcome = ENGINE.outcome(ENGINE.play(state, move))
    assert move in ("c4e6", "g4e6")
    assert outcome is not None and outcome.winner == 0


@pytest.mark.parametrize("fen", [ONLY_D5_SURVIVES, ONLY_F3_SURVIVES])
@pytest.mark.parametrize("level", ["medium", "hard"])
def test_the_searching_levels_avoid_a_move_that_loses_at_once(fen, level):
    state = ENGINE.from_fen(fen)
    losing = [m for m in ENGINE.legal_moves(state) if _loses_at_once(ENGINE.play(state, m))]
    assert 0 < len(losing) < len(ENGINE.legal_moves(state))  # the trap is real
    for seed in range(3):
        assert choose_move(ENGINE, state, level, seed=seed, time_budget=0.3) not in losing


def test_easy_mostly_takes_material_but_not_always_the_best():
    state = ENGINE.from_fen(ONLY_D5_SURVIVES)
    picks = [choose_move(ENGINE, state, "easy", seed=seed) for seed in range(60)]
    capturing = [m for m in picks if ENGINE.score(ENGINE.play(state, m))[1] < ENGINE.score(state)[1]]
    assert len(capturing) > len(picks) // 2
    assert len(set(picks)) > 2


def _loses_at_once(state: AtaxxState) -> bool:
    """Whether the side to move can capture every enemy piece right now."""
    for move in ENGINE.legal_moves(state):
        outcome = ENGINE.outcome(ENGINE.play(state, move))
        if outcome is not None and outcome.winner == ENGINE.to_move(state):
            return True
    return False


def test_the_python_search_sees_jumps_when_no_clone_is_possible():
    # x to move: a1 is walled in by o (no clone), but jumps to c1, c2 or c3 take two or three pieces.
    state = ENGINE.from_fen("7/7/7/7/o1o4/ooo4/xo5 x 0 1")
    me, opp = state.mover()
    assert all(len(move) == 4 for move in ENGINE.legal_moves(state))
    search = ataxx_ai.Search(time.perf_counter() + 60)
    search.fast = None  # the pure-Python search, whether or not numba is there
    best = max(
        ENGINE.score(after)[0] - ENGINE.score(after)[1]
        for after in (ENGINE.play(state, move) for move in ENGINE.legal_moves(state))
    )
    window = (-ataxx_ai.WIN - 1, ataxx_ai.WIN + 1)
    assert search._negamax(me, opp, 1, *window, 0) == best  # not a forced pass


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_a_computer_that_is_ahead_does_not_jump_into_the_hundred_ply_draw(level):
    # x is ahead (5-4); the jump a7c5 would take three pieces but is the 100th ply
    # without a clone, a draw (SPEC 1.2), so x clones instead.
    state = ENGINE.from_fen("x3xxx/6x/7/1ooo3/7/7/o6 x 99 60")
    move = ataxx_ai.choose(ENGINE, state, level, random.Random(1), time.perf_counter() + 0.5)
    assert len(move) == 2, move
    assert ENGINE.outcome(ENGINE.play(state, move)) is None
