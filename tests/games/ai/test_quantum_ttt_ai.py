"""The quantum tic-tac-toe computer player: legal, reproducible, on time, and not blind."""

from __future__ import annotations

import random
import time

import pytest

from games.ai import choose_move
from games.ai.quantum_ttt import choose
from games.ai.quantum_ttt_eval import evaluate
from games.ai.quantum_ttt_search import Searcher
from games.engines.base import replay
from games.engines.quantum_ttt import QState, QuantumTTTEngine

ENG = QuantumTTTEngine()
LEVELS = ("easy", "medium", "hard")
NINTH_PLAIN_MOVE = ["1-2", "1-2", "@1", "3-4", "3-4", "@4", "5-6", "5-6", "@5", "7-8", "7-8", "@8"]


def random_positions(count: int, seed: int) -> list[QState]:
    """Positions from random games, every ply kept (pending collapses included)."""
    rng = random.Random(seed)
    out: list[QState] = []
    while len(out) < count:
        s = ENG.initial()
        while ENG.outcome(s) is None and len(out) < count:
            out.append(s)
            s = ENG.play(s, rng.choice(ENG.legal_moves(s)))
    return out


def mover_wins_at_once(state: QState, move: str) -> bool:
    me = ENG.to_move(state)
    child = ENG.play(state, move)
    if child.pending:  # the opponent chooses: a sure win needs both choices to win
        outcomes = [ENG.outcome(ENG.play(child, choice)) for choice in ENG.legal_moves(child)]
    else:
        outcomes = [ENG.outcome(child)]
    return all(o is not None and o.winner == me for o in outcomes)


def opponent_can_win_at_once(state: QState, move: str) -> bool:
    me = ENG.to_move(state)
    child = ENG.play(state, move)
    if not child.pending:
        return False
    for choice in ENG.legal_moves(child):
        out = ENG.outcome(ENG.play(child, choice))
        if out is not None and out.winner == 1 - me:
            return True
    return False


# ---------------------------------------------------------------------------
# Legal moves everywhere


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_only_legal_moves_in_random_positions(level):
    positions = random_positions(40, seed=11)
    assert any(s.pending for s in positions)
    for i, s in enumerate(positions):
        move = choose(ENG, s, level, random.Random(i), time.perf_counter() + 0.02)
        assert move in ENG.legal_moves(s), (ENG.fen(s), level, move)


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_resolves_a_pending_collapse_with_a_choice(level):
    s = replay(ENG, ["1-2", "2-3", "1-3"])
    assert choose(ENG, s, level, random.Random(0), time.perf_counter() + 0.1) in ("@1", "@3")


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_xs_ninth_plain_move(level):
    s = replay(ENG, NINTH_PLAIN_MOVE)
    assert ENG.legal_moves(s) == ["9"]
    assert choose(ENG, s, level, random.Random(0), time.perf_counter() + 0.1) == "9"
    assert choose_move(ENG, s, level, seed=1) == "9"


def test_the_dispatcher_accepts_the_module_for_every_level():
    s = replay(ENG, ["1-5", "5-9"])
    for level in LEVELS:
        assert choose_move(ENG, s, level, seed=3, time_budget=0.05) in ENG.legal_moves(s)


# ---------------------------------------------------------------------------
# Reproducible and on time


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_the_same_seed_gives_the_same_move_when_the_search_completes(level):
    s = ENG.from_fen("61...3.2. 4:3-5,5:3-7,7:4-9,8:5-9 9 -")
    moves = {choose(ENG, s, level, random.Random(5), time.perf_counter() + 5) for _ in range(3)}
    assert len(moves) == 1
    start = ENG.initial()  # medium's two plies always complete here
    assert choose(ENG, start, "medium", random.Random(9), time.perf_counter() + 5) == choose(
        ENG, start, "medium", random.Random(9), time.perf_counter() + 5
    )


def test_hard_solves_late_positions_to_the_end_of_the_game():
    s = ENG.from_fen("61...3.2. 4:3-5,5:3-7,7:4-9,8:5-9 9 -")
    searcher = Searcher(ENG, time.perf_counter() + 5, random.Random(0))
    move, value, depth = searcher.best_move(s, 12)
    assert value == 0 and searcher.horizon == 0  # exact: a draw, no static guess involved
    assert not opponent_can_win_at_once(s, move)


@pytest.mark.perf
@pytest.mark.parametrize("budget", [0.05, 0.3])
def test_hard_returns_within_its_budget(budget):
    for s in (ENG.initial(), replay(ENG, ["1-5", "3-7"])):
        started = time.perf_counter()
        move = choose(ENG, s, "hard", random.Random(1), started + budget)
        elapsed = time.perf_counter() - started
        assert move in ENG.legal_moves(s)
        assert elapsed < budget + 0.05, elapsed


