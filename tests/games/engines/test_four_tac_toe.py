"""Four Tac Toe rules (SPEC 1.5): lines, scoring, the hover rule, text and storage."""

from __future__ import annotations

import json
import random
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engines.base import IllegalMove, InvalidPosition, perft
from games.engines.four_tac_toe import (
    ALL_LINES,
    LINES,
    FourTacToeEngine,
    lines_table,
)

ENGINE = FourTacToeEngine()
START = "9/9/9/9/4*4/9/9/9/9 X"


def token(w: int, x: int, y: int, z: int) -> str:
    """SPEC 1.5: (w, x, y, z) is drawn on row 3w + y from the top, column 3x + z."""
    return f"{'abcdefghi'[3 * x + z]}{9 - (3 * w + y)}"


def coords(cell: str) -> tuple[int, int, int, int]:
    row, col = 9 - int(cell[1]), "abcdefghi".index(cell[0])
    return row // 3, col // 3, row % 3, col % 3


def is_straight(line: tuple[str, str, str]) -> bool:
    """Three cells p, p + d, p + 2d (in some order) with d in {-1, 0, 1}^4 minus zero."""
    cells = [coords(c) for c in line]
    for a, b, c in ((0, 1, 2), (1, 0, 2), (0, 2, 1)):
        step = [q - p for p, q in zip(cells[a], cells[b], strict=True)]
        straight = [q - p for p, q in zip(cells[b], cells[c], strict=True)] == step
        if any(step) and all(s in (-1, 0, 1) for s in step) and straight:
            return True
    return False


def spanned(line: tuple[str, str, str]) -> int:
    """How many of the four coordinates change along a line."""
    a, b = coords(line[0]), coords(line[1])
    return sum(1 for p, q in zip(a, b, strict=True) if p != q)


def lines_owned(cells: set[str]) -> int:
    """Independent count: scoring lines whose three cells are all in ``cells``."""
    return sum(1 for line in LINES if set(line) <= cells)


def grid_fen(rows: list[str], side: str) -> str:
    """A position from 9 rows of 9 characters (x, o, ., * at e5), rank 9 first."""
    ranks = []
    for row in rows:
        out, run = "", 0
        for char in row.replace(" ", ""):
            if char == ".":
                run += 1
                continue
            out += (str(run) if run else "") + char
            run = 0
        ranks.append(out + (str(run) if run else ""))
    return f"{'/'.join(ranks)} {side}"


def play_all(moves: list[str]) -> object:
    state = ENGINE.initial()
    for move in moves:
        state = ENGINE.play(state, move)
    return state


# ---------------------------------------------------------------------------
# The lines


def test_there_are_272_lines_of_which_40_run_through_the_centre_and_232_score() -> None:
    assert len(ALL_LINES) == len(set(map(frozenset, ALL_LINES))) == 272
    assert sum(1 for line in ALL_LINES if "e5" in line) == 40
    assert len(LINES) == 232
    assert not any("e5" in line for line in LINES)
    assert set(LINES) <= set(ALL_LINES)
    assert lines_table() == [list(line) for line in LINES]


def test_every_line_is_three_cells_in_one_straight_4d_step() -> None:
    assert all(is_straight(line) for line in ALL_LINES)
    # and every straight triple is a line: count them from the definition
    cells = [token(*p) for p in product(range(3), repeat=4)]
    triples = {
        frozenset(
            (
                token(*p),
                token(*(a + b for a, b in zip(p, d, strict=True))),
                token(*(a + 2 * b for a, b in zip(p, d, strict=True))),
            )
        )
        for p in product(range(3), repeat=4)
        for d in product((-1, 0, 1), repeat=4)
        if any(d) and all(0 <= a + 2 * b <= 2 for a, b in zip(p, d, strict=True))
    }
    assert len(cells) == 81 and triples == set(map(frozenset, ALL_LINES))


