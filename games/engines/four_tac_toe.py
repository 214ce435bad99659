"""Four Tac Toe (tic-tac-toe on a 3x3x3x3 board), SPEC section 1.5.

Board geometry: nine 3x3 boards in a 3x3 arrangement make a 9x9 grid with the
coordinates of Ultimate Tic-Tac-Toe: files a-i left to right, ranks 1-9 bottom
to top. The 4-D cell ``(w, x, y, z)`` (each 0..2) is drawn on display row
``3w + y`` counted from the top (rank ``9 - (3w + y)``) and column ``3x + z``
(file letter number, a = 0): ``w``/``x`` pick the small board, ``y``/``z`` the
cell inside it. Internally a cell is its reading-order index from the top-left,
``9 * row + col`` (a9 = 0, i9 = 8, a1 = 72, i1 = 80), and a side's marks are one
81-bit mask. The centre cell e5 = (1, 1, 1, 1), index 40, is forbidden to both.

Lines: three cells ``p, p + d, p + 2d`` for a step ``d`` in ``{-1, 0, 1}^4``
minus zero. There are 272 (``ALL_LINES``); 40 pass through the forbidden centre
and can never be completed, which leaves the 232 scoring lines ``LINES``. Each
line is a tuple of three cell tokens; ``LINE_MASKS`` holds the same lines as
bitmasks and ``CELL_LINES`` lists, per internal cell index, the indexes into
``LINES`` of the scoring lines through that cell. ``lines_table()`` is the
JSON-ready form of ``LINES`` that the pages load once (line ``k`` in ``view``
and ``live_lines`` always means ``LINES[k]``).

Rules: X (side 0) moves first and the players alternate, placing one mark on
any empty cell except e5 (no passing). Completing a line of your own marks
scores one point, and one move may complete several lines at once. When all 80
playable cells are filled the game ends with outcome reason ``"board_full"``
(whoever won): the higher score wins, equal scores draw. Because a line once
complete stays complete, the score is simply the number of lines each side
owns entirely.

A state is ``FourTacToeState(x, o, side, score_x, score_o)``: the two mark
masks, the side to move and the two scores (kept so that moves are cheap;
``loads``/``from_fen`` recompute them). Immutable, hashable NamedTuples.

Position text (``fen``), the project's own format: the nine ranks from 9 down
to 1 separated by ``/``, each cell ``x``, ``o`` or a digit counting a run of
empty cells, and ``*`` for the forbidden e5 (always present; digit runs stop at
it), then a space and the side to move ``X`` or ``O``. Start position:
``9/9/9/9/4*4/9/9/9/9 X``. X starts, so X moves when the mark counts are equal
and O when X has one more; anything else is refused.

``dumps`` gives ``{"game", "board", "to_move"}`` where ``board`` is 81
characters in reading order from the top-left (rank 9 first): ``x``, ``o``,
``-`` (empty) and ``*`` (e5). ``view`` adds the common keys and:

* ``cells``: a list of 81 entries in reading order from the top-left; index
  ``i`` is drawn on row ``i // 9`` (top = 0, rank 9) and column ``i % 9``
  (left = 0, file a); each entry is ``0`` (X), ``1`` (O) or ``None`` (empty or
  the forbidden centre).
* ``forbidden``: ``"e5"``.
* ``completed``: ``[x_lines, o_lines]``, the indexes into ``LINES`` of the lines
  each side has completed (to draw them).
* ``live``: ``[x_lines, o_lines]``, the indexes into ``LINES`` of the lines each
  side can still complete (no opponent mark on them, not yet complete). The
  hover help of SPEC 1.5 follows from it, and ``live_lines`` computes it on the
  server: over an empty cell or one of your own, show ``live[you]`` through the
  cell; over an opponent's cell, ``live[opponent]`` through it.

Fast internals for the computer player: ``LINE_MASKS``, ``CELL_LINE_MASKS``
(per cell index, masks of the scoring lines through it), ``PLAYABLE`` (mask of
the 80 playable cells), ``CELL_TOKENS``, ``CELL_INDEX``, ``CENTRE``.
"""

