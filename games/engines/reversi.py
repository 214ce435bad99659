"""Reversi (Othello rules), SPEC section 1.1, on 64-bit bitboards.

Board geometry: columns a-h left to right, rows 1-8 top to bottom (Othello
notation). Square ``c<col><row>`` is bit ``(row - 1) * 8 + col`` with a = 0, so
a1 is bit 0, h1 bit 7, a2 bit 8 and h8 bit 63. That is exactly the order of the
64 characters of an ``.obf`` position (a1..h1, a2..h2, ...), so position text
maps straight onto bits.

A state is ``ReversiState(black, white, side)``: two disjoint 64-bit masks and
the side to move (0 = black, who starts; 1 = white). States are immutable,
hashable NamedTuples.

Move tokens: a square name (``"d3"``) or ``"pass"`` when the side to move has no
placement but the opponent has one. The game is over when neither side can
move; the outcome reason is ``"wipeout"`` (one colour has no discs left),
``"board_full"`` (all 64 squares filled) or ``"no_moves"`` (empties remain but
nobody can play). The score is the disc count ``(black, white)``.

``view(state)`` returns, besides the ``dumps`` keys and the common keys:

* ``cells``: a list of 64 entries in square order a1, b1, ..., h1, a2, ..., h8
  (row-major from the top-left), each ``0`` (black disc), ``1`` (white disc) or
  ``None`` (empty). Index ``i`` is drawn on row ``i // 8`` (top = 0), column
  ``i % 8`` (left = 0).
* ``flips``: for every legal placement, the list of squares it would turn over
  (for move previews and hints); ``{}`` when only ``pass`` is possible.

Fast internals for the computer player (no strings, plain ints):
``legal_mask(own, opp)``, ``flips(own, opp, sq)``, ``SQUARE_NAMES``,
``square_index(name)``.

>>> from games.engines import get
>>> eng = get("reversi")
>>> s = eng.play(eng.initial(), "d3")
>>> eng.to_move(s)
1
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
from games.engines.grid import bits, cells_text, parse_cells, square_names

FULL = 0xFFFFFFFFFFFFFFFF
NOT_A = 0xFEFEFEFEFEFEFEFE  # every square except column a
NOT_H = 0x7F7F7F7F7F7F7F7F  # every square except column h
INNER_COLS = NOT_A & NOT_H  # columns b-g: a horizontal/diagonal run of flips lies there

SQUARE_NAMES: tuple[str, ...] = square_names(8, 8)
_SQUARE_INDEX: dict[str, int] = {name: sq for sq, name in enumerate(SQUARE_NAMES)}

D4, E4, D5, E5 = (_SQUARE_INDEX[n] for n in ("d4", "e4", "d5", "e5"))
CENTRE = (1 << D4) | (1 << E4) | (1 << D5) | (1 << E5)
START_BLACK = (1 << D5) | (1 << E4)
START_WHITE = (1 << D4) | (1 << E5)

PASS = "pass"
_DISC = {"X": 0, "O": 1}
_SIDE_LETTER = "XO"
_CELLS = "XO-"  # a black disc, a white disc, an empty square: the .obf board


def square_index(name: str) -> int:
    """Bit index of a square name like ``"d3"``; KeyError when it is not one."""
    return _SQUARE_INDEX[name]


# ---------------------------------------------------------------------------
# Bitboard move generation

# The eight directions as (column step, row step).
_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1))


def _build_rays() -> tuple[tuple[tuple[tuple[int, int], ...], ...], tuple[tuple[tuple[int, int], ...], ...]]:
    """Per square, its rays as (first square, mask of every square on the ray).

    Split by whether the bit index increases along the ray, since the flip code
    finds the end of a run with the lowest or the highest set bit accordingly.
    """
    increasing_table, decreasing_table = [], []
    for sq in range(64):
        col, row = sq % 8, sq // 8
        increasing: list[tuple[int, int]] = []
        decreasing: list[tuple[int, int]] = []
        for dc, dr in _DIRECTIONS:
            mask, c, r = 0, col + dc, row + dr
            while 0 <= c < 8 and 0 <= r < 8:
                mask |= 1 << (r * 8 + c)
                c, r = c + dc, r + dr
            # A ray of one square can never flip: it needs an opponent disc and an
            # own disc beyond it.
            if mask.bit_count() < 2:
                continue
            first = 1 << ((row + dr) * 8 + col + dc)
            (increasing if dr * 8 + dc > 0 else decreasing).append((first, mask))
        increasing_table.append(tuple(increasing))
        decreasing_table.append(tuple(decreasing))
    return tuple(increasing_table), tuple(decreasing_table)


_RAYS_UP, _RAYS_DOWN = _build_rays()


def flips(own: int, opp: int, sq: int) -> int:
    """Mask of the opponent discs a disc of ``own`` placed on empty ``sq`` turns over.

    Along each ray that starts with an opponent disc, the first square that is
    not an opponent disc ends the run; the run flips when that square holds
    one of ours. Along an increasing ray that square is the lowest set bit of
    ``ray & ~opp``, along a decreasing ray the highest, so no loop over squares
    is needed.
    """
    result = 0
    for first, ray in _RAYS_UP[sq]:
        if first & opp:
            stop = ray & ~opp
            bit = stop & -stop
            if bit & own:
                result |= ray & (bit - 1)
    for first, ray in _RAYS_DOWN[sq]:
        if first & opp:
            stop = ray & ~opp
            if stop:
                bit = 1 << (stop.bit_length() - 1)
                if bit & own:
                    result |= ray & -(bit << 1)
    return result


def legal_mask(own: int, opp: int) -> int:
    """Mask of the empty squares where ``own`` may place a disc.

    Directional shift flood: from our discs, walk over runs of opponent discs in
    each direction (at most six in a row), then one more step onto an empty
    square. The run is grown one step twice, then two steps twice (a
    Kogge-Stone style doubling through ``pre``, the opponent discs whose
    neighbour is also one), which covers runs of up to six with fewer
    operations than six single steps. Horizontal and diagonal runs use the opponent discs of columns b-g
    only, which stops a shift from wrapping around the board edge.
    """
    empty = ~(own | opp) & FULL
    inner = opp & INNER_COLS
    moves = 0
    # east (+1)
    t = inner & (own << 1)
    t |= inner & (t << 1)
    pre = inner & (inner << 1)
    t |= pre & (t << 2)
    t |= pre & (t << 2)
    moves |= t << 1
    # west (-1)
    t = inner & (own >> 1)
    t |= inner & (t >> 1)
    pre = inner & (inner >> 1)
    t |= pre & (t >> 2)
    t |= pre & (t >> 2)
    moves |= t >> 1
    # south (+8)
    t = opp & (own << 8)
    t |= opp & (t << 8)
    pre = opp & (opp << 8)
    t |= pre & (t << 16)
    t |= pre & (t << 16)
    moves |= t << 8
    # north (-8)
    t = opp & (own >> 8)
    t |= opp & (t >> 8)
    pre = opp & (opp >> 8)
    t |= pre & (t >> 16)
    t |= pre & (t >> 16)
    moves |= t >> 8
    # south-east (+9)
    t = inner & (own << 9)
    t |= inner & (t << 9)
    pre = inner & (inner << 9)
    t |= pre & (t << 18)
    t |= pre & (t << 18)
    moves |= t << 9
    # north-west (-9)
    t = inner & (own >> 9)
    t |= inner & (t >> 9)
    pre = inner & (inner >> 9)
    t |= pre & (t >> 18)
    t |= pre & (t >> 18)
    moves |= t >> 9
    # south-west (+7)
    t = inner & (own << 7)
    t |= inner & (t << 7)
    pre = inner & (inner << 7)
    t |= pre & (t << 14)
    t |= pre & (t << 14)
    moves |= t << 7
    # north-east (-7)
    t = inner & (own >> 7)
    t |= inner & (t >> 7)
    pre = inner & (inner >> 7)
    t |= pre & (t >> 14)
    t |= pre & (t >> 14)
    moves |= t >> 7
    return moves & empty


def _neighbours(mask: int) -> int:
    """Squares 8-adjacent to ``mask`` (not including it unless adjacent to itself)."""
    horizontal = ((mask << 1) & NOT_A) | ((mask >> 1) & NOT_H)
    row = mask | horizontal
    return (horizontal | (row << 8) | (row >> 8)) & FULL


def perft_bits(own: int, opp: int, depth: int, *, passed: bool = False) -> int:
    """Perft on raw bitboards (a forced pass is a ply), for benchmarks and tests."""
    moves = legal_mask(own, opp)
    if not moves:
        if passed:
            return 0  # game over before the horizon: not a leaf at the horizon
        if depth == 1:
            return 1
        return perft_bits(opp, own, depth - 1, passed=True)
    if depth == 1:
        return moves.bit_count()
    total = 0
    while moves:
        bit = moves & -moves
        moves ^= bit
        f = flips(own, opp, bit.bit_length() - 1)
        total += perft_bits(opp ^ f, own | f | bit, depth - 1, passed=False)
    return total


# ---------------------------------------------------------------------------
# The engine


class ReversiState(NamedTuple):
    black: int
    white: int
    side: int  # 0 = black to move, 1 = white to move


def _check_position(black: int, white: int, side: int) -> None:
    """Refuse boards no game can reach (InvalidPosition)."""
    if black & white:
        raise InvalidPosition("a square holds both a black and a white disc")
    occupied = black | white
    if occupied & CENTRE != CENTRE:
        raise InvalidPosition("the four centre squares d4, e4, d5, e5 can never be empty")
    if occupied == CENTRE and (black, white, side) != (START_BLACK, START_WHITE, 0):
        raise InvalidPosition("with only the four centre discs this must be the start, black to move")
    # Every disc is placed next to an existing one, so the occupied squares always
    # form one 8-connected group grown from the centre.
    reached = CENTRE
    while True:
        grown = reached | (_neighbours(reached) & occupied)
        if grown == reached:
            break
        reached = grown
    if reached != occupied:
        stray = SQUARE_NAMES[(occupied & ~reached).bit_length() - 1]
        raise InvalidPosition(f"disc on {stray} is not connected to the centre group")
    # The side that is not to move made the last move (a placement, or a pass
    # while the game went on), so it cannot have lost all of its discs.
    waiting = white if side == 0 else black
    if not waiting:
        raise InvalidPosition(
            f"{'white' if side == 0 else 'black'} has no discs, so it cannot be {_SIDE_LETTER[side]}'s turn"
        )


class ReversiEngine:
    """Othello: place a disc that closes lines of opponent discs; they all flip."""

    slug: ClassVar[str] = "reversi"
    name: ClassVar[str] = "Reversi"
    pass_move: ClassVar[str | None] = PASS

    def initial(self) -> ReversiState:
        return ReversiState(START_BLACK, START_WHITE, 0)

    def to_move(self, state: ReversiState) -> int:
        return state.side

    @staticmethod
    def _own_opp(state: ReversiState) -> tuple[int, int]:
        return (state.black, state.white) if state.side == 0 else (state.white, state.black)

    def legal_moves(self, state: ReversiState) -> list[str]:
        own, opp = self._own_opp(state)
        moves = legal_mask(own, opp)
        if moves:
            return [SQUARE_NAMES[sq] for sq in bits(moves)]
        return [PASS] if legal_mask(opp, own) else []

    def play(self, state: ReversiState, move: str) -> ReversiState:
        own, opp = self._own_opp(state)
        if move == PASS:
            if legal_mask(own, opp):
                raise IllegalMove("you cannot pass while you have a legal move")
            if not legal_mask(opp, own):
                raise IllegalMove("the game is over: nobody can move")
            return ReversiState(state.black, state.white, 1 - state.side)
        if not isinstance(move, str) or move not in _SQUARE_INDEX:
            raise IllegalMove(f"{move!r} is not a square (a1..h8) or 'pass'")
        sq = _SQUARE_INDEX[move]
        bit = 1 << sq
        if (own | opp) & bit:
            raise IllegalMove(f"{move} is already occupied")
        flipped = flips(own, opp, sq)
        if not flipped:
            if not legal_mask(own, opp) and not legal_mask(opp, own):
                raise IllegalMove("the game is over: nobody can move")
            raise IllegalMove(f"{move} does not flip any disc")
        own |= bit | flipped
        opp ^= flipped
        if state.side == 0:
            return ReversiState(own, opp, 1)
        return ReversiState(opp, own, 0)

    def score(self, state: ReversiState) -> tuple[int, int]:
        return state.black.bit_count(), state.white.bit_count()

    def outcome(self, state: ReversiState) -> Outcome | None:
        if legal_mask(state.black, state.white) or legal_mask(state.white, state.black):
            return None
        black, white = self.score(state)
        if not black or not white:
            reason = OutcomeReason.WIPEOUT
        elif black + white == 64:
            reason = OutcomeReason.BOARD_FULL
        else:
            reason = OutcomeReason.NO_MOVES
        return Outcome.by_score((black, white), reason)

    # -- text and storage ---------------------------------------------------

    def fen(self, state: ReversiState) -> str:
        """The .obf form: 64 squares a1..h8 (X, O, -), a space, X or O to move."""
        return f"{cells_text(state.black, state.white, range(64), _CELLS)} {_SIDE_LETTER[state.side]}"

    def from_fen(self, text: str) -> ReversiState:
        if not isinstance(text, str):
            raise InvalidPosition("position text must be a string")
        parts = text.strip().split(" ")
        if len(parts) != 2 or parts[1] not in _DISC:
            raise InvalidPosition("expected 64 squares (X, O or -), one space and the side to move (X or O)")
        black, white = parse_cells(parts[0], range(64), _CELLS, SQUARE_NAMES)
        side = _DISC[parts[1]]
        _check_position(black, white, side)
        return ReversiState(black, white, side)

    def dumps(self, state: ReversiState) -> dict[str, Any]:
        # The board travels as text: 64-bit integers do not survive JavaScript.
        board = cells_text(state.black, state.white, range(64), _CELLS)
        return {"game": self.slug, "board": board, "to_move": state.side}

    def loads(self, data: dict[str, Any]) -> ReversiState:
        check_stored(data, self.slug, {"game", "board", "to_move"})
        side = stored_int(data, "to_move", 0, 1)
        black, white = parse_cells(data["board"], range(64), _CELLS, SQUARE_NAMES)
        _check_position(black, white, side)
        return ReversiState(black, white, side)

    def view(self, state: ReversiState) -> dict[str, Any]:
        # Every move's broadcast builds one: set bits are walked, not all 64 squares.
        own, opp = self._own_opp(state)
        cells: list[int | None] = [None] * 64
        for sq in bits(state.black):
            cells[sq] = 0
        for sq in bits(state.white):
            cells[sq] = 1
        preview = {
            SQUARE_NAMES[sq]: [SQUARE_NAMES[i] for i in bits(flips(own, opp, sq))]
            for sq in bits(legal_mask(own, opp))
        }
        return {
            **common_view(self, state),
            "cells": cells,
            "flips": preview,
        }


# Found by games.engines: the engine, and its place in every list of games (smallest first).
ENGINE = ReversiEngine()
ORDER = 1
