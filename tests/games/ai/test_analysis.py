"""Post-game analysis maths: the winning-chances scale, the error thresholds and
the judgement of moves on fixed positions of every game."""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path

import pytest

from games.ai import analysis
from games.ai._cores import pure_python
from games.ai.analysis import (
    PositionEval,
    classify,
    evaluate,
    judge_game,
    judge_move,
    move_accuracy,
    scale_of,
    summarize,
)
from games.ai.four_tac_toe_playout import REWARD_SCALE
from games.ai.four_tac_toe_tactics import free_cells, tactical_values
from games.engines import get
from games.engines.four_tac_toe import CELL_TOKENS as FTT_TOKENS

REVERSI = get("reversi")
QTTT = get("quantum_ttt")
# The curve's fitting is run by hand, so it lives with the benchmarks (bench/calibrate_analysis.py).
_SPEC = importlib.util.spec_from_file_location(
    "calibrate_analysis", Path(__file__).resolve().parents[3] / "bench" / "calibrate_analysis.py"
)
calibrate = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(calibrate)

# White to move; black sits on b1 next to the empty a1 corner, which white takes (flipping b1).
CORNER_ON_OFFER = "-XOOOOO---XOXO----XXOX----OXOX-----XOO----XXXXXX---X------XXX--- O"
# FFO endgame position 5: 14 empty squares, black to move; g8 wins by 32 discs.
FFO_5 = "-OOOOO----OXXO-XXXOXOXX-XXOXOXXOXXOOXOOOXXXXOO-OX-XOOO---XXXXX-- X"
# Quantum TTT, X to move with two squares left: X has a forced win.
QTTT_X_WINS = "6..4.51.. 2:8-9,3:3-5 7 -"
# Quantum TTT, X to move at move 9: a draw with best play (the AI's tests prove it).
QTTT_DRAW = "61...3.2. 4:3-5,5:3-7,7:4-9,8:5-9 9 -"


def after_random_moves(engine, plies: int, *, seed: int):
    """The position after ``plies`` seeded random moves from the start."""
    rng = random.Random(seed)
    state = engine.initial()
    for _ in range(plies):
        state = engine.play(state, rng.choice(engine.legal_moves(state)))
    return state


def test_thresholds_are_lichess_drops_in_winning_chances():
    assert classify(0.0) is None
    assert classify(0.099) is None
    assert classify(0.1) == "inaccuracy"
    assert classify(0.199) == "inaccuracy"
    assert classify(0.2) == "mistake"
    assert classify(0.3) == "blunder"
    assert classify(2.0) == "blunder"


def test_accuracy_is_100_for_no_loss_and_falls_with_the_loss():
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=0.01)
    values = [move_accuracy(d) for d in (0.0, 0.1, 0.2, 0.3, 1.0, 2.0)]
    assert values == sorted(values, reverse=True)
    assert 0.0 <= values[-1] < 5.0
    assert move_accuracy(0.1) == pytest.approx(103.1668 * 2.718281828 ** (-0.04354 * 5) - 3.1669, abs=0.01)


def test_chances_scale_is_symmetric_and_bounded():
    assert analysis.chances_from_score(0, 50) == 0
    assert analysis.chances_from_score(100, 50) == pytest.approx(-analysis.chances_from_score(-100, 50))
    assert 0.5 < analysis.chances_from_score(100, 50) < 1.0


def test_a_drop_counts_for_the_mover_only():
    before, after = PositionEval(0.2, "a1"), PositionEval(0.6, None)
    # Side 0 gained: no error. Side 1 lost 0.4 of its chances: a blunder, and the better move shows.
    assert judge_move(0, 0, "b2", before, after, forced=False).kind is None
    bad = judge_move(0, 1, "b2", before, after, forced=False)
    assert bad.kind == "blunder" and bad.drop == pytest.approx(0.4) and bad.best == "a1"
    # A forced move, or the search's own choice, is never an error.
    assert judge_move(0, 1, "b2", before, after, forced=True).kind is None
    assert judge_move(0, 1, "a1", before, after, forced=False).kind is None