def test_a_deadline_already_past_still_gives_a_legal_move():
    s = replay(ENG, ["1-5"])
    assert choose(ENG, s, "hard", random.Random(0), time.perf_counter() - 1) in ENG.legal_moves(s)


# ---------------------------------------------------------------------------
# Tactics


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_takes_a_collapse_choice_that_wins(level):
    # O's mark 6 closed the cycle 3-8-6-7-4-1-3. Settling it in 3 pushes X's marks
    # into 1, 4 and 7 (a column); settling it in 8 gives nobody a line.
    s = ENG.from_fen("......... 1:4-7,2:6-8,3:1-3,4:6-7,5:1-4,6:3-8 7 6")
    assert ENG.to_move(s) == 0 and ENG.legal_moves(s) == ["@3", "@8"]
    assert mover_wins_at_once(s, "@3") and not mover_wins_at_once(s, "@8")
    assert choose(ENG, s, level, random.Random(2), time.perf_counter() + 0.5) == "@3"


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_hard_and_medium_close_a_cycle_whose_every_collapse_wins(level):
    s = ENG.from_fen("6..4.51.. 2:8-9,3:3-5 7 -")
    winning = [m for m in ENG.legal_moves(s) if mover_wins_at_once(s, m)]
    assert winning == ["3-5"]  # X's own 3-5 twice: either way X gets 3 and 5 (with 7: 3-5-7)
    assert choose(ENG, s, level, random.Random(2), time.perf_counter() + 0.5) == "3-5"


@pytest.mark.parametrize(
    "fen",
    [
        "......... 1:7-9,2:2-4,3:7-8,4:6-9,5:1-3,6:5-8,7:2-6,8:1-2 9 -",  # 33 of 36 pairs lose
        "61...3.2. 4:3-5,5:3-7,7:4-9,8:5-9 9 -",  # 7 of 10 pairs lose
    ],
)
def test_hard_does_not_close_a_cycle_that_hands_the_opponent_a_winning_collapse(fen):
    s = ENG.from_fen(fen)
    losing = [m for m in ENG.legal_moves(s) if opponent_can_win_at_once(s, m)]
    assert len(losing) * 3 >= len(ENG.legal_moves(s)) * 2
    for seed in range(3):
        move = choose(ENG, s, "hard", random.Random(seed), time.perf_counter() + 0.5)
        assert move not in losing


def test_a_collapse_depends_only_on_the_square_the_new_mark_settles_in():
    # The search's last ply relies on this: any pair a-b closing a cycle through a,
    # settled in a, leaves the same board.
    compared = 0
    for s in random_positions(60, seed=5):
        if s.pending or ENG.outcome(s) is not None or len(ENG.legal_moves(s)) < 2:
            continue
        boards: dict[int, set[tuple]] = {}
        for move in ENG.legal_moves(s):
            child = ENG.play(s, move)
            if child.pending:
                for choice in ENG.legal_moves(child):
                    after = ENG.play(child, choice)
                    boards.setdefault(int(choice[1]), set()).add((after.classical, after.spooky))
                    compared += 1
        assert all(len(found) == 1 for found in boards.values()), ENG.fen(s)
    assert compared > 100


def test_the_last_ply_shortcut_scores_exactly_like_playing_every_move():
    checked = 0
    for s in random_positions(40, seed=8)[::3]:
        if ENG.outcome(s) is not None or len(ENG.legal_moves(s)) < 2:
            continue
        for depth in (2, 3):
            fast = Searcher(ENG, time.perf_counter() + 30, random.Random(0))
            slow = Searcher(ENG, time.perf_counter() + 30, random.Random(0))
            slow.frontier = False
            assert fast.best_move(s, depth)[1] == slow.best_move(s, depth)[1], ENG.fen(s)
            checked += 1
    assert checked >= 10


def test_the_evaluation_values_a_spooky_mark_in_the_last_square_of_a_two_mark_line():
    # X holds 1 and 2 classically; its spooky mark 5 sits in 3 (a threat) or in 8 (not).
    threat = ENG.from_fen("13..2.... 4:6-9,5:3-7 6 -")
    quiet = ENG.from_fen("13..2.... 4:6-9,5:7-8 6 -")
    assert evaluate(threat, 0) > evaluate(quiet, 0) > 0
    assert evaluate(threat, 1) == -evaluate(threat, 0)