from __future__ import annotations

from itertools import product
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
from games.engines.grid import FILES, expand_ranks, fen_ranks

CENTRE = 40  # e5 = (1, 1, 1, 1)
ALL_CELLS = (1 << 81) - 1
PLAYABLE = ALL_CELLS & ~(1 << CENTRE)


def cell_index(w: int, x: int, y: int, z: int) -> int:
    """Internal (reading-order) index of the 4-D cell (w, x, y, z)."""
    return 9 * (3 * w + y) + 3 * x + z


def cell_coords(index: int) -> tuple[int, int, int, int]:
    """The 4-D coordinates (w, x, y, z) of an internal cell index."""
    row, col = divmod(index, 9)
    return row // 3, col // 3, row % 3, col % 3


CELL_TOKENS: tuple[str, ...] = tuple(f"{FILES[i % 9]}{9 - i // 9}" for i in range(81))
CELL_INDEX: dict[str, int] = {token: i for i, token in enumerate(CELL_TOKENS)}


def _build_lines() -> tuple[tuple[int, int, int], ...]:
    """All 272 lines as sorted index triples, in a stable order."""
    found: set[tuple[int, int, int]] = set()
    for p in product(range(3), repeat=4):
        for d in product((-1, 0, 1), repeat=4):
            if not any(d):
                continue
            end = tuple(a + 2 * b for a, b in zip(p, d, strict=True))
            if all(0 <= c <= 2 for c in end):
                mid = tuple(a + b for a, b in zip(p, d, strict=True))
                triple = sorted(cell_index(*c) for c in (p, mid, end))
                found.add((triple[0], triple[1], triple[2]))
    return tuple(sorted(found))


ALL_LINE_CELLS: tuple[tuple[int, int, int], ...] = _build_lines()
LINE_CELLS: tuple[tuple[int, int, int], ...] = tuple(t for t in ALL_LINE_CELLS if CENTRE not in t)
ALL_LINES: tuple[tuple[str, str, str], ...] = tuple(
    (CELL_TOKENS[a], CELL_TOKENS[b], CELL_TOKENS[c]) for a, b, c in ALL_LINE_CELLS
)
LINES: tuple[tuple[str, str, str], ...] = tuple(
    (CELL_TOKENS[a], CELL_TOKENS[b], CELL_TOKENS[c]) for a, b, c in LINE_CELLS
)
LINE_MASKS: tuple[int, ...] = tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in LINE_CELLS)
CELL_LINES: tuple[tuple[int, ...], ...] = tuple(
    tuple(k for k, t in enumerate(LINE_CELLS) if i in t) for i in range(81)
)
CELL_LINE_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(LINE_MASKS[k] for k in CELL_LINES[i]) for i in range(81)
)

_SIDE_LETTER = "XO"


def lines_table() -> list[list[str]]:
    """``LINES`` as JSON-ready lists of three tokens (served once to the pages)."""
    return [list(line) for line in LINES]


def count_lines(mask: int) -> int:
    """How many scoring lines lie entirely inside ``mask``."""
    return sum(1 for m in LINE_MASKS if mask & m == m)


def lines_gained(mine: int, index: int) -> int:
    """Points for marking ``index`` when ``mine`` (without it) holds one side's marks."""
    new = mine | (1 << index)
    return sum(1 for m in CELL_LINE_MASKS[index] if new & m == m)


class FourTacToeState(NamedTuple):
    x: int  # 81-bit mask of X marks, reading order from the top-left
    o: int  # 81-bit mask of O marks
    side: int  # 0 = X to move, 1 = O to move
    score_x: int  # lines completed by X
    score_o: int  # lines completed by O


