"""Four Tac Toe's one-move tactics, shared by every level of the computer player and the analysis.

Two cheap views of the lines through a cell: ``cell_value``, a one-move heuristic (complete >
block > make a two > kill a line of theirs > start an empty line) that also orders moves
(``ordered_cells``), and ``tactical_values`` / ``tactical_candidates``, "my points now minus the
opponent's best points on the reply". ``free_cells`` lists the cells left to play. The player is
``games.ai.four_tac_toe``; the tree search's playouts are ``games.ai.four_tac_toe_playout``.
"""

from __future__ import annotations

from games.engines.four_tac_toe import CELL_LINE_MASKS, LINE_CELLS, LINE_MASKS, PLAYABLE, FourTacToeState

# Each scoring line as (mask, cell, cell, cell).
LINE_TABLE: tuple[tuple[int, int, int, int], ...] = tuple(
    (m, *cells) for m, cells in zip(LINE_MASKS, LINE_CELLS, strict=True)
)

# _ROW_CELLS[row][bits]: the cells of display row `row` whose bits are set in the 9-bit `bits`.
_ROW_CELLS = tuple(
    tuple(tuple(9 * r + c for c in range(9) if bits >> c & 1) for bits in range(512)) for r in range(9)
)

# Heuristic weights per scoring line through a cell, by what is already on it.
W_COMPLETE = 100.0  # two of mine: this cell scores a point
W_BLOCK = 60.0  # two of theirs: this cell stops their point
W_TWO = 6.0  # one of mine: this cell makes a threat
W_KILL = 3.0  # one of theirs: this cell kills their line
W_OPEN = 1.0  # empty line: a start


def free_cells(state: FourTacToeState) -> list[int]:
    """Internal indexes of the empty playable cells."""
    free = PLAYABLE & ~(state.x | state.o)
    cells: list[int] = []
    for row in range(9):
        cells += _ROW_CELLS[row][(free >> 9 * row) & 0x1FF]
    return cells


def gains(mine: int, theirs: int, cell: int) -> int:
    """Lines ``mine`` completes by taking ``cell`` (lines with two of its marks and no other)."""
    n = 0
    for m in CELL_LINE_MASKS[cell]:
        if not theirs & m and (mine & m).bit_count() == 2:
            n += 1
    return n


def cell_value(own: int, opp: int, cell: int) -> float:
    """One-move heuristic value of ``cell`` for the side owning ``own``."""
    value = 0.0
    for m in CELL_LINE_MASKS[cell]:
        theirs = opp & m
        mine = own & m
        if theirs:
            if not mine:
                value += W_BLOCK if theirs.bit_count() == 2 else W_KILL
        elif mine:
            value += W_COMPLETE if mine.bit_count() == 2 else W_TWO
        else:
            value += W_OPEN
    return value


def own_opp(state: FourTacToeState) -> tuple[int, int]:
    """(the marks of the side to move, the marks of the other side)."""
    return (state.x, state.o) if state.side == 0 else (state.o, state.x)


def tactical_candidates(state: FourTacToeState, cells: list[int]) -> list[int]:
    """The cells with the best "my points now minus the opponent's best points next".

    Taking a cell never changes the opponent's points at another cell (a line
    the opponent could finish elsewhere has no empty cell left for us), so the
    reply is just the best of the opponent's gains outside the cell we take.
    """
    values = tactical_values(state, cells)
    best = max(values)
    return [c for c, v in zip(cells, values, strict=True) if v == best]


def tactical_values(state: FourTacToeState, cells: list[int]) -> list[int]:
    """Each cell's "my points now minus the opponent's best points next" (``tactical_candidates``
    keeps the best; the analysis values the others by the points they give up)."""
    own, opp = own_opp(state)
    mine = [gains(own, opp, c) for c in cells]
    theirs = [gains(opp, own, c) for c in cells]
    order = sorted(range(len(cells)), key=lambda i: -theirs[i])
    top = theirs[order[0]]
    second = theirs[order[1]] if len(order) > 1 else 0
    values = []
    for i in range(len(cells)):
        reply = second if i == order[0] else top
        values.append(mine[i] - reply)
    return values


def ordered_cells(
    state: FourTacToeState, lines: tuple[tuple[int, int, int, int], ...] = LINE_TABLE
) -> list[int]:
    """Free cells, best first by the one-move heuristic (``cell_value``).

    Works line by line rather than cell by cell: each line's weight is decided
    once and added to its three cells. ``lines`` may leave out lines known to be
    dead (the search passes the lines still alive at its root).
    """
    own, opp = own_opp(state)
    value = [0.0] * 81
    for m, a, b, c in lines:
        theirs = opp & m
        mine = own & m
        if theirs:
            if mine:
                continue
            w = W_BLOCK if theirs.bit_count() == 2 else W_KILL
        elif mine:
            w = W_COMPLETE if mine.bit_count() == 2 else W_TWO
        else:
            w = W_OPEN
        value[a] += w
        value[b] += w
        value[c] += w
    cells = free_cells(state)
    cells.sort(key=value.__getitem__, reverse=True)
    return cells