def test_giving_up_the_corner_in_reversi_is_a_blunder_and_taking_it_is_not():
    state = REVERSI.from_fen(CORNER_ON_OFFER)
    before = evaluate(REVERSI, state)
    assert before.best == "a1"
    assert before.chances < -0.3  # white (the second player) is clearly better
    taken = judge_move(0, 1, "a1", before, evaluate(REVERSI, REVERSI.play(state, "a1")), forced=False)
    assert taken.kind is None
    missed = judge_move(0, 1, "b2", before, evaluate(REVERSI, REVERSI.play(state, "b2")), forced=False)
    assert missed.kind == "blunder"
    assert missed.best == "a1" and missed.line[0] == "a1" and len(missed.line) > 1


def test_reversi_endgame_is_exact_perfect_or_losing_discs():
    state = REVERSI.from_fen(FFO_5)
    before = evaluate(REVERSI, state)
    assert before.exact == 32 and before.best == "g8" and before.chances == 1.0
    perfect = judge_move(0, 0, "g8", before, evaluate(REVERSI, REVERSI.play(state, "g8")), forced=False)
    assert perfect.exact_loss == 0 and perfect.kind is None
    # g2 still wins (by 12) but throws 20 discs away: no winning chances lost, yet 20 discs are a
    # blunder here as in the midgame (read on the fitted curve at its steepest point).
    g2 = judge_move(
        0,
        0,
        "g2",
        before,
        evaluate(REVERSI, REVERSI.play(state, "g2")),
        forced=False,
        scale=scale_of("reversi"),
    )
    assert g2.exact_loss == 20 and g2.kind == "blunder" and g2.best == "g8"
    assert g2.drop == pytest.approx(math.tanh(20 / (2 * scale_of("reversi"))))
    # g1 turns the win into a 32-disc loss: a blunder that loses 64 discs.
    g1 = judge_move(0, 0, "g1", before, evaluate(REVERSI, REVERSI.play(state, "g1")), forced=False)
    assert g1.exact_loss == 64 and g1.kind == "blunder"


def test_the_four_symmetric_reversi_openings_are_not_errors():
    start = REVERSI.initial()
    before = evaluate(REVERSI, start)
    for move in REVERSI.legal_moves(start):
        assert (
            judge_move(0, 0, move, before, evaluate(REVERSI, REVERSI.play(start, move)), forced=False).kind
            is None
        )


def _qttt_value(state, me: int) -> int:
    """+1 / 0 / -1 for ``me`` with perfect play, by plain minimax to the end."""
    outcome = QTTT.outcome(state)
    if outcome is not None:
        return 0 if outcome.winner is None else (1 if outcome.winner == me else -1)
    values = [_qttt_value(QTTT.play(state, m), me) for m in QTTT.legal_moves(state)]
    return max(values) if QTTT.to_move(state) == me else min(values)


def test_a_forced_win_in_quantum_ttt_is_plus_one_and_a_proved_draw_is_zero():
    win = QTTT.from_fen(QTTT_X_WINS)
    assert _qttt_value(win, 0) == 1
    result = evaluate(QTTT, win)
    assert result.chances == 1.0
    assert _qttt_value(QTTT.play(win, result.best), 0) == 1  # the best move keeps the win
    draw = QTTT.from_fen(QTTT_DRAW)
    assert _qttt_value(draw, 0) == 0
    assert evaluate(QTTT, draw).chances == 0.0


def test_ataxx_the_best_move_is_no_error_and_some_other_move_loses_chances():
    engine = get("ataxx")
    state = engine.initial()
    for move in ("a7a5", "g7f5"):
        state = engine.play(state, move)
    before = evaluate(engine, state)
    judged = [
        judge_move(2, engine.to_move(state), m, before, evaluate(engine, engine.play(state, m)), forced=False)
        for m in engine.legal_moves(state)
    ]
    best = next(j for j in judged if j.move == before.best)
    assert best.kind is None
    assert max(j.drop for j in judged) > best.drop


