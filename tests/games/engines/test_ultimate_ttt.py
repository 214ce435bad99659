"""Ultimate Tic-Tac-Toe rules (SPEC 1.3), position text, storage and perft."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engines.base import IllegalMove, InvalidPosition, perft
from games.engines.ultimate_ttt import UltimateTTTEngine
from tests.data import DATA

ENGINE = UltimateTTTEngine()
START = "9/9/9/9/9/9/9/9/9 X 0 0000"

# Board indexes 0..8 in reading order from the top-left; a board's own cells
# also in reading order (0 = its top-left cell).
BOARD_CELLS = {
    b: [f"{'abcdefghi'[3 * (b % 3) + s % 3]}{9 - (3 * (b // 3) + s // 3)}" for s in range(9)]
    for b in range(9)
}


def position(boards: dict[int, str], side: str, last: str) -> str:
    """A FEN from per-board contents: 9 characters (x, o, .) in reading order per board."""
    grid = [["."] * 9 for _ in range(9)]
    for b, text in boards.items():
        assert len(text) == 9
        for s, char in enumerate(text):
            grid[3 * (b // 3) + s // 3][3 * (b % 3) + s % 3] = char
    ranks = []
    for row in grid:
        out, run = "", 0
        for char in row:
            if char == ".":
                run += 1
                continue
            out += (str(run) if run else "") + char
            run = 0
        ranks.append(out + (str(run) if run else ""))
    return f"{'/'.join(ranks)} {side} 0 {last}"


# X owns the top-left and top-middle boards and has g9 h9 in the top-right one;
# O's last move c3 (top-right cell of its board) sends X to the top-right board.
X_CAN_WIN_THE_GAME = position(
    {0: "xxxoo....", 1: "xxxoo....", 2: "xx.o.....", 6: "..o...o..", 7: ".......o."}, "X", "c3"
)
# The top-left board is won by X; O's last move d9 (a top-left cell) sends X there.
SENT_TO_A_WON_BOARD = position({0: "xxx......", 1: "o........", 2: "o........", 6: "......o.."}, "X", "d9")
# The top-left board is full without a line; O's last move d9 sends X there.
SENT_TO_A_TIED_BOARD = position({0: "xoxxooox" + "x", 1: "o........"}, "X", "d9")
# Eight boards decided without three in a row; X is sent to the last open board
# (bottom-right) and holds two of its top row.
X_DECIDES_THE_LAST_BOARD = position(
    {
        0: "xxxoo....",
        1: "......ooo",
        2: "xxx......",
        3: "xxx......",
        4: "......ooo",
        5: "......ooo",
        6: "......ooo",
        7: "xxx......",
        8: "xx.......",
    },
    "X",
    "f7",
)


def load_perft_suite() -> list[tuple[str, list[int]]]:
    """The published suite, with the figures copied here (depths 1-4)."""
    return [
        (START, [81, 720, 6336, 55080]),
        ("9/3x5/3oo4/4x2o1/1o7/3x1o3/4o2x1/1x3x3/ox3o1x1 X 0 h6", [6, 44, 320, 2278]),
        ("4oo1x1/9/8x/9/3x5/o2x5/1xo6/1o5o1/xo1x1x1o1 X 0 e9", [7, 51, 370, 2827]),
        ("1x7/6ox1/o2o4o/5o3/9/4o4/2xx2o1x/4x4/1ox3x2 X 0 g8", [9, 64, 454, 3185]),
        ("1x3o3/7x1/5o2x/1x3o3/5o1x1/o2o5/3o5/xx7/1x4o2 X 0 f7", [8, 58, 463, 3479]),
        ("7o1/3xx2xx/1x1o2x1x/2oo1o2o/1x2oxoo1/1x3xo2/1xx1oo3/2x2oo1x/o3x3o X 0 f2", [44, 391, 3436, 31662]),
        ("3o1o3/2xo1x1xx/xox6/6xxo/8o/2x2oxxo/ox2o1ox1/2o5o/o2xox1xo X 0 f4", [4, 28, 239, 2212]),
        ("o1xxox2o/2ox2o2/x3o1o1x/3xx2o1/2x4x1/o2o2x2/oxx1o4/1o2o3o/xxo1x4 X 0 c1", [8, 86, 694, 5205]),
        ("2ox4x/o2xx1x1o/o2x2oo1/1ox2o3/2oo3x1/x1xo3x1/x1xxo2o1/1xo3o2/2o5x X 0 c5", [7, 67, 840, 9609]),
        ("ooox5/x5ox1/o2xo2o1/1xxx1xoo1/2x2o1ox/o3x3o/x2x5/ooxo1x3/6x2 X 0 g6", [41, 440, 4759, 48816]),
        ("xox3x2/o2ox1oo1/3x4x/4x2oo/xxx2oo1x/xox1o4/o1o2xoo1/5x3/1o1x5 X 0 b9", [6, 33, 298, 2978]),
        (
            "1o1x1o2x/o1x2oxox/2xxx1ox1/o3xoxo1/xxx2oooo/o1o1xo1xx/2o2o1x1/x2o2xxx/xxoooo2o X 0 f6",
            [3, 22, 170, 1292],
        ),
        (
            "o3xxo1o/xxxxoxxoo/1x1xx1xx1/1o2oxooo/1o2oxxxo/1oxx2xx1/xo1ooo1ox/o1x2o3/oo7 X 0 h8",
            [4, 58, 519, 4456],
        ),
        (
            "1xxxoxxoo/1xx2xo1x/oxox1oo1x/oo1o2o1o/2xx1o1ox/1ooo3oo/o1xx1o3/x2xxoxxx/7ox X 0 g7",
            [6, 63, 414, 2614],
        ),
        (
            "x1o1ox1xo/xo3ooxx/3o1xoxx/1oxoxx2o/xxxoxooo1/xo3o2x/1x1x1o2o/1oxox1o2/1x4oox X 0 f8",
            [5, 23, 171, 1094],
        ),
        (
            "1xox1xoo1/x1o2oo2/ooxo1oo2/x2o2xox/1ooxox1ox/1x3x2x/1x1x1xoxx/oxx2x2o/xx1o1ooo1 X 0 d7",
            [22, 163, 1457, 10431],
        ),
        (
            "ooxo1ooox/xxoxoxxxo/oxoxxooox/xoxxxox1o/oxo1oo1xo/xo1o3xx/xxxoxxx1o/4oxo1o/2oooxxx1 X 0 e8",
            [3, 4, 1, 0],
        ),
        (
            "xoooxooxx/ooxxox1o1/xxo2xxxo/xxox1x2o/ooxxoxox1/1xooxxooo/x2oo1xo1/x1oxoxox1/x1ooox1ox X 0 g9",
            [3, 6, 5, 0],
        ),
        (
            "1ooo1xoox/ooxo1o1xo/xoxxx1oxx/x2xx1xox/1x1oxoxxo/1ox1xoox1/oxoxxoo1o/xooooxo1x/xx1ooxxo1 X 0 a3",
            [9, 35, 123, 327],
        ),
        (
            "oxx2x2o/xx1xxo1ox/1xxxxoo2/xoxoo1o1x/oxooooxx1/oxoxoxoxo/ooxoooox1/ooxxoo1xx/xx1x2oxo X 0 b2",
            [3, 4, 2, 0],
        ),
        (
            "1oox1oxox/xo2x1o1o/o2xxxxxo/oxx3xoo/x1oxoooox/ooxxxxxoo/xxxxo1oox/1o1oxxxox/o2ooooxx X 0 h5",
            [2, 1, 0, 0],
        ),
        (
            "oxxooxoox/o1o1xxxxo/1xxooxxoo/xoo2x2x/x2o2o1o/oxxoo1xxo/oxoxxoxxo/1x1xoxo1x/xoooxoxo1 X 0 d4",
            [2, 5, 29, 118],
        ),
        (
            "x1x1xo1xx/ooooxoo2/o2o1xxxx/xoox1xxoo/1xxooxo1x/xxxxxoxoo/o2ooooxo/xoxx1ooo1/oxoxo2xx X 0 d3",
            [6, 16, 26, 41],
        ),
        (
            "ooooxoxx1/x1oxxooxo/x1xxoo1x1/1xxoxox1o/xooo1xoxx/ooxx1xoxx/ooxxxoxoo/o1xx1o2o/2o2xxoo X 0 f7",
            [9, 26, 71, 140],
        ),
        (
            "oox2xxox/xx3xoxo/x1o2xo1x/1o1ooox1o/1x2xooox/ox1x2ox1/x2o1oo1x/1ox2xx2/ox3o1o1 O 0 h8",
            [0, 0, 0, 0],
        ),
    ]


PERFT_SUITE = load_perft_suite()


PUBLISHED_SUITE = DATA / "ultimate_ttt_perft.txt"


def test_the_copied_perft_figures_match_the_published_file() -> None:
    published = {}
    for line in PUBLISHED_SUITE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            fen, counts = line.split(";")
            published[fen.strip()] = [int(n) for n in counts.split()][:4]
    assert dict(PERFT_SUITE) == published


@pytest.mark.parametrize(("fen", "counts"), PERFT_SUITE, ids=[f"pos{i}" for i in range(len(PERFT_SUITE))])
def test_perft_matches_the_published_suite_to_depth_4(fen: str, counts: list[int]) -> None:
    state = ENGINE.from_fen(fen)
    assert [perft(ENGINE, state, depth) for depth in range(1, 5)] == counts


def test_the_first_move_may_go_anywhere() -> None:
    state = ENGINE.initial()
    assert len(ENGINE.legal_moves(state)) == 81
    assert ENGINE.view(state)["open_boards"] == list(range(9))
    assert ENGINE.fen(state) == START


def test_the_top_right_cell_sends_the_opponent_to_the_top_right_board() -> None:
    state = ENGINE.play(ENGINE.initial(), "c9")  # top-right cell of the top-left board
    assert sorted(ENGINE.legal_moves(state)) == sorted(BOARD_CELLS[2])
    assert ENGINE.view(state)["open_boards"] == [2]
    with pytest.raises(IllegalMove, match="sends you"):
        ENGINE.play(state, "e5")


def test_the_centre_cell_sends_the_opponent_to_the_centre_board() -> None:
    state = ENGINE.play(ENGINE.initial(), "b2")  # centre of the bottom-left board
    assert sorted(ENGINE.legal_moves(state)) == sorted(BOARD_CELLS[4])


def test_being_sent_to_a_won_board_lets_you_play_in_any_open_board() -> None:
    state = ENGINE.from_fen(SENT_TO_A_WON_BOARD)
    view = ENGINE.view(state)
    assert view["board_status"][0] == 0
    assert view["open_boards"] == [1, 2, 3, 4, 5, 6, 7, 8]
    moves = ENGINE.legal_moves(state)
    assert len(moves) == 72 - 3  # every empty cell outside the won board
    assert not set(moves) & set(BOARD_CELLS[0])
    with pytest.raises(IllegalMove, match="already decided"):
        ENGINE.play(state, "a8")


def test_being_sent_to_a_full_tied_board_lets_you_play_in_any_open_board() -> None:
    state = ENGINE.from_fen(SENT_TO_A_TIED_BOARD)
    view = ENGINE.view(state)
    assert view["board_status"] == ["tie"] + [None] * 8
    assert view["open_boards"] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert len(ENGINE.legal_moves(state)) == 71
    assert ENGINE.score(state) == (0, 0)


def test_three_in_a_row_wins_a_small_board_and_closes_it() -> None:
    # X holds d5 e5 in the centre board; O's last move b8 (a centre cell) sends X there.
    state = ENGINE.from_fen(position({4: "...xx....", 0: "....o....", 3: "....o...."}, "X", "b8"))
    assert ENGINE.view(state)["board_status"][4] is None
    state = ENGINE.play(state, "f5")
    view = ENGINE.view(state)
    assert view["board_status"][4] == 0
    assert ENGINE.score(state) == (1, 0)
    # f5 (a middle-right cell) sends O to the middle-right board.
    assert view["open_boards"] == [5]
    # O's centre cell h5 sends X back to the won board: X may play anywhere else.
    state = ENGINE.play(state, "h5")
    assert ENGINE.view(state)["open_boards"] == [0, 1, 2, 3, 5, 6, 7, 8]
    assert not set(ENGINE.legal_moves(state)) & set(BOARD_CELLS[4])


def test_a_full_small_board_without_a_line_is_tied_and_counts_for_nobody() -> None:
    # Fill the top-left board as x o x / x o o / o x x; each move there sends to
    # a board whose reply comes straight back to the top-left board.
    before = position({0: "xoxxoo" + "o" + "x.", 8: "x........", 6: "o........"}, "X", "a3")
    state = ENGINE.from_fen(before)
    assert ENGINE.view(state)["open_boards"] == [0]
    state = ENGINE.play(state, "c7")
    view = ENGINE.view(state)
    assert view["board_status"][0] == "tie"
    assert ENGINE.score(state) == (0, 0)
    assert view["open_boards"] == [8]


def test_three_won_boards_in_a_row_win_the_game() -> None:
    state = ENGINE.from_fen(X_CAN_WIN_THE_GAME)
    assert ENGINE.outcome(state) is None
    assert ENGINE.view(state)["open_boards"] == [2]
    state = ENGINE.play(state, "i9")
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.score) == (0, "line", (3, 0))
    assert ENGINE.legal_moves(state) == []
    assert ENGINE.view(state)["open_boards"] == []
    with pytest.raises(IllegalMove, match="over"):
        ENGINE.play(state, "a1")


def test_all_boards_decided_without_a_row_is_a_draw() -> None:
    state = ENGINE.from_fen(X_DECIDES_THE_LAST_BOARD)
    assert ENGINE.outcome(state) is None
    state = ENGINE.play(state, "i3")
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.score) == (None, "all_boards_decided", (5, 4))
    assert ENGINE.legal_moves(state) == []


def test_the_score_counts_the_small_boards_won() -> None:
    assert ENGINE.score(ENGINE.from_fen(X_DECIDES_THE_LAST_BOARD)) == (4, 4)
    assert ENGINE.score(ENGINE.from_fen(X_CAN_WIN_THE_GAME)) == (2, 0)


def test_malformed_off_board_and_taken_cells_are_refused() -> None:
    state = ENGINE.play(ENGINE.initial(), "e5")
    for bad in ("", "j1", "a0", "a10", "E5", " e5", "e5 ", "pass", "0000", "e"):
        with pytest.raises(IllegalMove):
            ENGINE.play(state, bad)
    with pytest.raises(IllegalMove, match="taken"):
        ENGINE.play(state, "e5")
    with pytest.raises(IllegalMove):
        ENGINE.play(state, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fen",
    [START, X_CAN_WIN_THE_GAME, SENT_TO_A_WON_BOARD, SENT_TO_A_TIED_BOARD] + [fen for fen, _ in PERFT_SUITE],
)
def test_position_text_round_trips(fen: str) -> None:
    state = ENGINE.from_fen(fen)
    assert ENGINE.fen(state) == fen
    assert ENGINE.from_fen(ENGINE.fen(state)) == state
    assert ENGINE.loads(json.loads(json.dumps(ENGINE.dumps(state)))) == state


def test_the_counter_is_carried_through_moves_and_text() -> None:
    state = ENGINE.from_fen("9/9/9/9/9/9/9/9/9 X 17 0000")
    state = ENGINE.play(state, "a1")
    assert ENGINE.fen(state) == "9/9/9/9/9/9/9/9/x8 O 17 a1"


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("9/9/9/9/9/9/9/9 X 0 0000", "9 ranks"),
        ("9/9/9/9/9/9/9/9/9/9 X 0 0000", "9 ranks"),
        ("9/9/9/9/9/9/9/9/8 X 0 0000", "exactly 9 cells"),
        ("9/9/9/9/9/9/9/9/9x X 0 a1", "more than 9"),
        ("9/9/9/9/9/9/9/9/x9 O 0 a1", "exactly 9 cells"),
        ("9/9/9/9/9/9/9/9/X8 O 0 a1", "unexpected character"),
        ("9/9/9/9/9/9/9/9/-8 O 0 a1", "unexpected character"),
        ("9/9/9/9/9/9/9/9/45 X 0 0000", "two digits"),
        ("9/9/9/9/9/9/9/9/09 X 0 0000", "unexpected character"),
        ("9/9/9/9/9/9/9/9/9 x 0 0000", "side to move"),
        ("9/9/9/9/9/9/9/9/9 X -1 0000", "counter"),
        ("9/9/9/9/9/9/9/9/9 X 0", "four fields"),
        ("9/9/9/9/9/9/9/9/9 X 0 0000 extra", "four fields"),
        ("9/9/9/9/9/9/9/9/9 X 0 j1", "last move"),
        ("9/9/9/9/9/9/9/9/x8 X 0 a1", "alternate"),  # X to move after X's only mark
        ("9/9/9/9/9/9/9/9/xx7 O 0 a1", "alternate"),  # two marks in one move
        ("9/9/9/9/9/9/9/9/xo7 O 0 b1", "last move b1 must be a mark of X"),
        ("9/9/9/9/9/9/9/9/x8 O 0 b1", "last move b1 must be a mark"),  # last move on an empty cell
        ("9/9/9/9/9/9/9/9/xo7 X 0 a1", "last move a1 must be a mark"),  # last move is X's own mark
        ("9/9/9/9/9/9/9/9/x8 O 0 0000", "need a last move"),
        ("9/9/9/9/9/9/9/9/9 X 0 a1", "must be a mark"),
        # Both X and O have a line in the bottom-left board.
        ("9/9/9/9/9/9/ooo6/9/xxx6 X 0 c3", "both sides"),
        # X has two separate lines in one board.
        ("ooooo4/9/9/9/9/9/xxx6/9/xxx6 O 0 c1", "two separate lines"),
        # O's last move went into a board X had already won.
        ("9/9/9/9/9/9/oo7/o8/xxx6 X 0 a2", "already won"),
        # X already had three boards in a row before O's last move.
        ("xxxxxxxxx/oo1oo1oo1/oo7/9/9/9/9/9/o8 X 0 a1", "already has three boards"),
    ],
)
def test_malformed_or_impossible_position_text_is_refused(fen: str, reason: str) -> None:
    with pytest.raises(InvalidPosition, match=reason):
        ENGINE.from_fen(fen)


def test_position_text_must_be_a_string() -> None:
    with pytest.raises(InvalidPosition):
        ENGINE.from_fen(None)  # type: ignore[arg-type]


def test_a_game_that_was_over_before_the_last_move_is_refused() -> None:
    # O completed the top row of boards earlier; its later move d6 cannot exist.
    won = position(
        {
            0: "oooxx....",
            1: "oooxx....",
            2: "oooxx....",
            4: "o........",
            5: "x........",
            7: "x........",
            8: "xx.......",
        },
        "X",
        "d6",
    )
    with pytest.raises(InvalidPosition, match="three boards in a row"):
        ENGINE.from_fen(won)


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {},
        {"game": "reversi", "board": "-" * 81, "to_move": 0, "last_move": None, "counter": 0},
        {"game": "ultimate_ttt", "board": "-" * 81, "to_move": 0, "last_move": None},
        {"game": "ultimate_ttt", "board": "-" * 81, "to_move": 0, "last_move": None, "counter": 0, "x": 1},
        {"game": "ultimate_ttt", "board": "-" * 80, "to_move": 0, "last_move": None, "counter": 0},
        {"game": "ultimate_ttt", "board": "?" * 81, "to_move": 0, "last_move": None, "counter": 0},
        {"game": "ultimate_ttt", "board": "-" * 81, "to_move": 2, "last_move": None, "counter": 0},
        {"game": "ultimate_ttt", "board": "-" * 81, "to_move": True, "last_move": None, "counter": 0},
        {"game": "ultimate_ttt", "board": "-" * 81, "to_move": 0, "last_move": "z9", "counter": 0},
        {"game": "ultimate_ttt", "board": "-" * 81, "to_move": 0, "last_move": None, "counter": -1},
        {"game": "ultimate_ttt", "board": "-" * 81, "to_move": 0, "last_move": None, "counter": "0"},
        {"game": "ultimate_ttt", "board": "x" + "-" * 80, "to_move": 0, "last_move": "a9", "counter": 0},
    ],
)
def test_bad_stored_states_are_refused(data: object) -> None:
    with pytest.raises(InvalidPosition):
        ENGINE.loads(data)  # type: ignore[arg-type]


def test_the_view_has_what_the_page_draws() -> None:
    state = ENGINE.play(ENGINE.initial(), "a9")
    view = ENGINE.view(state)
    json.dumps(view)
    assert view["game"] == "ultimate_ttt"
    assert view["to_move"] == 1
    assert view["cells"][0] == 0 and view["cells"].count(None) == 80  # a9 is the top-left cell
    assert view["last_move"] == "a9"
    assert view["open_boards"] == [0]  # a9 is a top-left cell: back to the top-left board
    assert view["board_status"] == [None] * 9
    assert view["score"] == [0, 0] and view["outcome"] is None
    assert view["legal_moves"] == ENGINE.legal_moves(state)
    state = ENGINE.play(ENGINE.initial(), "i1")
    assert ENGINE.view(state)["cells"][80] == 0


def test_the_engine_names_itself() -> None:
    assert (ENGINE.slug, ENGINE.name, ENGINE.pass_move) == ("ultimate_ttt", "Ultimate Tic-Tac-Toe", None)


# ---------------------------------------------------------------------------
# Properties over random games


@st.composite
def games(draw: st.DrawFn) -> list[str]:
    """A random legal move sequence (possibly to the end of the game)."""
    state = ENGINE.initial()
    moves: list[str] = []
    length = draw(st.integers(min_value=0, max_value=81))
    for _ in range(length):
        legal = ENGINE.legal_moves(state)
        if not legal:
            break
        move = legal[draw(st.integers(min_value=0, max_value=len(legal) - 1))]
        moves.append(move)
        state = ENGINE.play(state, move)
    return moves


@settings(max_examples=60, deadline=None)
@given(games())
def test_random_games_keep_every_invariant(moves: list[str]) -> None:
    state = ENGINE.initial()
    for move in moves:
        before = state
        snapshot = (ENGINE.fen(state), ENGINE.dumps(state))
        assert move in ENGINE.legal_moves(state)
        state = ENGINE.play(state, move)
        assert (ENGINE.fen(before), ENGINE.dumps(before)) == snapshot  # input unchanged
        assert before != state
    legal = ENGINE.legal_moves(state)
    outcome = ENGINE.outcome(state)
    assert (legal == []) == (outcome is not None)
    assert ENGINE.to_move(state) == len(moves) % 2
    assert ENGINE.from_fen(ENGINE.fen(state)) == state
    assert ENGINE.loads(json.loads(json.dumps(ENGINE.dumps(state)))) == state
    view = ENGINE.view(state)
    status = view["board_status"]
    assert ENGINE.score(state) == (status.count(0), status.count(1))
    assert view["cells"].count(0) + view["cells"].count(1) == len(moves)
    # Every legal move lies in an open board, on an empty cell.
    for move in legal:
        board = next(b for b, cells in BOARD_CELLS.items() if move in cells)
        assert board in view["open_boards"] and status[board] is None
    # Every other token is refused.
    taken = [m for m in moves if m not in legal]
    for move in taken[:5]:
        with pytest.raises(IllegalMove):
            ENGINE.play(state, move)
    hash(state)