def play_index(state: FourTacToeState, index: int) -> FourTacToeState:
    """The state after the side to move marks internal cell ``index`` (not checked)."""
    if state.side == 0:
        return FourTacToeState(
            state.x | (1 << index), state.o, 1, state.score_x + lines_gained(state.x, index), state.score_o
        )
    return FourTacToeState(
        state.x, state.o | (1 << index), 0, state.score_x, state.score_o + lines_gained(state.o, index)
    )


def _make_state(x: int, o: int, side: int) -> FourTacToeState:
    """Build a state from raw marks, refusing anything no game can reach."""
    if x & o:
        raise InvalidPosition(f"{CELL_TOKENS[(x & o).bit_length() - 1]} holds both an x and an o")
    if (x | o) >> CENTRE & 1:
        raise InvalidPosition("e5, the centre of the centre board, is forbidden and must stay empty")
    nx, no = x.bit_count(), o.bit_count()
    if nx - no != side:
        raise InvalidPosition(
            f"{nx} x and {no} o marks do not fit {_SIDE_LETTER[side]} to move "
            "(X starts, so X moves when the counts are equal and O when X has one more)"
        )
    return FourTacToeState(x, o, side, count_lines(x), count_lines(o))


def _board_text(x: int, o: int) -> str:
    return "".join(
        "*" if i == CENTRE else "x" if x >> i & 1 else "o" if o >> i & 1 else "-" for i in range(81)
    )


def _parse_board_text(text: Any) -> tuple[int, int]:
    if not isinstance(text, str) or len(text) != 81:
        raise InvalidPosition("the board must be a string of 81 characters (x, o, - and * at e5)")
    x = o = 0
    for i, char in enumerate(text):
        if i == CENTRE:
            if char != "*":
                raise InvalidPosition("e5 (character 41 of the board) must be '*', the forbidden centre")
        elif char == "x":
            x |= 1 << i
        elif char == "o":
            o |= 1 << i
        elif char != "-":
            raise InvalidPosition(f"unexpected character {char!r} on {CELL_TOKENS[i]}: use x, o or -")
    return x, o


def _parse_fen_ranks(text: str) -> tuple[int, int]:
    cells = expand_ranks(text, size=9, pieces="xo*")
    if cells[CENTRE] == "-":
        raise InvalidPosition("a run of empty cells cannot cover e5: write it as '*'")
    x = o = 0
    for index, char in enumerate(cells):
        if (char == "*") != (index == CENTRE):
            raise InvalidPosition(
                f"{CELL_TOKENS[index]} holds {char!r}, but '*' marks exactly the forbidden e5"
            )
        if char == "x":
            x |= 1 << index
        elif char == "o":
            o |= 1 << index
    return x, o


def _live_line_ids(owner: int, other: int) -> list[int]:
    """Indexes of the lines ``owner`` can still complete: no mark of ``other``, not yet full."""
    return [k for k, m in enumerate(LINE_MASKS) if not other & m and owner & m != m]