def test_ultimate_ttt_sees_a_win_on_the_spot():
    engine = get("ultimate_ttt")
    rng = random.Random(3)
    while True:  # random games until a position offers a move that wins the game at once
        state = engine.initial()
        while engine.outcome(state) is None:
            me = engine.to_move(state)
            winning = [
                m
                for m in engine.legal_moves(state)
                if (done := engine.outcome(engine.play(state, m))) is not None and done.winner == me
            ]
            if winning:
                result = evaluate(engine, state)
                assert result.best in winning
                assert result.chances == (1.0 if me == 0 else -1.0)
                return
            state = engine.play(state, rng.choice(engine.legal_moves(state)))


@pytest.mark.parametrize("slug", ["ultimate_ttt", "four_tac_toe"])
def test_monte_carlo_analysis_is_reproducible(slug):
    engine = get(slug)
    state = engine.initial()
    for move in engine.legal_moves(state)[:1]:
        state = engine.play(state, move)
    assert evaluate(engine, state) == evaluate(engine, state)


def test_judge_game_counts_each_players_errors_and_accuracy():
    engine = REVERSI
    moves = ["f5", "d6", "c3"]
    evals = [
        PositionEval(0.0, "f5"),
        PositionEval(0.0, "c5"),
        PositionEval(0.5, "e6"),
        PositionEval(0.4, "c4"),
    ]
    judged = judge_game(engine, moves, evals)
    assert [j.kind for j in judged] == [None, "blunder", "inaccuracy"]
    first, second = summarize(judged)
    assert second.counts == {"inaccuracy": 0, "mistake": 0, "blunder": 1}
    assert first.counts == {"inaccuracy": 1, "mistake": 0, "blunder": 0}
    # lichess's game accuracy: the mean of the (here unweighted) mean and the harmonic mean, each
    # move's accuracy reading its drop with Reversi's accuracy weight.
    a = move_accuracy(0.1 * analysis.accuracy_weight_of("reversi"))
    assert first.accuracy == pytest.approx(((100 + a) / 2 + 2 / (1 / 100 + 1 / a)) / 2, abs=0.1)
    assert second.accuracy < 50
    with pytest.raises(ValueError, match="one more than the moves"):
        judge_game(engine, moves, evals[:-1])


def test_a_finished_game_has_its_result_as_the_evaluation():
    state = REVERSI.initial()
    for move in ["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"]:  # black wipes white out
        state = REVERSI.play(state, move)
    final = evaluate(REVERSI, state)
    assert final.chances == 1.0 and final.best is None and final.exact == 64


# The game report: labels, "only move", phases, lichess's game accuracy, the fitted curves


def test_every_move_gets_a_label_from_its_drop():
    assert analysis.label(0.0, forced=False) == "best"
    assert analysis.label(0.03, forced=False) == "excellent"
    assert analysis.label(0.08, forced=False) == "good"
    assert analysis.label(0.1, forced=False) == "inaccuracy"
    assert analysis.label(0.25, forced=False) == "mistake"
    assert analysis.label(0.9, forced=False) == "blunder"
    assert analysis.label(0.9, forced=True) == "forced"