def test_the_coordinates_follow_the_spec_drawing() -> None:
    assert token(0, 0, 0, 0) == "a9"
    assert token(1, 1, 1, 1) == "e5"
    assert token(2, 2, 2, 2) == "i1"
    assert token(0, 2, 0, 0) == "g9"  # x picks the board column
    assert token(2, 0, 0, 0) == "a3"  # w picks the board row


def test_a_line_inside_one_board_scores_a_point() -> None:
    assert ("a9", "b9", "c9") in LINES
    state = play_all(["a9", "a1", "b9", "b1", "c9"])
    assert ENGINE.score(state) == (1, 0)


@pytest.mark.parametrize(
    ("line", "dimensions"),
    [
        (("a9", "e9", "i9"), 2),  # one cell right and one board right
        (("a9", "a5", "a1"), 2),  # one cell down and one board down
        (("a7", "d8", "g9"), 2),  # one cell up and one board right
        (("a9", "d5", "g1"), 3),  # one board down-right and one cell down
        (("c9", "e8", "g7"), 3),  # one cell down-left, one board right
        (("c1", "e2", "g3"), 3),
    ],
)
def test_lines_run_across_boards_in_two_and_three_dimensions(
    line: tuple[str, str, str], dimensions: int
) -> None:
    stored = next(stored for stored in LINES if set(stored) == set(line))
    assert spanned(stored) == dimensions
    # X takes the three cells while O plays far away: X scores exactly that line.
    o_moves = [c for c in ("h2", "i2", "h3", "b6", "b7") if c not in line][:2]
    state = play_all([line[0], o_moves[0], line[1], o_moves[1], line[2]])
    assert ENGINE.score(state)[0] == lines_owned(set(line)) == 1


def test_lines_in_all_four_dimensions_all_cross_the_forbidden_centre() -> None:
    four_d = [line for line in ALL_LINES if spanned(line) == 4]
    assert len(four_d) == 8  # the long diagonals of the hypercube
    assert all("e5" in line for line in four_d)
    assert not any(spanned(line) == 4 for line in LINES)
    # Every dimension count from 1 to 3 still has scoring lines.
    assert {spanned(line) for line in LINES} == {1, 2, 3}


def test_one_move_can_complete_several_lines_at_once() -> None:
    # X holds a9 b9 (row), c8 c7 (column) and b8 a7 (anti-diagonal) around c9.
    fen = grid_fen(
        [
            "xx. ... ...",
            ".xx ... ...",
            "x.x ... ...",
            "... ... ...",
            "... .*. ...",
            "... ... ...",
            "... ... ...",
            "... ... ooo",
            "... ... ooo",
        ],
        "X",
    )
    state = ENGINE.from_fen(fen)
    before = ENGINE.score(state)
    after = ENGINE.play(state, "c9")
    gained = ENGINE.score(after)[0] - before[0]
    assert gained == lines_owned({"a9", "b9", "c9", "b8", "c8", "a7", "c7"}) - lines_owned(
        {"a9", "b9", "b8", "c8", "a7", "c7"}
    )
    assert gained >= 3


# ---------------------------------------------------------------------------
# Moves and the end of the game


def test_the_first_player_has_80_cells_and_e5_is_forbidden() -> None:
    state = ENGINE.initial()
    moves = ENGINE.legal_moves(state)
    assert len(moves) == 80 and "e5" not in moves
    with pytest.raises(IllegalMove, match="forbidden"):
        ENGINE.play(state, "e5")


def test_malformed_off_board_and_taken_cells_are_refused() -> None:
    state = ENGINE.play(ENGINE.initial(), "a1")
    for bad in ("", "j1", "a0", "a10", "A1", " b1", "pass", "0000", "b"):
        with pytest.raises(IllegalMove):
            ENGINE.play(state, bad)
    with pytest.raises(IllegalMove, match="taken"):
        ENGINE.play(state, "a1")
    with pytest.raises(IllegalMove):
        ENGINE.play(state, 5)  # type: ignore[arg-type]