class FourTacToeEngine:
    """Tic-tac-toe in four dimensions: score as many lines as you can."""

    slug: ClassVar[str] = "four_tac_toe"
    name: ClassVar[str] = "Four Tac Toe"
    pass_move: ClassVar[str | None] = None

    def initial(self) -> FourTacToeState:
        return FourTacToeState(0, 0, 0, 0, 0)

    def to_move(self, state: FourTacToeState) -> int:
        return state.side

    def legal_moves(self, state: FourTacToeState) -> list[str]:
        free = PLAYABLE & ~(state.x | state.o)
        moves = []
        while free:
            bit = free & -free
            free ^= bit
            moves.append(CELL_TOKENS[bit.bit_length() - 1])
        return moves

    def play(self, state: FourTacToeState, move: str) -> FourTacToeState:
        index = CELL_INDEX.get(move) if isinstance(move, str) else None
        if index is None:
            raise IllegalMove(f"{move!r} is not a cell (files a-i, ranks 1-9, e.g. d4)")
        if index == CENTRE:
            raise IllegalMove("e5, the centre of the centre board, is forbidden to both players")
        occupied = state.x | state.o
        if occupied == PLAYABLE:
            raise IllegalMove("the game is over: every playable cell is filled")
        if occupied >> index & 1:
            raise IllegalMove(f"{move} is already taken")
        return play_index(state, index)

    def score(self, state: FourTacToeState) -> tuple[int, int]:
        return state.score_x, state.score_o

    def outcome(self, state: FourTacToeState) -> Outcome | None:
        if state.x | state.o != PLAYABLE:
            return None
        return Outcome.by_score((state.score_x, state.score_o), OutcomeReason.BOARD_FULL)

    def live_lines(self, state: FourTacToeState, cell: str, side: int) -> list[int]:
        """Hover help (SPEC 1.5): indexes into ``LINES`` to highlight over ``cell`` for ``side``.

        Over an empty cell or one of ``side``'s own marks: the lines through it
        that ``side`` can still complete. Over an opponent's mark: the lines
        through it that the opponent can still complete. Dead lines (an opponent
        mark on them, already complete, or through the forbidden centre) never.
        """
        index = CELL_INDEX.get(cell) if isinstance(cell, str) else None
        if index is None:
            raise ValueError(f"{cell!r} is not a cell (files a-i, ranks 1-9)")
        if side not in (0, 1):
            raise ValueError("side must be 0 (X) or 1 (O)")
        own, opp = (state.x, state.o) if side == 0 else (state.o, state.x)
        if opp >> index & 1:
            own, opp = opp, own  # an opponent's cell: what can the opponent still do with it
        return [
            k for k in CELL_LINES[index] if not opp & LINE_MASKS[k] and own & LINE_MASKS[k] != LINE_MASKS[k]
        ]

    # -- text and storage ---------------------------------------------------

    def fen(self, state: FourTacToeState) -> str:
        return f"{fen_ranks(_board_text(state.x, state.o), 9, '-')} {_SIDE_LETTER[state.side]}"

    def from_fen(self, text: str) -> FourTacToeState:
        if not isinstance(text, str):
            raise InvalidPosition("position text must be a string")
        parts = text.split()
        if len(parts) != 2:
            raise InvalidPosition(
                "expected two fields: ranks 9..1 (x, o, digits, * for e5) and the side to move"
            )
        x, o = _parse_fen_ranks(parts[0])
        if parts[1] not in ("X", "O"):
            raise InvalidPosition(f"the side to move must be X or O, not {parts[1]!r}")
        return _make_state(x, o, "XO".index(parts[1]))

    def dumps(self, state: FourTacToeState) -> dict[str, Any]:
        return {"game": self.slug, "board": _board_text(state.x, state.o), "to_move": state.side}

    def loads(self, data: dict[str, Any]) -> FourTacToeState:
        check_stored(data, self.slug, {"game", "board", "to_move"})
        side = stored_int(data, "to_move", 0, 1)
        x, o = _parse_board_text(data["board"])
        return _make_state(x, o, side)

    def view(self, state: FourTacToeState) -> dict[str, Any]:
        cells: list[int | None] = [
            0 if state.x >> i & 1 else 1 if state.o >> i & 1 else None for i in range(81)
        ]
        return {
            **common_view(self, state),
            "cells": cells,
            "forbidden": CELL_TOKENS[CENTRE],
            "completed": [
                [k for k, m in enumerate(LINE_MASKS) if state.x & m == m],
                [k for k, m in enumerate(LINE_MASKS) if state.o & m == m],
            ],
            "live": [_live_line_ids(state.x, state.o), _live_line_ids(state.o, state.x)],
        }


# Found by games.engines: the engine, and its place in every list of games (smallest first).
ENGINE = FourTacToeEngine()
ORDER = 5
