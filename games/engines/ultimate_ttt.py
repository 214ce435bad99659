"""Ultimate Tic-Tac-Toe, SPEC section 1.3, on per-small-board 9-bit masks.

Board geometry: nine 3x3 boards in a 3x3 arrangement make a 9x9 grid. Tokens
follow the UGI engine community: files a-i left to right, ranks 1-9 bottom to
top, so ``a1`` is the bottom-left cell and ``e5`` the centre of the centre board.

Internally a cell is the index ``9 * board + sub`` where ``board`` (0..8) is the
small board and ``sub`` (0..8) the cell inside it, both in reading order from the
top-left: board 0 holds a7..c9, board 4 d4..f6, board 8 g1..i3; sub-cell 0 is a
board's top-left cell. So bits ``9b .. 9b+8`` of a side's 81-bit mask are the
9-bit mask of small board ``b``, and a move in sub-cell ``s`` sends the opponent
to board ``s``. Board and sub-cell indexes share the same 3x3 layout, which is
why one table of eight lines (``LINES3``) serves both the small boards and the
big board.

A state is ``UltimateTTTState(x, o, side, last, won_x, won_o, closed, counter)``:
the two 81-bit mark masks, the side to move (0 = X, who starts), the internal
index of the last move (-1 before the first move), the 9-bit masks of boards
won by X / by O and of closed boards (won or full), and the FEN counter. The
board masks are derived from the marks but kept in the state so that ``play``
is cheap; ``loads``/``from_fen`` recompute them. States are immutable, hashable
NamedTuples.

Rules: the first move is anywhere. Afterwards the last move's sub-cell names
the board the next move must go to; when that board is closed (won or full),
any open board is allowed. Three in a row inside a small board wins it and
closes it; a full board without a line is tied. Three won boards in a row (any
of the eight lines of the big board) win the game (outcome reason ``"line"``);
when every board is closed without such a row the game is a draw (reason
``"all_boards_decided"``). The score is the number of small boards won. The
game never passes: while it runs, some open board always has an empty cell.

Position text (``fen``) is the community FEN: ranks 9 down to 1 separated by
``/``, files a-i, ``x``/``o`` for marks and a digit for a run of empty cells;
then the side to move (``X``/``O``), a counter and the last move (``0000`` if
none). Example: ``9/9/9/9/9/9/9/9/9 X 0 0000``. The counter is carried
verbatim and never interpreted (the community writes ``0``; moves keep it).
``from_fen`` refuses malformed text and positions no game can reach: mark
counts that do not alternate (the side that moved last must have as many marks
as the side to move or one more; games here start with X, but the community
FEN does not say who opened and its published suite holds an O-first game, so
both openers are accepted), a small board with lines of both sides or
with two separate lines of one side, a last move that is not a mark of the side
that just moved or that went into a board already closed, a game that was
already over before the last move, marks on the board without a last move.

``dumps`` gives ``{"game", "board", "to_move", "last_move", "counter"}`` where
``board`` is 81 characters in reading order from the top-left (rank 9 first,
``x``, ``o`` or ``-``). ``view`` adds the common keys and:

* ``cells``: a list of 81 entries in reading order from the top-left; index
  ``i`` is drawn on row ``i // 9`` (top = 0, rank 9) and column ``i % 9``
  (left = 0, file a); each entry is ``0`` (X), ``1`` (O) or ``None``.
* ``open_boards``: the small boards where a move may go now, as board indexes
  0..8 in reading order from the top-left (0 = top-left board a7..c9, 2 =
  top-right g7..i9, 8 = bottom-right g1..i3); ``[]`` once the game is over.
* ``board_status``: 9 entries in the same board order, ``None`` (still open),
  ``0`` (won by X), ``1`` (won by O) or ``"tie"`` (full without a line).
* ``last_move``: the token of the last move or ``None`` (also in ``dumps``).

Fast internals for the computer player: ``LINES3``, ``WIN`` (9-bit mask ->
has a line), ``CELL_TOKENS`` (internal index -> token), ``CELL_INDEX``.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from games.engines.base import (
    IllegalMove,
    InvalidPosition,
    Outcome,
    OutcomeReason,
    check_stored,
    common_view,
    stored_int,
)
from games.engines.grid import FILES, cells_text, expand_ranks, fen_ranks, parse_cells

FULL9 = 0x1FF

# The eight lines of a 3x3 board, cells in reading order from the top-left.
# fmt: off
LINES3: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)
# fmt: on
_LINE_MASKS = tuple(sum(1 << c for c in line) for line in LINES3)

# WIN[m] for every 9-bit mask: does it contain a full line?
WIN: tuple[bool, ...] = tuple(any(m & lm == lm for lm in _LINE_MASKS) for m in range(512))

# A board won by a real game was closed by the move that completed its line, so
# some single mark of the winner must be in every line it holds.
_WON_BY_ONE_MOVE: tuple[bool, ...] = tuple(
    WIN[m] and any(m >> c & 1 and not WIN[m & ~(1 << c)] for c in range(9)) for m in range(512)
)


def _row_col(index: int) -> tuple[int, int]:
    """Display row (top = 0) and column (left = 0) of an internal cell index."""
    board, sub = divmod(index, 9)
    return 3 * (board // 3) + sub // 3, 3 * (board % 3) + sub % 3


CELL_TOKENS: tuple[str, ...] = tuple(
    f"{FILES[col]}{9 - row}" for row, col in (_row_col(i) for i in range(81))
)
CELL_INDEX: dict[str, int] = {token: i for i, token in enumerate(CELL_TOKENS)}
# Internal index of the cell drawn at reading-order position row * 9 + col.
_DISPLAY_TO_INDEX: tuple[int, ...] = tuple(
    sorted(range(81), key=lambda i: _row_col(i)[0] * 9 + _row_col(i)[1])
)

# _FREE_TOKENS[b][free] = tokens of the cells of board b whose bits are set in `free`.
_FREE_TOKENS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple(CELL_TOKENS[9 * b + c] for c in range(9) if free >> c & 1) for free in range(512))
    for b in range(9)
)

_SIDE_LETTER = "XO"
_CELLS = "xo-"  # an X mark, an O mark, an empty cell
NO_MOVE = "0000"


class UltimateTTTState(NamedTuple):
    x: int  # 81-bit mask of X marks, bit 9 * board + sub
    o: int  # 81-bit mask of O marks
    side: int  # 0 = X to move, 1 = O to move
    last: int  # internal index of the last move, -1 before the first move
    won_x: int  # 9-bit mask of small boards won by X
    won_o: int  # 9-bit mask of small boards won by O
    closed: int  # 9-bit mask of small boards won or full
    counter: int  # FEN counter, carried verbatim


def open_boards_mask(state: UltimateTTTState) -> int:
    """9-bit mask of the boards the side to move may play in (0 once the game is over)."""
    if WIN[state.won_x] or WIN[state.won_o]:
        return 0
    open_mask = FULL9 & ~state.closed
    if state.last >= 0:
        target = state.last % 9
        if open_mask >> target & 1:
            return 1 << target
    return open_mask


def play_index(state: UltimateTTTState, index: int) -> UltimateTTTState:
    """The state after the side to move marks internal cell ``index`` (not checked)."""
    board = index // 9
    shift = 9 * board
    x, o, won_x, won_o, closed = state.x, state.o, state.won_x, state.won_o, state.closed
    if state.side == 0:
        x |= 1 << index
        if WIN[(x >> shift) & FULL9]:
            won_x |= 1 << board
            closed |= 1 << board
        elif ((x | o) >> shift) & FULL9 == FULL9:
            closed |= 1 << board
    else:
        o |= 1 << index
        if WIN[(o >> shift) & FULL9]:
            won_o |= 1 << board
            closed |= 1 << board
        elif ((x | o) >> shift) & FULL9 == FULL9:
            closed |= 1 << board
    return UltimateTTTState(x, o, 1 - state.side, index, won_x, won_o, closed, state.counter)


def _board_masks(x: int, o: int) -> tuple[int, int, int]:
    """Won-by-X, won-by-O and closed 9-bit masks of two mark masks."""
    won_x = won_o = closed = 0
    for b in range(9):
        bx, bo = (x >> 9 * b) & FULL9, (o >> 9 * b) & FULL9
        if WIN[bx]:
            won_x |= 1 << b
        if WIN[bo]:
            won_o |= 1 << b
        if WIN[bx] or WIN[bo] or bx | bo == FULL9:
            closed |= 1 << b
    return won_x, won_o, closed


def _board_name(board: int) -> str:
    first = CELL_TOKENS[9 * board + 6]  # bottom-left cell
    last = CELL_TOKENS[9 * board + 2]  # top-right cell
    return f"the board {first}-{last}"


def _make_state(x: int, o: int, side: int, last: int, counter: int) -> UltimateTTTState:
    """Build a state from raw parts, refusing anything no game can reach."""
    if x & o:
        raise InvalidPosition(f"{CELL_TOKENS[(x & o).bit_length() - 1]} holds both an x and an o")
    # Moves alternate, so the side that moved last has as many marks as the side
    # to move or one more. Games on this site start with X, but the community
    # FEN does not record who opened (its published suite holds a game O opened),
    # so either opener is accepted.
    n_to_move, n_moved = (x.bit_count(), o.bit_count()) if side == 0 else (o.bit_count(), x.bit_count())
    if n_moved - n_to_move not in (0, 1):
        raise InvalidPosition(
            f"{x.bit_count()} x and {o.bit_count()} o marks do not fit {_SIDE_LETTER[side]} to move: "
            "moves alternate, so the side that moved last has as many marks or one more"
        )
    for b in range(9):
        bx, bo = (x >> 9 * b) & FULL9, (o >> 9 * b) & FULL9
        if WIN[bx] and WIN[bo]:
            raise InvalidPosition(f"both sides have a line in {_board_name(b)}")
        for mask, letter in ((bx, "x"), (bo, "o")):
            if WIN[mask] and not _WON_BY_ONE_MOVE[mask]:
                raise InvalidPosition(
                    f"{letter} has two separate lines in {_board_name(b)}, "
                    "but a board closes at its first line"
                )
    won_x, won_o, closed = _board_masks(x, o)
    if last < 0:
        if x | o:
            raise InvalidPosition("marks on the board need a last move (0000 means no move yet)")
        return UltimateTTTState(x, o, side, last, won_x, won_o, closed, counter)
    mover = 1 - side
    own, other = (x, o) if mover == 0 else (o, x)
    token = CELL_TOKENS[last]
    if not own >> last & 1:
        raise InvalidPosition(
            f"the last move {token} must be a mark of {_SIDE_LETTER[mover]}, who moved last"
        )
    board = last // 9
    before = (own >> 9 * board) & FULL9 & ~(1 << last % 9)
    if WIN[before] or WIN[(other >> 9 * board) & FULL9]:
        raise InvalidPosition(f"the last move {token} went into {_board_name(board)}, which was already won")
    waiting_won = won_o if mover == 0 else won_x
    mover_won = won_x if mover == 0 else won_o
    if WIN[waiting_won]:
        raise InvalidPosition(
            f"{_SIDE_LETTER[side]} already has three boards in a row, so the game ended before the last move"
        )
    if WIN[mover_won & ~(1 << board)]:
        raise InvalidPosition(
            f"{_SIDE_LETTER[mover]} already had three boards in a row before the last move {token}"
        )
    return UltimateTTTState(x, o, side, last, won_x, won_o, closed, counter)


class UltimateTTTEngine:
    """Nine tic-tac-toe boards; where you play sends your opponent."""

    slug: ClassVar[str] = "ultimate_ttt"
    name: ClassVar[str] = "Ultimate Tic-Tac-Toe"
    pass_move: ClassVar[str | None] = None

    def initial(self) -> UltimateTTTState:
        return UltimateTTTState(0, 0, 0, -1, 0, 0, 0, 0)

    def to_move(self, state: UltimateTTTState) -> int:
        return state.side

    def legal_moves(self, state: UltimateTTTState) -> list[str]:
        boards = open_boards_mask(state)
        occupied = state.x | state.o
        moves: list[str] = []
        b = 0
        while boards:
            if boards & 1:
                moves.extend(_FREE_TOKENS[b][~(occupied >> 9 * b) & FULL9])
            boards >>= 1
            b += 1
        return moves

    def play(self, state: UltimateTTTState, move: str) -> UltimateTTTState:
        index = CELL_INDEX.get(move) if isinstance(move, str) else None
        if index is None:
            raise IllegalMove(f"{move!r} is not a cell (files a-i, ranks 1-9, e.g. e5)")
        boards = open_boards_mask(state)
        if not boards:
            raise IllegalMove("the game is over: no more moves")
        if (state.x | state.o) >> index & 1:
            raise IllegalMove(f"{move} is already taken")
        board = index // 9
        if not boards >> board & 1:
            if state.closed >> board & 1:
                raise IllegalMove(f"{move} is in {_board_name(board)}, which is already decided")
            target = _board_name(state.last % 9)
            raise IllegalMove(f"{move} is not allowed: the last move sends you to {target}")
        return play_index(state, index)

    def score(self, state: UltimateTTTState) -> tuple[int, int]:
        return state.won_x.bit_count(), state.won_o.bit_count()

    def outcome(self, state: UltimateTTTState) -> Outcome | None:
        score = self.score(state)
        if WIN[state.won_x]:
            return Outcome(winner=0, score=score, reason=OutcomeReason.LINE)
        if WIN[state.won_o]:
            return Outcome(winner=1, score=score, reason=OutcomeReason.LINE)
        if state.closed == FULL9:
            return Outcome(winner=None, score=score, reason=OutcomeReason.ALL_BOARDS_DECIDED)
        return None

    # -- text and storage ---------------------------------------------------

    def fen(self, state: UltimateTTTState) -> str:
        last = CELL_TOKENS[state.last] if state.last >= 0 else NO_MOVE
        ranks = fen_ranks(cells_text(state.x, state.o, _DISPLAY_TO_INDEX, _CELLS), 9, "-")
        return f"{ranks} {_SIDE_LETTER[state.side]} {state.counter} {last}"

    def from_fen(self, text: str) -> UltimateTTTState:
        if not isinstance(text, str):
            raise InvalidPosition("position text must be a string")
        parts = text.split()
        if len(parts) != 4:
            raise InvalidPosition(
                "expected four fields: ranks 9..1, side to move (X/O), counter, last move (or 0000)"
            )
        board, side_text, counter_text, last_text = parts
        x, o = parse_cells(expand_ranks(board, size=9, pieces="xo"), _DISPLAY_TO_INDEX, _CELLS, CELL_TOKENS)
        if side_text not in ("X", "O"):
            raise InvalidPosition(f"the side to move must be X or O, not {side_text!r}")
        if not (counter_text.isascii() and counter_text.isdigit()) or len(counter_text) > 9:
            raise InvalidPosition(f"the counter must be a non-negative whole number, not {counter_text!r}")
        if last_text == NO_MOVE:
            last = -1
        elif last_text in CELL_INDEX:
            last = CELL_INDEX[last_text]
        else:
            raise InvalidPosition(f"the last move must be a cell like e5 or 0000, not {last_text!r}")
        return _make_state(x, o, "XO".index(side_text), last, int(counter_text))

    def dumps(self, state: UltimateTTTState) -> dict[str, Any]:
        return {
            "game": self.slug,
            "board": cells_text(state.x, state.o, _DISPLAY_TO_INDEX, _CELLS),
            "to_move": state.side,
            "last_move": CELL_TOKENS[state.last] if state.last >= 0 else None,
            "counter": state.counter,
        }

    def loads(self, data: dict[str, Any]) -> UltimateTTTState:
        check_stored(data, self.slug, {"game", "board", "to_move", "last_move", "counter"})
        side = stored_int(data, "to_move", 0, 1)
        counter = stored_int(data, "counter", 0, 10**9 - 1)
        last_move = data["last_move"]
        if last_move is None:
            last = -1
        elif isinstance(last_move, str) and last_move in CELL_INDEX:
            last = CELL_INDEX[last_move]
        else:
            raise InvalidPosition(f"last_move must be a cell like e5 or null, not {last_move!r}")
        x, o = parse_cells(data["board"], _DISPLAY_TO_INDEX, _CELLS, CELL_TOKENS)
        return _make_state(x, o, side, last, counter)

    def view(self, state: UltimateTTTState) -> dict[str, Any]:
        cells: list[int | None] = [
            0 if state.x >> i & 1 else 1 if state.o >> i & 1 else None for i in _DISPLAY_TO_INDEX
        ]
        boards = open_boards_mask(state)
        status: list[int | str | None] = []
        for b in range(9):
            if state.won_x >> b & 1:
                status.append(0)
            elif state.won_o >> b & 1:
                status.append(1)
            elif state.closed >> b & 1:
                status.append("tie")
            else:
                status.append(None)
        return {
            **common_view(self, state),
            "cells": cells,
            "open_boards": [b for b in range(9) if boards >> b & 1],
            "board_status": status,
        }


# Found by games.engines: the engine, and its place in every list of games (smallest first).
ENGINE = UltimateTTTEngine()
ORDER = 3