def test_a_solver_phase_move_that_still_wins_is_judged_by_the_discs_it_gives_away():
    state = REVERSI.from_fen(FFO_5)
    before = evaluate(REVERSI, state)
    scale = scale_of("reversi")
    g8 = judge_move(
        0, 0, "g8", before, evaluate(REVERSI, REVERSI.play(state, "g8")), forced=False, scale=scale
    )
    g2 = judge_move(
        0, 0, "g2", before, evaluate(REVERSI, REVERSI.play(state, "g2")), forced=False, scale=scale
    )
    assert g8.label == "best" and g8.accuracy == pytest.approx(100, abs=0.01)
    assert g2.label == "blunder" and g2.accuracy < 15  # 20 discs thrown away, the win kept
    # One disc given away is the drop a disc is worth in an even position: "good", not "best".
    one = analysis.PositionEval(1.0, "g8", exact=31)
    assert judge_move(0, 0, "h1", before, one, forced=False, scale=scale).label == "good"
    assert before.only is False  # g2 keeps the win too: g8 is not the only move


def _qttt_winning_moves(state) -> int:
    me = QTTT.to_move(state)
    return sum(_qttt_value(QTTT.play(state, m), me) == 1 for m in QTTT.legal_moves(state))


def test_only_move_means_no_other_move_keeps_the_win_in_quantum_ttt():
    win = QTTT.from_fen(QTTT_X_WINS)
    result = evaluate(QTTT, win)
    assert result.only == (_qttt_winning_moves(win) == 1)
    judged = judge_move(0, 0, result.best, result, evaluate(QTTT, QTTT.play(win, result.best)), forced=False)
    assert judged.only is result.only and judged.label == "best"


def test_the_only_reversi_move_that_saves_the_corner_is_marked():
    state = REVERSI.from_fen(CORNER_ON_OFFER)
    before = evaluate(REVERSI, state)
    taken = judge_move(0, 1, "a1", before, evaluate(REVERSI, REVERSI.play(state, "a1")), forced=False)
    assert taken.label == "best"
    assert taken.only is before.only
    assert taken.chances > 0.65  # white's own winning chances after taking the corner, 0..1


def test_a_player_who_blunders_once_among_best_moves_loses_much_accuracy():
    """lichess's game accuracy: the harmonic mean makes one blunder count."""
    good = [
        judge_move(p, 0, "a", PositionEval(0.0, "a"), PositionEval(0.0, None), forced=False)
        for p in range(19)
    ]
    blunder = judge_move(19, 0, "b", PositionEval(0.0, "a"), PositionEval(-0.8, None), forced=False)
    assert analysis.game_accuracy(good) == pytest.approx(100.0, abs=0.1)
    with_blunder = analysis.game_accuracy([*good, blunder])
    plain_mean = sum(j.accuracy for j in [*good, blunder]) / 20
    assert with_blunder < 90 < plain_mean  # the plain mean would hide the blunder
    assert analysis.game_accuracy([]) is None


def test_accuracy_is_given_per_phase_of_the_game():
    engine = REVERSI
    state = engine.initial()
    moves = []
    rng = random.Random(5)
    while engine.outcome(state) is None:
        move = rng.choice(engine.legal_moves(state))
        moves.append(move)
        state = engine.play(state, move)
    evals = [PositionEval(0.0, None)] * (len(moves) + 1)  # every move keeps an even game: no losses
    judged = judge_game(engine, moves, evals)
    assert [j.phase for j in judged[:16]] == ["opening"] * 16
    assert judged[20].phase == "middle" and judged[-1].phase == "end"
    first, _ = summarize(judged, [e.chances for e in evals])
    assert set(first.phases) == {"opening", "middle", "end"}
    assert all(value == pytest.approx(100.0, abs=0.1) for value in first.phases.values())


def test_winning_chances_read_as_percent_for_the_side_named_never_negative():
    assert analysis.percent(-1.0) == 0.0 and analysis.percent(1.0) == 100.0
    assert analysis.percent(-3.0) == 0.0  # out of range never shows below 0
    assert analysis.percent(0.2) == pytest.approx(60.0)


def test_the_fit_recovers_the_scale_that_made_the_results():
    rng = random.Random(11)
    samples = []
    for _ in range(4000):
        score = rng.uniform(-30, 30)
        won = rng.random() < 1 / (1 + 2.718281828 ** (-score / 6.0))
        samples.append((score, 1.0 if won else 0.0))
    assert calibrate.fit_scale(samples) == pytest.approx(6.0, rel=0.15)
    assert calibrate.log_loss(samples, 6.0) < calibrate.log_loss(samples, 60.0)