def _full_board(x_cells: set[str]) -> str:
    rows = []
    for rank in range(9, 0, -1):
        row = ""
        for file in "abcdefghi":
            cell = f"{file}{rank}"
            row += "*" if cell == "e5" else "x" if cell in x_cells else "o"
        rows.append(row)
    return grid_fen(rows, "X")


def test_a_full_board_ends_the_game_and_the_higher_score_wins() -> None:
    rng = random.Random(7)
    cells = [c for c in (token(*p) for p in product(range(3), repeat=4)) if c != "e5"]
    for _ in range(10):
        x_cells = set(rng.sample(cells, 40))
        state = ENGINE.from_fen(_full_board(x_cells))
        sx, so = lines_owned(x_cells), lines_owned(set(cells) - x_cells)
        outcome = ENGINE.outcome(state)
        assert outcome is not None and outcome.reason == "board_full"
        assert outcome.score == ENGINE.score(state) == (sx, so)
        assert outcome.winner == (None if sx == so else 0 if sx > so else 1)
        assert ENGINE.legal_moves(state) == []
        with pytest.raises(IllegalMove, match="over"):
            ENGINE.play(state, "a1")


def test_equal_scores_on_a_full_board_are_a_draw() -> None:
    # O takes the point reflection of every X cell through the centre, so both
    # sides own mirror images of the same lines.
    x_cells = set()
    for p in product(range(3), repeat=4):
        mirror = tuple(2 - c for c in p)
        if p < mirror:
            x_cells.add(token(*p))
    state = ENGINE.from_fen(_full_board(x_cells))
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert outcome.winner is None and outcome.reason == "board_full"
    assert outcome.score[0] == outcome.score[1] == lines_owned(x_cells)


def test_the_game_goes_on_until_the_last_cell_is_filled() -> None:
    state = ENGINE.initial()
    rng = random.Random(3)
    for _ in range(79):
        assert ENGINE.outcome(state) is None
        state = ENGINE.play(state, rng.choice(ENGINE.legal_moves(state)))
    assert ENGINE.legal_moves(state) and len(ENGINE.legal_moves(state)) == 1
    state = ENGINE.play(state, ENGINE.legal_moves(state)[0])
    assert ENGINE.outcome(state) is not None


def test_perft_from_the_start_is_a_product_because_nothing_ends_the_game_early() -> None:
    state = ENGINE.initial()
    assert perft(ENGINE, state, 1) == 80
    assert perft(ENGINE, state, 2) == 80 * 79 == 6320
    assert perft(ENGINE, state, 3) == 80 * 79 * 78 == 492960


# ---------------------------------------------------------------------------
# Hover help


def _line_ids(*cells: str) -> set[int]:
    return {k for k, line in enumerate(LINES) if set(cells) <= set(line)}


def test_hovering_an_empty_cell_shows_every_line_you_can_still_complete_through_it() -> None:
    state = ENGINE.initial()
    assert set(ENGINE.live_lines(state, "a9", 0)) == _line_ids("a9")
    assert len(ENGINE.live_lines(state, "a9", 0)) == 14  # 15 lines through a corner, one via e5
    assert ENGINE.live_lines(state, "e5", 0) == []


def test_hovering_leaves_out_lines_the_opponent_has_blocked() -> None:
    state = play_all(["a9", "b9", "a8"])  # X a9 a8, O b9
    for side in (0, 1):
        shown = set(ENGINE.live_lines(state, "c9", side))
        assert shown.isdisjoint(_line_ids("c9", "b9" if side == 0 else "a9"))
    mine = set(ENGINE.live_lines(state, "a7", 0))
    assert _line_ids("a9", "a8", "a7") <= mine  # X's column a9-a8-a7 can still be completed
    assert _line_ids("a9", "a8", "a7").isdisjoint(ENGINE.live_lines(state, "a7", 1))


def test_hovering_your_own_cell_shows_your_live_lines_through_it() -> None:
    state = play_all(["a9", "b9", "a8"])  # X a9 a8, O b9
    shown = set(ENGINE.live_lines(state, "a9", 0))
    expected = {k for k in _line_ids("a9") if "b9" not in LINES[k]}
    assert shown == expected
    assert _line_ids("a9", "b9").isdisjoint(shown)


