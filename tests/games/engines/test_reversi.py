"""Reversi (Othello rules, SPEC 1.1), checked the way a player would, plus perft and properties."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engines.base import IllegalMove, InvalidPosition, perft, replay
from games.engines.reversi import (
    START_BLACK,
    START_WHITE,
    ReversiEngine,
    ReversiState,
    perft_bits,
)

ENGINE = ReversiEngine()
COLUMNS = "abcdefgh"
SQUARES = [f"{c}{r}" for r in range(1, 9) for c in COLUMNS]  # a1..h1, a2..h2, ...

# tests/data/reversi_perft.txt: Othello perft from the start, a pass counting as a ply.
PERFT_FROM_START = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]

# tests/data/fforum-1-19.obf (FFO endgame positions 1-19, as shipped with Edax): the
# position, then every legal move with its exact final disc difference, best first.
FFORUM_1_19 = [
    "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; H7:+6; A2:+6; A3:+4; B1:-4; A4:-22; G2:-24;",
    "-XXXXXX---XOOOO--XOXXOOX-OOOOOOOOOOOXXOOOOOXXOOX--XXOO----XXXXX- X; A4:+10; B2:+0; A3:-6; G7:-8; A7:-12; H7:-14; B7:-14; H2:-24;",
    "----OX----OOXX---OOOXX-XOOXXOOOOOXXOXXOOOXXXOOOOOXXXXOXO--OOOOOX X; D1:+2; G3:+0; B8:-2; B1:-4; C1:-4; A2:-4; A3:-6; B2:-12;",
    "-XXXXXX-X-XXXOO-XOXXXOOXXXOXOOOX-OXOOXXX--OOOXXX--OOXX----XOXXO- X; H8:+0; A5:+0; B6:-4; B7:-4; A6:-8; B2:-12; H2:-26;",
    "-OOOOO----OXXO-XXXOXOXX-XXOXOXXOXXOOXOOOXXXXOO-OX-XOOO---XXXXX-- X; G8:+32; G2:+12; B2:-20; G6:-26; G1:-32; G7:-34;",
    "--OXXX--OOOXXX--OOOXOXO-OOXOOOX-OOXXXXXXXOOXXOX--OOOOX---XXXXXX- X; A1:+14; H3:+14; A8:+12; H2:+8; G2:+8; H4:+4; G7:+4; A7:-22; B1:-24;",
    "--OXXO--XOXXXX--XOOOXXXXXOOXXXXXXOOOOXXX-XXXXXXX--XXOOO----XXOO- X; A6:+8; G1:+0; A1:-2; H8:-6; H7:-14; B1:-30;",
    "---X-X--X-XXXX--XXXXOXXXXXXOOOOOXXOXXXO-XOXXXXO-XOOXXX--XOOXXO-- O; E1:+8; H2:+4; G2:+4; B2:+4; G7:+4; B1:+2; G1:-6; C1:-8;",
    "--XOXX--O-OOXXXX-OOOXXXX-XOXXXOXXXOXOOOXOXXOXOXX--OXOO----OOOO-- O; G7:-8; A4:-8; B1:-16; A7:-16; B7:-26; A3:-30; G1:-38; H7:-40;",
    "-XXXX-----OXXX--XOXOXOXXOXOXXOXXOXXOXOOOXXXOXOOX--OXXO---OOOOO-- O; B2:+10; B7:+4; F1:+0; A7:-4; A2:-6; G2:-12; H2:-16; H7:-20;",
    "---O-XOX----XXOX---XXOOXO-XXOXOXXXXOOXOX-XOOXXXXXOOOXX-XOOOOOOO- O; B3:+30; C2:+26; A6:+24; G7:+20; C3:+18; D2:+16; B4:+10; E1:+6;",
    "--O--O--X-OOOOX-XXOOOXOOXXOXOXOOXXOXXOOOXXXXOOOO--OXXX---XXXXX-- O; B7:-8; A7:-10; G7:-14; G8:-14; H2:-16; G1:-16; H1:-20;",
    "--XXXXX--OOOXX---OOOXXXX-OXOXOXXOXXXOXXX--XOXOXX--OXOOO--OOOOO-- X; B7:+14; A4:+0; A3:-8; B1:-18; G8:-20; H7:-20; A2:-24;",
    "--XXXXX---OOOX---XOOXXXX-OOOOOOOOOOXXXOOOOOXXOOX--XXOO----XXXXX- X; A3:+18; A4:+12; B1:+8; G7:-4; H7:-14; A7:-24; B7:-24; B2:-28;",
    "----O------OOX---OOOXX-XOOOXOOOOOXXOXXOOOXXXOOOOOXXXOOXO--OOOOOX X; G3:+4; B8:+4; F1:+0; C1:+0; C2:-2; D1:-4; B2:-8; A3:-8;",
    "-XXXXXX-X-XXXOO-XOXXXOOXXOOXXXOX-OOOXXXX--OOXXXX---OOO----XOX-O- X; F8:+24; C7:+20; A5:+6; H1:+6; B6:+0; B7:-2; A6:-6; H2:-26;",
    "-OOOOO----OXXO-XXXOOOXX-XXOXOXXOXXOOXOOOXXXXOO-OX-XOO----XXXX--- X; F8:+8; G2:+6; G6:-24; G1:-32; F7:-32; G7:-34; B2:-38;",
    "-XXX------OOOX--XOOOOOXXOXOXOOXXOXXOOOOOXXXOXOOX--OXXO---OOOOO-- X; G2:-2; B7:-6; F1:-8; E1:-10; H7:-12; G8:-14; G7:-14; A2:-18; B2:-18;",
    "--OXXO--XOXXXX--XOOOOXXXXOOOXXXXX-OOOXXX--OOOOXX--XXOOO----XXOO- X; B6:+8; H8:+4; B7:+0; G1:-6; B5:-16; H7:-16; B1:-24;",
]

# The shortest possible game: black wipes white out on move 9, 13-0.
SHORTEST_GAME = ["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"]
# After these eight moves black has no move but white does.
BLACK_MUST_PASS = ["e6", "f6", "c4", "e7", "e8", "d8", "g6", "f8"]


def board(discs: dict[str, str], to_move: str = "X") -> ReversiState:
    """A position from {square: 'X' or 'O'} (empty elsewhere)."""
    text = "".join(discs.get(sq, "-") for sq in SQUARES)
    return ENGINE.from_fen(f"{text} {to_move}")


def discs_of(state: ReversiState) -> dict[str, str]:
    text = ENGINE.fen(state).split()[0]
    return {sq: char for sq, char in zip(SQUARES, text, strict=True) if char != "-"}


def fill(text: str, **squares: str) -> str:
    """A 64-square board of ``text`` repeated, with some squares changed."""
    cells = dict(zip(SQUARES, text * (64 // len(text)), strict=True))
    cells.update(squares)
    return "".join(cells[sq] for sq in SQUARES)


# -- a naive reference, written from the rules text, to compare against ---------------------

DIRECTIONS = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]


def reference_flips(cells: dict[str, str], me: str, square: str) -> set[str]:
    other = "O" if me == "X" else "X"
    col, row = COLUMNS.index(square[0]), int(square[1])
    flipped: set[str] = set()
    for dc, dr in DIRECTIONS:
        run, c, r = [], col + dc, row + dr
        while 0 <= c < 8 and 1 <= r <= 8 and cells.get(f"{COLUMNS[c]}{r}") == other:
            run.append(f"{COLUMNS[c]}{r}")
            c, r = c + dc, r + dr
        if run and 0 <= c < 8 and 1 <= r <= 8 and cells.get(f"{COLUMNS[c]}{r}") == me:
            flipped.update(run)
    return flipped


def reference_moves(cells: dict[str, str], me: str) -> set[str]:
    return {sq for sq in SQUARES if sq not in cells and reference_flips(cells, me, sq)}


# -- the start --------------------------------------------------------------------------------


def test_the_game_starts_with_two_discs_each_in_the_centre_and_black_to_move():
    state = ENGINE.initial()
    assert discs_of(state) == {"d4": "O", "e5": "O", "d5": "X", "e4": "X"}
    assert ENGINE.to_move(state) == 0
    assert ENGINE.score(state) == (2, 2)
    assert ENGINE.outcome(state) is None


def test_black_has_exactly_the_four_classic_first_moves():
    assert sorted(ENGINE.legal_moves(ENGINE.initial())) == ["c4", "d3", "e6", "f5"]


def test_the_engine_names_itself():
    assert (ENGINE.slug, ENGINE.name, ENGINE.pass_move) == ("reversi", "Reversi", "pass")


def test_each_first_move_flips_the_one_white_disc_between():
    expected = {"d3": "d4", "c4": "d4", "f5": "e5", "e6": "e5"}
    for move, flipped in expected.items():
        after = ENGINE.play(ENGINE.initial(), move)
        assert discs_of(after)[move] == "X"
        assert discs_of(after)[flipped] == "X"
        assert ENGINE.score(after) == (4, 1)
        assert ENGINE.to_move(after) == 1


def test_white_answers_d3_with_the_three_usual_replies():
    after = ENGINE.play(ENGINE.initial(), "d3")
    assert sorted(ENGINE.legal_moves(after)) == ["c3", "c5", "e3"]


# -- flipping ---------------------------------------------------------------------------------


def test_a_move_flips_discs_in_all_eight_directions_at_once():
    # c3 is surrounded by white discs, each backed by a black one further out.
    state = board(
        {
            "b3": "O", "a3": "X",  # west
            "d3": "O", "e3": "X",  # east
            "c2": "O", "c1": "X",  # up
            "c4": "O", "c5": "X",  # down
            "b2": "O", "a1": "X",  # up-left
            "d2": "O", "e1": "X",  # up-right
            "b4": "O", "a5": "X",  # down-left
            "d4": "O", "e5": "X",  # down-right
            "e4": "O", "d5": "O",
        }
    )  # fmt: skip
    after = ENGINE.play(state, "c3")
    turned = {"b3", "d3", "c2", "c4", "b2", "d2", "b4", "d4"}
    assert {sq for sq, c in discs_of(after).items() if c == "O"} == {"e4", "d5"}
    assert all(discs_of(after)[sq] == "X" for sq in turned | {"c3"})
    assert ENGINE.score(after) == (17, 2)


def test_a_long_line_flips_entirely_but_an_open_line_does_not():
    state = board(
        {
            "a1": "X", "b1": "O", "c1": "O", "d1": "O", "e1": "O", "f1": "O",  # closed by a1
            "g2": "O", "g3": "O",  # g4 is empty: this line is open
            "f2": "O", "e3": "O", "d4": "O",  # c5 is empty: open too
            "e4": "O", "d5": "O", "e5": "X",
        }
    )  # fmt: skip
    after = discs_of(ENGINE.play(state, "g1"))
    assert all(after[sq] == "X" for sq in ("b1", "c1", "d1", "e1", "f1", "g1"))
    assert all(after[sq] == "O" for sq in ("g2", "g3", "f2", "e3", "d4"))


def test_a_move_that_flips_nothing_is_refused():
    start = ENGINE.initial()
    # c3 touches the white disc on d4, but e5 behind it is white and f6 is empty.
    with pytest.raises(IllegalMove, match="does not flip"):
        ENGINE.play(start, "c3")
    with pytest.raises(IllegalMove):
        ENGINE.play(start, "a1")


def test_playing_on_an_occupied_square_is_refused():
    with pytest.raises(IllegalMove, match="occupied"):
        ENGINE.play(ENGINE.initial(), "d4")


@pytest.mark.parametrize("token", ["D3", "d9", "i1", "a0", "d", "", "d3 ", " d3", "3d", "d33", "PASS"])
def test_malformed_and_off_board_tokens_are_refused(token):
    with pytest.raises(IllegalMove):
        ENGINE.play(ENGINE.initial(), token)


@pytest.mark.parametrize("token", [None, 19, ("d", 3), ["d3"]])
def test_tokens_that_are_not_text_are_refused(token):
    with pytest.raises(IllegalMove):
        ENGINE.play(ENGINE.initial(), token)


def test_a_move_only_the_other_side_could_make_is_refused():
    # e3 is one of white's first moves; for black it closes nothing.
    with pytest.raises(IllegalMove):
        ENGINE.play(ENGINE.initial(), "e3")


def test_you_cannot_pass_while_you_have_a_move():
    with pytest.raises(IllegalMove, match="cannot pass"):
        ENGINE.play(ENGINE.initial(), "pass")


# -- passing and the end ------------------------------------------------------------------------


def test_a_player_without_a_move_must_pass_and_only_pass():
    state = replay(ENGINE, BLACK_MUST_PASS)
    assert ENGINE.to_move(state) == 0
    assert ENGINE.legal_moves(state) == ["pass"]
    assert ENGINE.outcome(state) is None
    assert reference_moves(discs_of(state), "X") == set()
    for sq in SQUARES:
        with pytest.raises(IllegalMove):
            ENGINE.play(state, sq)
    after = ENGINE.play(state, "pass")
    assert ENGINE.to_move(after) == 1
    assert discs_of(after) == discs_of(state)
    assert ENGINE.legal_moves(after) != ["pass"]


def test_the_shortest_game_ends_when_white_is_wiped_out():
    state = replay(ENGINE, SHORTEST_GAME)
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.score, outcome.reason) == (0, (13, 0), "wipeout")
    assert ENGINE.legal_moves(state) == []
    for token in ["pass", "a1", "h8"]:
        with pytest.raises(IllegalMove):
            ENGINE.play(state, token)


def test_the_game_ends_when_the_last_square_is_filled():
    # Black on every square but g8 (white), b1 (white) and h8 (empty).
    state = ENGINE.from_fen(fill("X", g8="O", b1="O", h8="-") + " X")
    assert ENGINE.legal_moves(state) == ["h8"]
    after = ENGINE.play(state, "h8")
    outcome = ENGINE.outcome(after)
    assert (outcome.winner, outcome.score, outcome.reason) == (0, (63, 1), "board_full")
    assert ENGINE.legal_moves(after) == []


def test_the_game_ends_with_empty_squares_when_neither_side_can_move():
    # a1 is empty but no line through it holds a white disc.
    state = ENGINE.from_fen(fill("X", a1="-", g8="O") + " X")
    outcome = ENGINE.outcome(state)
    assert (outcome.winner, outcome.score, outcome.reason) == (0, (62, 1), "no_moves")
    assert ENGINE.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.play(state, "a1")


def test_equal_disc_counts_are_a_draw():
    state = ENGINE.from_fen("X" * 32 + "O" * 32 + " O")
    outcome = ENGINE.outcome(state)
    assert (outcome.winner, outcome.score, outcome.reason) == (None, (32, 32), "board_full")


def test_more_white_discs_win_for_white():
    state = ENGINE.from_fen(fill("O", a1="-", g8="X") + " O")
    assert ENGINE.outcome(state).winner == 1


def test_the_score_is_the_disc_count():
    state = replay(ENGINE, ["d3", "c5", "f6"])
    cells = discs_of(state)
    assert ENGINE.score(state) == (
        sum(c == "X" for c in cells.values()),
        sum(c == "O" for c in cells.values()),
    )
    assert sum(ENGINE.score(state)) == 7


# -- perft -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", range(1, 8))
def test_perft_from_the_start_matches_the_published_counts(depth):
    assert perft(ENGINE, ENGINE.initial(), depth) == PERFT_FROM_START[depth - 1]


def test_bitboard_perft_reaches_depth_eight():
    assert perft_bits(START_BLACK, START_WHITE, 8) == PERFT_FROM_START[7]


# -- position text and storage ----------------------------------------------------------------------


def test_every_fforum_position_round_trips_through_fen_and_has_the_published_moves():
    assert len(FFORUM_1_19) == 19
    for line in FFORUM_1_19:
        text, _, answers = line.partition(";")
        text = text.strip()
        state = ENGINE.from_fen(text)
        assert ENGINE.fen(state) == text
        assert ENGINE.to_move(state) == "XO".index(text[-1])
        published = {pair.split(":")[0].strip().lower() for pair in answers.split(";") if pair.strip()}
        assert set(ENGINE.legal_moves(state)) == published


def test_the_start_position_text_is_the_obf_form():
    assert ENGINE.fen(ENGINE.initial()) == "-" * 27 + "OX------XO" + "-" * 27 + " X"
    assert ENGINE.from_fen(ENGINE.fen(ENGINE.initial())) == ENGINE.initial()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "X",
        "-" * 27 + "OX------XO" + "-" * 27,  # no side to move
        "-" * 27 + "OX------XO" + "-" * 27 + " X;",  # .obf trailing semicolon
        "-" * 27 + "OX------XO" + "-" * 27 + " x",  # lower-case side
        "-" * 27 + "OX------XO" + "-" * 27 + " B",
        "-" * 27 + "OX------XO" + "-" * 26 + " X",  # 63 squares
        "-" * 27 + "OX------XO" + "-" * 28 + " X",  # 65 squares
        "-" * 27 + "ox------xo" + "-" * 27 + " X",  # lower-case discs
        "-" * 27 + "O.------XO" + "-" * 27 + " X",  # stray character
        "-" * 27 + "OX------XO" + "-" * 27 + "  X",  # two spaces
    ],
)
def test_malformed_position_text_is_refused(text):
    with pytest.raises(InvalidPosition):
        ENGINE.from_fen(text)


def test_position_text_that_is_not_a_string_is_refused():
    with pytest.raises(InvalidPosition):
        ENGINE.from_fen(None)  # type: ignore[arg-type]


def test_a_board_with_an_empty_centre_square_is_impossible():
    text = "-" * 27 + "-X------XO" + "-" * 27 + " X"
    with pytest.raises(InvalidPosition, match="centre"):
        ENGINE.from_fen(text)


def test_a_disc_not_connected_to_the_others_is_impossible():
    with pytest.raises(InvalidPosition, match="h8"):
        ENGINE.from_fen("-" * 27 + "OX------XO" + "-" * 26 + "X X")


def test_four_discs_can_only_be_the_start_with_black_to_move():
    with pytest.raises(InvalidPosition, match="start"):
        ENGINE.from_fen("-" * 27 + "OX------XO" + "-" * 27 + " O")
    with pytest.raises(InvalidPosition, match="start"):
        ENGINE.from_fen("-" * 27 + "XO------OX" + "-" * 27 + " X")


def test_the_side_that_just_moved_cannot_have_lost_every_disc():
    # All black: white cannot have made the last move, so it cannot be black's turn...
    with pytest.raises(InvalidPosition, match="turn"):
        ENGINE.from_fen("X" * 64 + " X")
    # ... but a finished game with white to move is fine.
    assert ENGINE.outcome(ENGINE.from_fen("X" * 64 + " O")).reason == "wipeout"


def test_dumps_is_json_and_loads_gives_the_same_state():
    state = replay(ENGINE, ["d3", "c5", "f6", "f5"])
    data = ENGINE.dumps(state)
    assert data["game"] == "reversi"
    assert ENGINE.loads(json.loads(json.dumps(data))) == state


@pytest.mark.parametrize(
    "change",
    [
        {"game": "ataxx"},
        {"to_move": 2},
        {"to_move": True},
        {"to_move": "0"},
        {"board": "X" * 63},
        {"board": ["X"] * 64},
        {"board": "-" * 64},
        {"colour": "black"},
    ],
)
def test_loads_refuses_bad_or_impossible_data(change):
    data = {**ENGINE.dumps(ENGINE.initial()), **change}
    with pytest.raises(InvalidPosition):
        ENGINE.loads(data)


def test_loads_refuses_missing_keys_and_non_dicts():
    for data in [{}, {"game": "reversi"}, [], "reversi", None]:
        with pytest.raises(InvalidPosition):
            ENGINE.loads(data)  # type: ignore[arg-type]


def test_the_view_has_what_the_page_draws():
    state = ENGINE.play(ENGINE.initial(), "d3")
    view = ENGINE.view(state)
    json.dumps(view)
    assert view["game"] == "reversi" and view["board"] == ENGINE.dumps(state)["board"]
    assert view["to_move"] == 1
    assert view["legal_moves"] == ENGINE.legal_moves(state)
    assert view["score"] == [4, 1]
    assert view["outcome"] is None
    cells = view["cells"]
    assert len(cells) == 64
    assert cells[SQUARES.index("d3")] == 0 and cells[SQUARES.index("e5")] == 1 and cells[0] is None
    assert view["flips"] == {"c3": ["d4"], "e3": ["e4"], "c5": ["d5"]}


def test_the_view_of_a_finished_game_shows_the_outcome():
    view = ENGINE.view(replay(ENGINE, SHORTEST_GAME))
    assert view["outcome"] == {"winner": 0, "score": [13, 0], "reason": "wipeout"}
    assert view["legal_moves"] == [] and view["flips"] == {}


# -- properties over random games ---------------------------------------------------------------------


@st.composite
def random_games(draw: st.DrawFn) -> list[ReversiState]:
    """The positions of a random game (prefix), start included."""
    choices = draw(st.lists(st.integers(min_value=0, max_value=10**6), max_size=70))
    states = [ENGINE.initial()]
    for choice in choices:
        moves = ENGINE.legal_moves(states[-1])
        if not moves:
            break
        states.append(ENGINE.play(states[-1], moves[choice % len(moves)]))
    return states


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_legal_moves_match_the_rules_text(states):
    for state in states:
        me = "XO"[ENGINE.to_move(state)]
        cells = discs_of(state)
        reference = reference_moves(cells, me)
        moves = ENGINE.legal_moves(state)
        if reference:
            assert set(moves) == reference
        elif reference_moves(cells, "O" if me == "X" else "X"):
            assert moves == ["pass"]
        else:
            assert moves == []
        for move in moves:
            if move != "pass":
                after = discs_of(ENGINE.play(state, move))
                changed = {sq for sq in cells if after[sq] != cells[sq]}
                assert changed == reference_flips(cells, me, move)


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_play_never_changes_its_input_and_text_round_trips(states):
    for state in states:
        before = (state, ENGINE.fen(state))
        for move in ENGINE.legal_moves(state):
            ENGINE.play(state, move)
        assert (state, ENGINE.fen(state)) == before
        assert ENGINE.loads(json.loads(json.dumps(ENGINE.dumps(state)))) == state
        assert ENGINE.from_fen(ENGINE.fen(state)) == state
        assert hash(state) == hash(ENGINE.from_fen(ENGINE.fen(state)))


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_the_game_is_over_exactly_when_there_is_no_move(states):
    for state in states:
        assert (ENGINE.legal_moves(state) == []) == (ENGINE.outcome(state) is not None)
    last = states[-1]
    outcome = ENGINE.outcome(last)
    if outcome is not None:
        black, white = ENGINE.score(last)
        assert outcome.score == (black, white)
        assert outcome.winner == (None if black == white else 0 if black > white else 1)


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_each_placement_adds_one_disc_and_the_score_matches_the_board(states):
    for before, after in pairwise(states):
        added = sum(ENGINE.score(after)) - sum(ENGINE.score(before))
        if discs_of(after) == discs_of(before):  # a pass: same board, other side to move
            assert ENGINE.legal_moves(before) == ["pass"]
            assert ENGINE.to_move(after) != ENGINE.to_move(before)
        else:
            assert added == 1
        text = ENGINE.fen(after).split()[0]
        assert ENGINE.score(after) == (text.count("X"), text.count("O"))
        assert sum(ENGINE.score(after)) == 64 - text.count("-")


@settings(max_examples=40, deadline=None)
@given(random_games(), st.data())
def test_bad_tokens_are_refused_in_any_position(states, data):
    state = data.draw(st.sampled_from(states))
    legal = set(ENGINE.legal_moves(state))
    cells = discs_of(state)
    occupied = data.draw(st.sampled_from(sorted(cells)))
    with pytest.raises(IllegalMove):
        ENGINE.play(state, occupied)
    empty_not_legal = [sq for sq in SQUARES if sq not in cells and sq not in legal]
    if empty_not_legal:
        with pytest.raises(IllegalMove):
            ENGINE.play(state, data.draw(st.sampled_from(empty_not_legal)))
    if "pass" not in legal:
        with pytest.raises(IllegalMove):
            ENGINE.play(state, "pass")
    junk = data.draw(st.text(max_size=4).filter(lambda t: t not in legal))
    with pytest.raises(IllegalMove):
        ENGINE.play(state, junk)