def test_the_fit_recovers_the_slip_that_made_the_results():
    rng = random.Random(5)
    proofs = []
    for _ in range(3000):
        plies = rng.randint(1, 9)
        proofs.append((plies, rng.random() < 0.97**plies))
    assert calibrate.fit_slip(proofs) == pytest.approx(0.03, rel=0.2)


def test_the_committed_curves_say_how_they_were_fitted():
    for slug in ("reversi", "ataxx", "quantum_ttt", "ultimate_ttt", "four_tac_toe"):
        entry = analysis.calibration()[slug]
        assert entry["scale"] > 0
        assert entry["games"] >= 10 and entry["positions"] > 50 and "seed" in entry
        assert entry["log_loss"] < 0.6931  # better than a coin toss on its own self-play
        # Fitted on a random player against Hard and Hard against Hard (bench/analysis_accuracy.py).
        weight = entry["accuracy_weight"]
        assert weight["weight"] >= 1.0 and min(weight["games"]) >= 10 and weight["seed"] != 7  # 7 checks
        assert weight["random_accuracy"] <= weight["target"] <= 50 and weight["hard_accuracy"] >= 90
        assert analysis.accuracy_weight_of(slug) == weight["weight"]
    # Only Quantum TTT's proofs carry their distance: only it has a slip.
    assert [slug for slug in analysis.calibration() if analysis.slip_of(slug)] == ["quantum_ttt"]


def test_a_games_accuracy_weight_reads_its_moves_harder_but_leaves_their_labels():
    before = PositionEval(0.0, "e5", score=0.0, root=(("e5", 0.0, 20_000), ("a1", -0.12, 4_000)))
    after = PositionEval(0.06, "b2", score=0.12)
    plain = judge_move(5, 0, "a1", before, after, forced=False, scale=UTTT_SCALE)
    harder = judge_move(5, 0, "a1", before, after, forced=False, scale=UTTT_SCALE, accuracy_weight=2.5)
    assert plain.label == harder.label == "good" and plain.drop == harder.drop  # 2.8 points of chances
    assert plain.accuracy == pytest.approx(move_accuracy(plain.drop))
    assert (
        harder.accuracy == pytest.approx(move_accuracy(2.5 * plain.drop)) and harder.accuracy < plain.accuracy
    )


@pytest.mark.parametrize("slug", ["reversi", "ataxx", "quantum_ttt", "ultimate_ttt", "four_tac_toe"])
def test_the_compiled_analysis_is_reproducible_and_the_python_one_gives_the_same_kind_of_answer(slug):
    engine = get(slug)
    state = after_random_moves(engine, 4, seed=2)
    assert analysis.compiled(slug)
    first = evaluate(engine, state)
    assert evaluate(engine, state) == first
    with pure_python():
        assert not analysis.compiled(slug)
        fallback = evaluate(engine, state, analysis.PYTHON_BUDGET[slug])
    assert fallback.best in engine.legal_moves(state) and -1.0 <= fallback.chances <= 1.0
    assert fallback.score is not None or fallback.chances in (-1.0, 0.0, 1.0)


def test_the_python_fallback_also_takes_the_corner():
    state = REVERSI.from_fen(CORNER_ON_OFFER)
    with pure_python():
        before = evaluate(REVERSI, state)
    assert before.best == "a1" and before.chances < -0.3


# Calibrated accuracy: a move's loss of score counts all the drop it would be in an even game.

REVERSI_SCALE = 7.73  # discs, as fitted (the test gives the scale itself)