def test_hovering_an_opponent_cell_shows_the_lines_the_opponent_can_still_complete() -> None:
    state = play_all(["a9", "b9", "a8"])  # X a9 a8, O b9
    # O looks at X's a9: X's lines through a9 that O has not blocked.
    assert set(ENGINE.live_lines(state, "a9", 1)) == set(ENGINE.live_lines(state, "a9", 0))
    # X looks at O's b9: O's lines through b9 free of X marks.
    assert set(ENGINE.live_lines(state, "b9", 0)) == {
        k for k in _line_ids("b9") if "a9" not in LINES[k] and "a8" not in LINES[k]
    }


def test_completed_lines_are_never_shown() -> None:
    state = play_all(["a9", "a1", "b9", "b1", "c9"])
    done = _line_ids("a9", "b9", "c9")
    for cell in ("a9", "b9", "c9"):
        for side in (0, 1):
            assert done.isdisjoint(ENGINE.live_lines(state, cell, side))
    view = ENGINE.view(state)
    assert set(view["completed"][0]) == done and view["completed"][1] == []
    assert done.isdisjoint(view["live"][0]) and done.isdisjoint(view["live"][1])


def test_the_live_lists_in_the_view_agree_with_the_hover_rule() -> None:
    rng = random.Random(11)
    state = ENGINE.initial()
    for _ in range(30):
        state = ENGINE.play(state, rng.choice(ENGINE.legal_moves(state)))
    view = ENGINE.view(state)
    cells = ENGINE.dumps(state)["board"]
    for i, mark in enumerate(cells):
        cell = f"{'abcdefghi'[i % 9]}{9 - i // 9}"
        for side in (0, 1):
            owner = side if mark in "-*" else "xo".index(mark)
            expected = sorted(k for k in view["live"][owner] if cell in LINES[k])
            assert ENGINE.live_lines(state, cell, side) == expected


def test_hover_help_refuses_a_bad_cell_or_side() -> None:
    with pytest.raises(ValueError):
        ENGINE.live_lines(ENGINE.initial(), "z9", 0)
    with pytest.raises(ValueError):
        ENGINE.live_lines(ENGINE.initial(), "a9", 2)


# ---------------------------------------------------------------------------
# Position text, storage and view


def test_the_start_position_text() -> None:
    assert ENGINE.fen(ENGINE.initial()) == START
    assert ENGINE.from_fen(START) == ENGINE.initial()


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("9/9/9/9/9/9/9/9/9 X", "cannot cover e5"),
        ("9/9/9/9/xxxx5/9/9/9/9 X", "cannot cover e5"),
        ("9/9/9/9/4x4/9/9/9/9 O", "'\\*' marks exactly"),
        ("*8/9/9/9/4*4/9/9/9/9 X", "'\\*' marks exactly"),
        ("9/9/9/9/4*4/9/9/9 X", "9 ranks"),
        ("9/9/9/9/4*4/9/9/9/8 X", "exactly 9 cells"),
        ("9/9/9/9/4*4/9/9/9/9x X", "more than 9"),
        ("9/9/9/9/4*4/9/9/9/X8 O", "unexpected character"),
        ("9/9/9/9/4*4/9/9/9/54 X", "two digits"),
        ("9/9/9/9/4*4/9/9/9/9 x", "side to move"),
        ("9/9/9/9/4*4/9/9/9/9", "two fields"),
        ("9/9/9/9/4*4/9/9/9/9 X 0", "two fields"),
        ("9/9/9/9/4*4/9/9/9/9 O", "do not fit"),
        ("9/9/9/9/4*4/9/9/9/x8 X", "do not fit"),
        ("9/9/9/9/4*4/9/9/9/xx7 O", "do not fit"),
        ("9/9/9/9/4*4/9/9/9/o8 X", "do not fit"),
    ],
)
def test_malformed_or_impossible_position_text_is_refused(fen: str, reason: str) -> None:
    with pytest.raises(InvalidPosition, match=reason):
        ENGINE.from_fen(fen)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {},
        {"game": "ultimate_ttt", "board": "-" * 40 + "*" + "-" * 40, "to_move": 0},
        {"game": "four_tac_toe", "board": "-" * 81, "to_move": 0},
        {"game": "four_tac_toe", "board": "-" * 40 + "*" + "-" * 39, "to_move": 0},
        {"game": "four_tac_toe", "board": "-" * 40 + "*" + "-" * 40, "to_move": 1},
        {"game": "four_tac_toe", "board": "-" * 40 + "*" + "-" * 40, "to_move": "0"},
        {"game": "four_tac_toe", "board": "-" * 40 + "*" + "-" * 40},
        {"game": "four_tac_toe", "board": "-" * 40 + "*" + "-" * 40, "to_move": 0, "score": [0, 0]},
        {"game": "four_tac_toe", "board": "x" * 40 + "*" + "o" * 40, "to_move": 1},
        {"game": "four_tac_toe", "board": "?" + "-" * 39 + "*" + "-" * 40, "to_move": 0},
    ],
)
def test_bad_stored_states_are_refused(data: object) -> None:
    with pytest.raises(InvalidPosition):
        ENGINE.loads(data)  # type: ignore[arg-type]


