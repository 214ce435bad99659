"""Ataxx rules (SPEC 1.2), checked the way a player would, plus perft and properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engines.ataxx import AtaxxEngine, AtaxxState
from games.engines.ataxx_perft import perft_bitboards
from games.engines.base import IllegalMove, InvalidPosition, Outcome, OutcomeReason, perft

ENGINE = AtaxxEngine()
FILES = "abcdefg"

# From tests/data/ataxx_perft.txt (libataxx's suite, checked with tiktaxx).
PERFT_SUITE = [
    ("x5o/7/7/7/7/7/o5x x 0 1", [16, 256, 6460, 155888]),
    ("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1", [1, 75, 249, 14270]),
    ("7/7/7/2x1o2/7/7/7 x 0 1", [23, 419, 7887, 168317]),
    ("7/7/7/7/7/7/7 x 0 1", [0, 0, 0, 0]),
]


def position(fen: str) -> AtaxxState:
    return ENGINE.from_fen(fen)


def pieces(state: AtaxxState) -> dict[str, str]:
    """Occupied squares -> 'x' / 'o', read from the stored board rows (rank 7 first)."""
    rows = ENGINE.dumps(state)["board"]
    return {
        f"{FILES[f]}{7 - i}": char for i, row in enumerate(rows) for f, char in enumerate(row) if char != "."
    }


# -- a naive reference, written from the rules text, to compare against ------------------


def _coords(square: str) -> tuple[int, int]:
    return FILES.index(square[0]), int(square[1]) - 1


def _name(file: int, rank: int) -> str:
    return f"{FILES[file]}{rank + 1}"


def reference_moves(board: dict[str, str], me: str) -> set[str]:
    moves = set()
    for src, owner in board.items():
        if owner != me:
            continue
        sf, sr = _coords(src)
        for f in range(7):
            for r in range(7):
                dist = max(abs(f - sf), abs(r - sr))
                if _name(f, r) in board or dist not in (1, 2):
                    continue
                moves.add(_name(f, r) if dist == 1 else src + _name(f, r))
    return moves


def reference_play(board: dict[str, str], me: str, move: str) -> dict[str, str]:
    board = dict(board)
    dest = move[-2:]
    if len(move) == 4:
        del board[move[:2]]
    board[dest] = me
    df, dr = _coords(dest)
    for sq, owner in list(board.items()):
        f, r = _coords(sq)
        if owner != me and max(abs(f - df), abs(r - dr)) == 1:
            board[sq] = me
    return board


# -- the start ------------------------------------------------------------------------


def test_the_game_starts_with_x_on_a7_and_g1_and_o_on_g7_and_a1_with_x_to_move():
    state = ENGINE.initial()
    assert pieces(state) == {"a7": "x", "g1": "x", "g7": "o", "a1": "o"}
    assert ENGINE.to_move(state) == 0
    assert ENGINE.score(state) == (2, 2)
    assert ENGINE.outcome(state) is None
    assert ENGINE.fen(state) == "x5o/7/7/7/7/7/o5x x 0 1"


def test_x_has_six_clones_and_ten_jumps_at_the_start_clones_listed_first():
    assert ENGINE.legal_moves(ENGINE.initial()) == [
        # clones by destination square (a1, b1, ..., g1, a2, ...)
        "f1", "f2", "g2", "a6", "b6", "b7",
        # jumps by source square, then destination
        "g1e1", "g1e2", "g1e3", "g1f3", "g1g3",
        "a7a5", "a7b5", "a7c5", "a7c6", "a7c7",
    ]  # fmt: skip


# -- clones and jumps -----------------------------------------------------------------


def test_a_clone_keeps_its_source_and_adds_a_piece():
    state = ENGINE.play(ENGINE.initial(), "b6")
    assert pieces(state) == {"a7": "x", "b6": "x", "g1": "x", "g7": "o", "a1": "o"}
    assert ENGINE.score(state) == (3, 2)
    assert ENGINE.to_move(state) == 1


def test_a_jump_empties_its_source():
    state = ENGINE.play(ENGINE.initial(), "a7c5")
    assert pieces(state) == {"c5": "x", "g1": "x", "g7": "o", "a1": "o"}
    assert ENGINE.score(state) == (2, 2)


def test_a_clone_written_as_source_and_destination_is_refused():
    state = ENGINE.initial()
    assert "a7b6" not in ENGINE.legal_moves(state)
    with pytest.raises(IllegalMove, match="clone"):
        ENGINE.play(state, "a7b6")


def test_a_jump_reaches_every_square_at_distance_exactly_two_including_knight_like_offsets():
    state = position("7/7/7/3x3/7/7/o6 x 0 1")  # x on d4, o on a1
    ring = {"b2", "c2", "d2", "e2", "f2", "b3", "f3", "b4", "f4", "b5", "f5", "b6", "c6", "d6", "e6", "f6"}
    jumps = {m[2:] for m in ENGINE.legal_moves(state) if len(m) == 4}
    assert jumps == ring
    assert ENGINE.view(state)["targets"]["d4"]["jump"] == sorted(ring, key=lambda s: (s[1], s[0]))
    after = ENGINE.play(state, "d4e6")  # one file, two ranks: a knight's step
    assert pieces(after) == {"e6": "x", "a1": "o"}
    for too_far in ("d4g4", "d4a7", "d4d7", "d4g1"):
        with pytest.raises(IllegalMove, match="exactly 2"):
            ENGINE.play(state, too_far)


def test_a_clone_needs_a_friendly_piece_next_to_the_destination():
    state = ENGINE.initial()
    with pytest.raises(IllegalMove, match="next to"):
        ENGINE.play(state, "d4")


# -- captures -------------------------------------------------------------------------


def test_a_move_captures_enemy_pieces_in_all_eight_directions():
    # o on all eight neighbours of d4; x jumps in from d2.
    state = position("7/7/2ooo2/2o1o2/2ooo2/3x3/7 x 0 1")
    after = ENGINE.play(state, "d2d4")
    assert pieces(after) == {sq: "x" for sq in ("c5", "d5", "e5", "c4", "d4", "e4", "c3", "d3", "e3")}
    assert ENGINE.score(after) == (9, 0)


def test_a_clone_captures_too():
    state = position("7/7/7/1oo4/x6/7/7 x 0 1")  # x a3, o b4 c4
    after = ENGINE.play(state, "b3")
    assert pieces(after) == {"a3": "x", "b3": "x", "b4": "x", "c4": "x"}


def test_only_pieces_around_the_destination_turn():
    # x jumps a1 -> c3. o on b1 touches the source, o on e5 is two away from c3: both stay.
    state = position("7/7/4o2/7/3o3/7/xo5 x 0 1")
    after = ENGINE.play(state, "a1c3")
    assert pieces(after) == {"c3": "x", "d3": "x", "b1": "o", "e5": "o"}


def test_own_pieces_and_empty_squares_around_the_destination_are_unchanged():
    state = position("6o/7/7/7/1x5/1x5/x6 x 0 1")  # x a1 b2 b3, o far away on g7
    after = ENGINE.play(state, "a2")
    assert pieces(after) == {"a1": "x", "a2": "x", "b2": "x", "b3": "x", "g7": "o"}


# -- passing ----------------------------------------------------------------------------


def test_a_side_with_no_move_must_pass_with_0000_and_the_board_stays_as_it_was():
    state = position("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1")
    assert ENGINE.legal_moves(state) == ["0000"]
    after = ENGINE.play(state, "0000")
    assert (after.x, after.o) == (state.x, state.o)
    assert ENGINE.to_move(after) == 1
    assert len(ENGINE.legal_moves(after)) == 75


def test_0000_is_refused_while_you_have_a_move():
    with pytest.raises(IllegalMove, match="pass"):
        ENGINE.play(ENGINE.initial(), "0000")


# -- the end ------------------------------------------------------------------------------


def test_filling_the_last_square_ends_the_game_and_more_pieces_win():
    state = position("xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/ooooooo/ooooooo/oooooo1 x 0 1")
    assert ENGINE.legal_moves(state) == ["0000"]  # g1 is three ranks from x
    state = ENGINE.play(state, "0000")
    assert ENGINE.legal_moves(state)[0] == "g1"  # the clone; jumps from e1, f3, ... also fill it
    final = ENGINE.play(state, "g1")
    assert ENGINE.legal_moves(final) == []
    outcome = ENGINE.outcome(final)
    assert outcome is not None
    assert (outcome.winner, outcome.score, outcome.reason) == (0, (28, 21), "board_full")


def test_a_full_board_is_over_even_before_anyone_moves():
    state = position("ooooooo/ooooooo/ooooooo/ooooooo/xxxxxxx/xxxxxxx/xxxxxxx x 0 1")
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (1, "board_full")
    assert ENGINE.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.play(state, "0000")


def test_capturing_the_last_enemy_pieces_wins_at_once_with_squares_still_empty():
    state = position("7/7/7/7/7/1oo4/x6 x 0 1")  # x a1, o b2 c2
    final = ENGINE.play(state, "b1")
    outcome = ENGINE.outcome(final)
    assert outcome is not None
    assert (outcome.winner, outcome.score, outcome.reason) == (0, (4, 0), "wipeout")
    assert ENGINE.legal_moves(final) == []
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.play(final, "b3")


def test_a_side_without_pieces_has_lost_even_when_it_is_the_other_side_to_move():
    outcome = ENGINE.outcome(position("7/7/7/3o3/7/7/7 x 0 1"))
    assert outcome is not None
    assert (outcome.winner, outcome.score, outcome.reason) == (1, (0, 1), "wipeout")


def test_the_empty_board_is_over_and_a_draw_at_nought_all():
    # Equal counts can only end this way: a full board has 49 squares, an odd number.
    outcome = ENGINE.outcome(position("7/7/7/7/7/7/7 x 0 1"))
    assert outcome is not None
    assert (outcome.winner, outcome.score) == (None, (0, 0))


def test_the_move_counters_follow_libataxx():
    state = ENGINE.initial()
    state = ENGINE.play(state, "a7c5")  # jump: clock 1
    assert ENGINE.fen(state).split()[1:] == ["o", "1", "1"]
    state = ENGINE.play(state, "g7e5")  # jump: clock 2, o moved: fullmove 2
    assert ENGINE.fen(state).split()[1:] == ["x", "2", "2"]
    state = ENGINE.play(state, "d4")  # clone: clock back to 0
    assert ENGINE.fen(state).split()[1:] == ["o", "0", "2"]


# -- bad tokens --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("", "malformed"),
        ("h1", "malformed"),
        ("a8", "malformed"),
        ("a0", "malformed"),
        ("B6", "malformed"),
        (" b6", "malformed"),
        ("b6 ", "malformed"),
        ("pass", "malformed"),
        ("a7a7", "not a clone or a jump"),
        ("a7c5x", "malformed"),
        ("g7", "occupied"),  # o's piece
        ("a1c1", "no piece of yours"),  # o's piece: out of turn
        ("g7e5", "no piece of yours"),
        ("f7", "next to"),  # a clone next to o's g7 only
        ("c5a7", "no piece of yours"),
    ],
)
def test_malformed_off_board_occupied_and_out_of_turn_tokens_are_refused(move, message):
    state = ENGINE.initial()
    with pytest.raises(IllegalMove, match=message):
        ENGINE.play(state, move)
    assert state == ENGINE.initial()


def test_a_jump_onto_an_occupied_square_is_refused():
    state = ENGINE.play(ENGINE.play(ENGINE.initial(), "g1e3"), "a1c2")
    with pytest.raises(IllegalMove, match="c2 is occupied"):
        ENGINE.play(state, "e3c2")


def test_a_non_text_move_is_refused():
    with pytest.raises(IllegalMove):
        ENGINE.play(ENGINE.initial(), 42)  # type: ignore[arg-type]


# -- perft -------------------------------------------------------------------------------


@pytest.mark.parametrize(("fen", "counts"), PERFT_SUITE)
def test_perft_matches_the_published_figures(fen, counts):
    state = position(fen)
    for depth, expected in enumerate(counts, start=1):
        assert perft(ENGINE, state, depth) == expected, (fen, depth)


@pytest.mark.parametrize(("fen", "counts"), PERFT_SUITE)
def test_the_bitboard_perft_agrees_with_the_published_figures(fen, counts):
    me, opp = position(fen).mover()
    assert [perft_bitboards(me, opp, d) for d in range(1, len(counts) + 1)] == counts


# -- position text -------------------------------------------------------------------------


@pytest.mark.parametrize("fen", [fen for fen, _ in PERFT_SUITE] + ["x5o/7/7/7/7/7/o5x o 13 40"])
def test_fen_round_trips(fen):
    assert ENGINE.fen(position(fen)) == fen


def test_a_fen_without_counters_reads_as_a_fresh_game():
    assert position("x5o/7/7/7/7/7/o5x x") == ENGINE.initial()


@pytest.mark.parametrize(
    "fen",
    [
        "",
        "x5o/7/7/7/7/7/o5x",  # no side
        "x5o/7/7/7/7/7/o5x x 0",  # one counter
        "x5o/7/7/7/7/7/o5x x 0 1 extra",
        "x5o/7/7/7/7/7 x 0 1",  # six ranks
        "x5o/7/7/7/7/7/7/o5x x 0 1",  # eight ranks
        "x6o/7/7/7/7/7/o5x x 0 1",  # eight squares in a rank
        "x4o/7/7/7/7/7/o5x x 0 1",  # six
        "x5o/7/7/7/7/7/o8 x 0 1",
        "x5o/7/7/16/7/7/o5x x 0 1",  # a run of seven written as 1 and 6
        "x5o/7/7/3-3/7/7/o5x x 0 1",  # blocked square
        "X5O/7/7/7/7/7/O5X x 0 1",
        "x5o/7/7/7/7/7/o5x b 0 1",
        "x5o/7/7/7/7/7/o5x X 0 1",
        "x5o/7/7/7/7/7/o5x x -1 1",
        "x5o/7/7/7/7/7/o5x x 0 0",
        "x5o/7/7/7/7/7/o5x x a 1",
        "x5o/7/7/7/7/7/o5x x 3 1",  # a clock longer than the game
        "x5o/7/7/7/7/7/o5x x 0 ²",
    ],
)
def test_malformed_or_impossible_fens_are_refused(fen):
    with pytest.raises(InvalidPosition):
        ENGINE.from_fen(fen)


def test_dumps_is_json_and_loads_gives_the_same_state_back():
    state = ENGINE.play(ENGINE.initial(), "a7c5")
    data = json.loads(json.dumps(ENGINE.dumps(state)))
    assert data["game"] == "ataxx"
    assert ENGINE.loads(data) == state


@pytest.mark.parametrize(
    "change",
    [
        {"game": "reversi"},
        {"board": ["x.....o"] * 6},
        {"board": ["x.....o"] * 6 + ["o.....xx"]},
        {"board": ["x.....o"] * 6 + ["o....-x"]},
        {"board": "x.....o" * 7},
        {"to_move": 2},
        {"to_move": True},
        {"to_move": "0"},
        {"halfmove": -1},
        {"halfmove": 5},
        {"fullmove": 0},
        {"fullmove": 1.0},
    ],
)
def test_loads_refuses_bad_data(change):
    data = {**ENGINE.dumps(ENGINE.initial()), **change}
    with pytest.raises(InvalidPosition):
        ENGINE.loads(data)


def test_loads_refuses_something_that_is_not_a_dict():
    with pytest.raises(InvalidPosition):
        ENGINE.loads(["ataxx"])  # type: ignore[arg-type]


# -- the page view -------------------------------------------------------------------------


def test_the_view_has_the_board_moves_and_targets_per_piece():
    view = ENGINE.view(ENGINE.initial())
    json.dumps(view)
    assert len(view["cells"]) == 7 and all(len(row) == 7 for row in view["cells"])
    assert view["cells"][0][0] == {"square": "a7", "piece": "x"}
    assert view["cells"][6][6] == {"square": "g1", "piece": "x"}
    assert view["cells"][3][3] == {"square": "d4", "piece": None}
    assert view["to_move"] == 0 and view["score"] == [2, 2] and view["outcome"] is None
    assert view["legal_moves"] == ENGINE.legal_moves(ENGINE.initial())
    assert view["targets"] == {
        "g1": {"clone": ["f1", "f2", "g2"], "jump": ["e1", "e2", "e3", "f3", "g3"]},
        "a7": {"clone": ["a6", "b6", "b7"], "jump": ["a5", "b5", "c5", "c6", "c7"]},
    }
    assert view["board"] == ENGINE.dumps(ENGINE.initial())["board"]


def test_the_view_of_a_finished_game_has_its_outcome_and_no_targets():
    view = ENGINE.view(position("7/7/7/3o3/7/7/7 x 0 1"))
    assert view["outcome"] == {"winner": 1, "score": [0, 1], "reason": "wipeout"}
    assert view["targets"] == {} and view["legal_moves"] == []


# -- properties over random games ---------------------------------------------------------


@st.composite
def games(draw: st.DrawFn) -> list[AtaxxState]:
    """The states of a random game prefix (clones preferred so boards fill up)."""
    state = position(draw(st.sampled_from([fen for fen, _ in PERFT_SUITE[:3]])))
    states = [state]
    for _ in range(draw(st.integers(0, 60))):
        moves = ENGINE.legal_moves(state)
        if not moves:
            break
        clones = [m for m in moves if len(m) == 2]
        pool = clones if clones and draw(st.integers(0, 3)) else moves
        state = ENGINE.play(state, draw(st.sampled_from(pool)))
        states.append(state)
    return states


@settings(max_examples=40, deadline=None)
@given(games(), st.randoms(use_true_random=False))
def test_every_position_agrees_with_a_naive_reading_of_the_rules(states, rng):
    for state in states[::4] + states[-1:]:  # the naive reading is slow: a sample will do
        board = pieces(state)
        me = "xo"[state.side]
        moves = ENGINE.legal_moves(state)
        assert len(moves) == len(set(moves))
        if ENGINE.outcome(state) is not None:
            assert moves == []
            continue
        assert set(moves) == (reference_moves(board, me) or {"0000"})
        for move in rng.sample(moves, min(3, len(moves))):
            if move != "0000":
                assert pieces(ENGINE.play(state, move)) == reference_play(board, me, move)


@settings(max_examples=60, deadline=None)
@given(games(), st.randoms(use_true_random=False))
def test_random_games_keep_the_contract(states, rng):
    for state in states:
        before = ENGINE.dumps(state)
        moves = ENGINE.legal_moves(state)
        outcome = ENGINE.outcome(state)
        assert (moves == []) == (outcome is not None)
        assert ENGINE.loads(json.loads(json.dumps(before))) == state
        # A FEN carries the counters but not the history of repetitions.
        assert ENGINE.from_fen(ENGINE.fen(state)) == state._replace(history=())
        x, o = ENGINE.score(state)
        assert x + o == len(pieces(state)) <= 49
        assert state.x & state.o == 0
        if outcome is not None:
            assert outcome.score == (x, o)
            assert outcome.winner == (None if x == o else int(o > x))
            continue
        # No game ends with nobody able to move: while it runs, someone can.
        if moves == ["0000"]:
            assert ENGINE.legal_moves(ENGINE.play(state, "0000")) != ["0000"]
        for move in rng.sample(moves, min(5, len(moves))):
            ENGINE.play(state, move)
        assert ENGINE.dumps(state) == before  # playing never changed the input


@settings(max_examples=40, deadline=None)
@given(games(), st.data())
def test_occupied_out_of_turn_and_long_clone_tokens_raise_in_any_position(states, data):
    state = states[-1]
    if ENGINE.outcome(state) is not None:
        with pytest.raises(IllegalMove):
            ENGINE.play(state, "a1")
        return
    board = pieces(state)
    me = "xo"[state.side]
    occupied = data.draw(st.sampled_from(sorted(board)))
    with pytest.raises(IllegalMove):
        ENGINE.play(state, occupied)
    for src, owner in board.items():
        f, r = _coords(src)
        for df in (-2, -1, 0, 1, 2):
            for dr in (-2, -1, 0, 1, 2):
                if not (0 <= f + df < 7 and 0 <= r + dr < 7) or (df, dr) == (0, 0):
                    continue
                token = src + _name(f + df, r + dr)
                if owner != me or max(abs(df), abs(dr)) == 1 or token[2:] in board:
                    with pytest.raises(IllegalMove):
                        ENGINE.play(state, token)


# -- draws by rule (SPEC 1.2, issue #38) ------------------------------------------------

# x on a7 and g1, o on g7 and a1: each side can jump a piece out and back for ever.
SHUFFLE = ["a7c5", "g7e5", "c5a7", "e5g7"]


def test_a_position_back_for_the_third_time_with_the_same_side_to_move_is_a_draw():
    state = ENGINE.initial()
    for move in SHUFFLE * 2:
        assert ENGINE.outcome(state) is None
        state = ENGINE.play(state, move)
    # The start position, x to move, for the third time.
    assert (state.x, state.o, state.side) == (ENGINE.initial().x, ENGINE.initial().o, 0)
    outcome = ENGINE.outcome(state)
    assert outcome == Outcome(winner=None, score=(2, 2), reason=OutcomeReason.REPETITION)
    assert ENGINE.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.play(state, "b6")


def test_the_same_pieces_with_the_other_side_to_move_are_another_position():
    state = ENGINE.initial()
    for move in SHUFFLE * 2:
        state = ENGINE.play(state, move)
        if state.side == 1:
            assert ENGINE.outcome(state) is None


def test_a_clone_starts_the_count_of_repetitions_again():
    state = ENGINE.initial()
    for move in SHUFFLE:
        state = ENGINE.play(state, move)
    state = ENGINE.play(state, "b6")  # x clones; o to move
    assert state.history == () and state.halfmove == 0
    for move in ["g7e5", "a7c5", "e5g7", "c5a7"] * 2:
        state = ENGINE.play(state, move)
    assert ENGINE.outcome(state).reason == OutcomeReason.REPETITION
    assert len(state.history) == 8


def test_a_hundred_plies_without_a_clone_is_a_draw_and_captures_do_not_reset_the_count():
    state = position("x5o/7/7/7/7/7/o5x x 98 60")
    state = ENGINE.play(state, "a7c5")
    assert ENGINE.outcome(state) is None and state.halfmove == 99
    state = ENGINE.play(state, "g7e5")
    assert state.halfmove == 100
    assert ENGINE.outcome(state) == Outcome(winner=None, score=(2, 2), reason=OutcomeReason.NO_CLONES)
    assert ENGINE.legal_moves(state) == []


def test_a_capturing_jump_does_not_reset_the_halfmove_clock():
    state = position("x5o/7/7/2o4/7/7/o5x x 10 30")
    state = ENGINE.play(state, "a7b5")  # a jump next to c4's o: captures it
    assert state.o.bit_count() == 2 and state.halfmove == 11


def test_the_halfmove_clock_at_the_limit_round_trips_through_the_fen():
    fen = "x5o/7/7/7/7/7/o5x x 100 60"
    state = position(fen)
    assert ENGINE.fen(state) == fen
    assert ENGINE.outcome(state).reason == OutcomeReason.NO_CLONES
    assert (
        ENGINE.fen(ENGINE.play(position("x5o/7/7/7/7/7/o5x x 57 60"), "a7c5")) == "6o/7/2x4/7/7/7/o5x o 58 60"
    )


def test_the_history_round_trips_through_dumps_and_bad_history_is_refused():
    state = ENGINE.initial()
    for move in SHUFFLE + SHUFFLE[:3]:
        state = ENGINE.play(state, move)
    data = json.loads(json.dumps(ENGINE.dumps(state)))
    assert ENGINE.loads(data) == state and len(data["history"]) == 7
    assert ENGINE.outcome(ENGINE.play(ENGINE.loads(data), SHUFFLE[3])).reason == OutcomeReason.REPETITION
    for bad in (["zz"], [1], "00", ["3"] * 8):
        with pytest.raises(InvalidPosition):
            ENGINE.loads({**data, "history": bad})