def test_throwing_discs_away_in_a_lost_reversi_position_is_still_a_mistake():
    # Black (side 0) is 25 discs down, 3 % winning. A random-looking move gives 4 more discs away:
    # its winning chances hardly move, yet in an even game those 4 discs would cost 12 points.
    before = PositionEval(-0.94, "c4", score=-25.0)
    after = PositionEval(-0.95, "d3", score=29.0)  # white to move, 29 discs up
    judged = judge_move(20, 0, "h8", before, after, forced=False, scale=REVERSI_SCALE)
    assert judged.kind == "mistake" and judged.best == "c4"
    assert judged.accuracy < 60
    # On the winning chances alone it is nothing (a drop of 0.01), and counting only half of the
    # even game's drop (the analysis before Dec 2026) called it an inaccuracy.
    assert judge_move(20, 0, "h8", before, after, forced=False).kind is None
    assert 0.1 < judged.drop / 2 < 0.2


# Judged against the other moves of the same search (issue #28, session 11).

UTTT_SCALE = 1.06  # logit units, as fitted
QTTT_SCALE = 61.2


def test_a_random_move_in_a_lost_monte_carlo_position_is_not_credited_as_best():
    # Side 0 is lost past 97.5 %: both positions read the clipped score, so the positions alone
    # say the move lost nothing. The search of the position before it valued the move played far
    # below its own best defence (the logits of their mean rewards), and that is what counts now.
    clip = 2 * 3.6636  # twice the clipped logit: the score is -clip / 2 for the loser
    before = PositionEval(-0.94, "e5", score=-clip / 2, root=(("e5", -2.0, 20_000), ("a1", -clip / 2, 300)))
    after = PositionEval(-0.94, "b2", score=clip / 2)  # the opponent to move, as won as before
    judged = judge_move(30, 0, "a1", before, after, forced=False, scale=UTTT_SCALE)
    assert judged.label == "blunder" and judged.best == "e5"
    assert judged.accuracy < 50
    # The search's own defence is still the best move, whatever the positions read.
    best = judge_move(30, 0, "e5", before, after, forced=False, scale=UTTT_SCALE)
    assert best.label == "best" and best.accuracy == pytest.approx(100, abs=0.01)
    # Without the search's table (an analysis stored before it existed) the move reads "best".
    old = PositionEval(-0.94, "e5", score=-clip / 2)
    assert judge_move(30, 0, "a1", old, after, forced=False, scale=UTTT_SCALE).label == "best"


def test_choosing_between_two_winning_moves_of_the_same_search_costs_nothing():
    # Both moves win past 97.5 % by the search's means: the table clips them alike.
    before = PositionEval(0.94, "e5", score=3.66, root=(("e5", 3.66, 9000), ("c3", 3.66, 8000)))
    after = PositionEval(0.94, "b2", score=-3.66)
    judged = judge_move(12, 0, "c3", before, after, forced=False, scale=UTTT_SCALE)
    assert judged.label == "best" and judged.accuracy == pytest.approx(100, abs=0.01)


def test_a_reversi_move_as_good_as_the_best_is_no_error_whichever_parity_the_position_after_reads():
    # The search of 8 plies gave the move played the same value as its best move (the position
    # after it, searched to 7 plies, is worth minus that to the opponent); its 8-ply search reads
    # the opponent 11 discs up, so the two positions' means (2 against 3 for the opponent) made a
    # move as good as the best look like a loss of 5 discs, a blunder.
    before = PositionEval(0.13, "c4", score=2.0, deep=5.0, shallow=-1.0)
    after = PositionEval(-0.19, "d3", score=3.0, deep=11.0, shallow=-5.0)
    judged = judge_move(6, 0, "e6", before, after, forced=False, scale=REVERSI_SCALE)
    assert judged.label == "best" and judged.accuracy == pytest.approx(100, abs=0.01)
    # A move the same search valued 3 discs below its best is an inaccuracy: 3 discs in an even game.
    worse = PositionEval(-0.19, "d3", score=3.0, deep=11.0, shallow=-2.0)
    assert judge_move(6, 0, "f4", before, worse, forced=False, scale=REVERSI_SCALE).kind == "inaccuracy"
    # The positions' means alone (before this rule) read the first move as a blunder.
    assert judge_move(6, 0, "e6", replace_fields(before), after, forced=False, scale=REVERSI_SCALE).kind == (
        "blunder"
    )