def test_the_view_has_what_the_page_draws() -> None:
    state = play_all(["a9", "i1"])
    view = ENGINE.view(state)
    json.dumps(view)
    assert view["game"] == "four_tac_toe" and view["to_move"] == 0
    assert view["cells"][0] == 0 and view["cells"][80] == 1 and view["cells"].count(None) == 79
    assert view["forbidden"] == "e5"
    assert view["score"] == [0, 0] and view["outcome"] is None
    assert view["legal_moves"] == ENGINE.legal_moves(state)
    assert view["completed"] == [[], []]
    assert len(view["live"][0]) == 232 - len(_line_ids("i1"))
    assert view["board"][40] == "*"


def test_the_engine_names_itself() -> None:
    assert (ENGINE.slug, ENGINE.name, ENGINE.pass_move) == ("four_tac_toe", "Four Tac Toe", None)


# ---------------------------------------------------------------------------
# Properties over random games


@st.composite
def games(draw: st.DrawFn) -> list[str]:
    state = ENGINE.initial()
    moves: list[str] = []
    for _ in range(draw(st.integers(min_value=0, max_value=80))):
        legal = ENGINE.legal_moves(state)
        if not legal:
            break
        move = legal[draw(st.integers(min_value=0, max_value=len(legal) - 1))]
        moves.append(move)
        state = ENGINE.play(state, move)
    return moves


@settings(max_examples=50, deadline=None)
@given(games())
def test_random_games_keep_every_invariant(moves: list[str]) -> None:
    state = ENGINE.initial()
    x_cells: set[str] = set()
    o_cells: set[str] = set()
    for i, move in enumerate(moves):
        before = state
        snapshot = ENGINE.fen(state)
        state = ENGINE.play(state, move)
        assert ENGINE.fen(before) == snapshot and before != state
        (x_cells if i % 2 == 0 else o_cells).add(move)
    assert ENGINE.score(state) == (lines_owned(x_cells), lines_owned(o_cells))
    legal = ENGINE.legal_moves(state)
    assert (legal == []) == (ENGINE.outcome(state) is not None) == (len(moves) == 80)
    assert set(legal) == {token(*p) for p in product(range(3), repeat=4)} - x_cells - o_cells - {"e5"}
    assert ENGINE.to_move(state) == len(moves) % 2
    assert ENGINE.from_fen(ENGINE.fen(state)) == state
    assert ENGINE.loads(json.loads(json.dumps(ENGINE.dumps(state)))) == state
    for move in moves[:5]:
        with pytest.raises(IllegalMove):
            ENGINE.play(state, move)
    hash(state)