def replace_fields(position: PositionEval) -> PositionEval:
    """The same evaluation without the search's own values of the moves (as stored before them)."""
    return PositionEval(position.chances, position.best, position.line, position.exact, position.score)


def test_quantum_ttt_is_still_judged_by_the_two_positions_and_throwing_a_win_away_is_a_blunder():
    # Its searches keep no table of the moves' own values (docs/decisions.md, session 11).
    state = QTTT.from_fen(QTTT_X_WINS)
    before = evaluate(QTTT, state)
    assert before.chances == 1.0 and before.root == () and before.deep is None
    for move in QTTT.legal_moves(state):
        after = evaluate(QTTT, QTTT.play(state, move))
        judged = judge_move(8, 0, move, before, after, forced=False, scale=QTTT_SCALE)
        assert judged.kind == ("blunder" if after.chances < 1.0 else None)


# O to move at move 4: lost by proof. The best defence (3-6) holds out 9 plies, 5-7 lets X win 3
# plies from here (seed-7 benchmark game, the random player's third move).
QTTT_O_LOST = "......... 1:1-5,2:3-9,3:4-7 4 -"


def test_a_quantum_ttt_loss_that_comes_sooner_than_the_best_defence_costs_its_distance():
    state = QTTT.from_fen(QTTT_O_LOST)
    before = evaluate(QTTT, state)
    assert before.chances == 1.0 and before.best == "3-6" and before.mate == 9  # X wins, 9 plies on
    slip = analysis.slip_of("quantum_ttt")
    assert 0 < slip < 0.2  # fitted: the calibration's players let a proven result go now and then
    quick = evaluate(QTTT, QTTT.play(state, "5-7"))
    assert quick.chances == 1.0 and quick.mate == 2
    judged = judge_move(3, 1, "5-7", before, quick, forced=False, scale=QTTT_SCALE, slip=slip)
    # X's win is kept through 2 plies instead of 8: O's chances that X slips on the way are gone.
    assert judged.drop == pytest.approx((1 - slip) ** 2 - (1 - slip) ** 8)
    assert judged.accuracy < 90 and judged.label in ("inaccuracy", "mistake")
    # The longest defence loses nothing, and without the slip (before this rule) neither did 5-7.
    held = evaluate(QTTT, QTTT.play(state, "3-6"))
    assert judge_move(3, 1, "3-6", before, held, forced=False, scale=QTTT_SCALE, slip=slip).drop == 0.0
    assert judge_move(3, 1, "5-7", before, quick, forced=False, scale=QTTT_SCALE).drop == 0.0


def test_both_quantum_ttt_searches_give_a_proof_its_distance():
    state = QTTT.from_fen(QTTT_X_WINS)
    compiled_eval = evaluate(QTTT, state)
    with pure_python():
        python_eval = evaluate(QTTT, state, analysis.PYTHON_BUDGET["quantum_ttt"])
    assert compiled_eval.chances == python_eval.chances == 1.0
    assert compiled_eval.mate == python_eval.mate == 2  # two plies to the end, by both searches


def test_a_winner_who_takes_the_longer_way_loses_what_a_slip_on_the_way_could_cost():
    slip = 0.05
    before = PositionEval(1.0, "3-6", mate=3)  # X (side 0) to move wins in 3 plies
    slower = PositionEval(1.0, "4-9", mate=6)  # still won for X, 6 plies after the move played
    assert analysis.slower_or_sooner(before, slower, 0, slip) == pytest.approx(0.95**2 - 0.95**6)
    assert analysis.slower_or_sooner(before, PositionEval(1.0, "4-9", mate=2), 0, slip) == 0.0  # as fast
    # A different result is judged by the winning chances, not by the distance.
    assert analysis.slower_or_sooner(before, PositionEval(0.0, None, mate=0), 0, slip) == 0.0
    assert analysis.slower_or_sooner(before, PositionEval(1.0, "4-9"), 0, slip) == 0.0  # no distance


def test_the_search_values_of_the_moves_survive_storage_and_old_rows_still_load():
    table = (("e5", 0.2, 10), ("a1", -1.5, 3))
    position = PositionEval(0.1, "e5", ("e5",), score=0.2, root=table, deep=0.5, shallow=-0.1)
    assert PositionEval.from_dict(position.as_dict()) == position
    proven = PositionEval(1.0, "3-6", ("3-6",), mate=9)
    assert PositionEval.from_dict(proven.as_dict()) == proven
    old = {"chances": 0.1, "best": "e5", "line": ["e5"], "exact": None, "score": 0.2, "only": False}
    assert PositionEval.from_dict(old) == PositionEval(0.1, "e5", ("e5",), None, 0.2)


@pytest.mark.parametrize("slug", ["reversi", "ataxx", "quantum_ttt", "ultimate_ttt", "four_tac_toe"])
def test_compiled_and_python_analyses_both_give_the_moves_own_values(slug):
    engine = get(slug)
    state = after_random_moves(engine, 6, seed=3)
    compiled_eval = evaluate(engine, state)
    with pure_python():
        python_eval = evaluate(engine, state, analysis.PYTHON_BUDGET[slug])
    for position in (compiled_eval, python_eval):
        if slug in ("reversi", "ataxx"):  # the full-depth and one-ply-shallower values
            assert position.deep is not None and position.shallow is not None
            assert position.score == pytest.approx((position.deep + position.shallow) / 2, abs=1e-6)
        elif slug == "quantum_ttt":  # judged by the two positions, on both paths
            assert position.root == () and position.deep is None and position.shallow is None
        else:  # a root table with the best move in it, every value within the clip
            table = {move: value for move, value, _ in position.root}
            assert position.best in table and set(table) <= set(engine.legal_moves(state))
            clip = 2 * 1.8319  # twice atanh(0.95): the logit of a 97.5 % mean reward
            assert all(value <= clip + 1e-6 for value in table.values())
            if slug != "four_tac_toe":  # its left-out cells count the points they give up, unclipped
                assert all(value >= -clip - 1e-6 for value in table.values())


def test_a_four_tac_toe_cell_that_gives_points_away_counts_even_in_a_decided_game():
    # After 40 random marks, the cells that the search's tactical filter leaves out (they give the
    # opponent points or miss one's own) are in the table below the best move by the points they
    # give up, unclipped: in a decided game, where every mean reward is 0 or 1, they still count.
    engine = get("four_tac_toe")
    state = after_random_moves(engine, 40, seed=5)
    position = evaluate(engine, state)
    cells = free_cells(state)
    values = dict(zip(cells, tactical_values(state, cells), strict=True))
    table = {move: value for move, value, _ in position.root}
    top = max(values.values())
    left_out = [c for c in cells if values[c] < top]
    assert left_out, "this position has cells that give points away"
    for cell in left_out:
        gap = table[position.best] - table[FTT_TOKENS[cell]]
        assert gap == pytest.approx(2 * (top - values[cell]) / REWARD_SCALE)
    # A player who takes such a cell is not credited with a good move, decided game or not: a
    # point given up at one ply is a blunder by the search's reward (2/3 of a logit).
    move = FTT_TOKENS[left_out[0]]
    after = evaluate(engine, engine.play(state, move))
    side = engine.to_move(state)
    judged = judge_move(
        40, side, move, position, after, forced=False, scale=analysis.scale_of("four_tac_toe")
    )
    assert judged.kind == "blunder" and judged.best == position.best
