"""Ataxx on a 7x7 board without blocked squares (SPEC 1.2).

Squares use the community (UAI) notation: files a-g left to right, ranks 1-7
bottom to top. Internally square ``sq = (rank - 1) * 7 + file`` (a1 = 0, g1 = 6,
a7 = 42, g7 = 48) and each side's pieces are a 49-bit int, so moves are a few
shifts and masks on precomputed tables.

Move tokens: a clone (distance 1, the source stays) is its destination only,
``b6``; a jump (Chebyshev distance exactly 2, the source empties) is source then
destination, ``a7c5``; ``0000`` is the forced pass. ``a7b6`` is not a token: a
clone has exactly one spelling.

``legal_moves`` order (deterministic): clones by destination square, then jumps
by source square and then destination, squares in index order a1, b1, ..., g1,
a2, ..., g7.

Counters, as in libataxx and the community FEN: the halfmove clock counts plies
since the last clone (a clone resets it; a jump or a pass adds one, a capture
does not reset it); the fullmove number starts at 1 and goes up after ``o``
(side 1) moves. Both round-trip through the FEN.

End of the game: the board is full (reason ``board_full``) or a side has no
pieces (``wipeout``); or a draw (SPEC 1.2, issue #38: a 3,000-ply game had been
built in 30 s) when the halfmove clock reaches ``HALFMOVE_LIMIT`` (reason
``no_clones``: 100 plies without a clone, libataxx's and UAI's rule) or when a
position comes back for the third time with the same side to move
(``repetition``). For the second, a state carries ``history``: the keys
(``position_key``) of the positions since the last clone, before its own. A
clone adds a piece and no move takes one off the board, so no earlier position
can come back and the history starts again; it is never longer than the
halfmove clock, so at most 99 keys. A FEN has no history: a position read from one
counts its repetitions from there (the halfmove clock is kept). The SPEC's third ending, "neither side can move", cannot
happen without blocked squares: the board is connected, so while both sides
have pieces and a square is empty, some empty square touches some piece and
its owner can clone there. For the same reason a side without a move always
leaves the opponent one, so ``0000`` never ends the game.

Fast internals for the computer player (plain ints, no strings): ``apply(me, opp,
frm, to)`` plays a (from, to) square pair (from == to for a clone) on bitboards,
``dilate``, ``NEIGHBOURS`` and ``JUMP_RING`` are the distance-1 and distance-2
tables, and ``move_token`` names a pair. ``games.engines.ataxx_perft`` walks the
move tree on them: ``generate`` lists a side's pairs and ``perft_bitboards``
counts the tree without building states.

``view(state)`` shape, on top of ``dumps``::

    cells:   7 rows top (rank 7) to bottom (rank 1), each 7 cells a..g:
             {"square": "a7", "piece": "x" | "o" | null}
    targets: {source: {"clone": [squares], "jump": [squares]}} for each piece of
             the side to move that can move (empty when the game is over)
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
from games.engines.grid import bits, cells_text, expand_ranks, fen_ranks, parse_cells, square_names

SIZE = 7
SQUARES = SIZE * SIZE
FULL = (1 << SQUARES) - 1
PASS = "0000"
PIECE_CHARS = ("x", "o")
_CELLS = "xo."  # an x piece, an o piece, an empty square (the stored board)
# The squares in reading order, rank 7 first: how boards are written.
_READING = tuple((SIZE - 1 - r) * SIZE + f for r in range(SIZE) for f in range(SIZE))
START_FEN = "x5o/7/7/7/7/7/o5x x 0 1"
# Plies in a row without a clone after which the game is drawn (libataxx, UAI).
HALFMOVE_LIMIT = 100
# The third occurrence of a position (same pieces, same side to move) is a draw.
REPETITIONS = 3

# Masks that stop a one-file shift from wrapping onto the next rank.
_NOT_FILE_A = sum(1 << (r * SIZE) for r in range(SIZE)) ^ FULL
_NOT_FILE_G = sum(1 << (r * SIZE + SIZE - 1) for r in range(SIZE)) ^ FULL


def _ring(sq: int, distance: int) -> int:
    """Squares at Chebyshev distance exactly ``distance`` from ``sq``."""
    rank, file = divmod(sq, SIZE)
    mask = 0
    for r in range(SIZE):
        for f in range(SIZE):
            if max(abs(r - rank), abs(f - file)) == distance:
                mask |= 1 << (r * SIZE + f)
    return mask


SQUARE_NAMES: tuple[str, ...] = square_names(SIZE, SIZE)
SQUARE_INDEX: dict[str, int] = {name: sq for sq, name in enumerate(SQUARE_NAMES)}
NEIGHBOURS: tuple[int, ...] = tuple(_ring(sq, 1) for sq in range(SQUARES))
JUMP_RING: tuple[int, ...] = tuple(_ring(sq, 2) for sq in range(SQUARES))
# JUMP_NAMES[frm][to] is the token of a jump, "" when the pair is not a jump.
JUMP_NAMES: tuple[tuple[str, ...], ...] = tuple(
    tuple(SQUARE_NAMES[frm] + SQUARE_NAMES[to] if JUMP_RING[frm] >> to & 1 else "" for to in range(SQUARES))
    for frm in range(SQUARES)
)
# Every well-formed token -> (from, to); a clone has from == to.
MOVE_TABLE: dict[str, tuple[int, int]] = {name: (sq, sq) for sq, name in enumerate(SQUARE_NAMES)}
MOVE_TABLE.update(
    (token, (frm, to)) for frm, row in enumerate(JUMP_NAMES) for to, token in enumerate(row) if token
)


def dilate(mask: int) -> int:
    """``mask`` plus every square next to it (one king step in 8 directions)."""
    row = mask | (mask << 1 & _NOT_FILE_A) | (mask >> 1 & _NOT_FILE_G)
    return (row | row << SIZE | row >> SIZE) & FULL


def can_move(me: int, empty: int) -> bool:
    """Whether pieces ``me`` have any clone or jump into ``empty``."""
    return bool(dilate(dilate(me)) & empty)


def apply(me: int, opp: int, frm: int, to: int) -> tuple[int, int]:
    """Play (frm, to) for ``me``; returns (opp, me) after it: the next mover first."""
    flips = NEIGHBOURS[to] & opp
    if frm == to:
        me |= 1 << to | flips
    else:
        me = (me ^ (1 << frm)) | 1 << to | flips
    return opp ^ flips, me


def move_token(frm: int, to: int) -> str:
    return SQUARE_NAMES[to] if frm == to else SQUARE_NAMES[frm] + SQUARE_NAMES[to]


def game_over(me: int, opp: int) -> bool:
    """Board full or a side wiped out (see the module docstring for "neither can move")."""
    return not (me and opp and (me | opp) != FULL)


def position_key(x: int, o: int, side: int) -> int:
    """One int per position (pieces and side to move): what repetitions compare."""
    return x << (SQUARES + 1) | o << 1 | side


class AtaxxState(NamedTuple):
    """A position. ``x`` and ``o`` are 49-bit piece masks; ``side`` 0 is x.

    ``history``: the ``position_key`` of each earlier position since the last clone,
    oldest first (see the module docstring).
    """

    x: int
    o: int
    side: int
    halfmove: int = 0
    fullmove: int = 1
    history: tuple[int, ...] = ()

    def mover(self) -> tuple[int, int]:
        """(pieces of the side to move, pieces of the other side)."""
        return (self.x, self.o) if self.side == 0 else (self.o, self.x)

    def key(self) -> int:
        return position_key(self.x, self.o, self.side)

    def drawn_by_rule(self) -> OutcomeReason | None:
        """``no_clones`` or ``repetition`` when the game is drawn by one of those rules."""
        if self.halfmove >= HALFMOVE_LIMIT:
            return OutcomeReason.NO_CLONES
        if len(self.history) >= 2 * (REPETITIONS - 1) and self.history.count(self.key()) >= REPETITIONS - 1:
            return OutcomeReason.REPETITION
        return None


def _board_rows(state: AtaxxState) -> list[str]:
    """Ranks 7..1 as 7-character strings of 'x', 'o' and '.'."""
    text = cells_text(state.x, state.o, _READING, _CELLS)
    return [text[i : i + SIZE] for i in range(0, SQUARES, SIZE)]


def _check_counters(side: int, halfmove: int, fullmove: int) -> None:
    if fullmove < 1:
        raise InvalidPosition(f"the fullmove number starts at 1, got {fullmove}")
    if halfmove < 0:
        raise InvalidPosition(f"the halfmove clock cannot be negative, got {halfmove}")
    plies = 2 * (fullmove - 1) + side
    if halfmove > plies:
        raise InvalidPosition(f"a halfmove clock of {halfmove} is more than the {plies} plies played")


def _parse_history(keys: object, halfmove: int) -> tuple[int, ...]:
    if not isinstance(keys, list) or len(keys) > halfmove:
        raise InvalidPosition("history is a list of at most halfmove position keys")
    history = []
    for key in keys:
        if not (isinstance(key, str) and 0 < len(key) <= 25 and all(c in "0123456789abcdef" for c in key)):
            raise InvalidPosition(f"a history entry is a position key in lower-case hex, got {key!r}")
        value = int(key, 16)
        x, o = value >> (SQUARES + 1), value >> 1 & FULL
        if x >> SQUARES or x & o:
            raise InvalidPosition(f"the history entry {key!r} is not a position")
        history.append(value)
    return tuple(history)


class AtaxxEngine:
    slug: ClassVar[str] = "ataxx"
    name: ClassVar[str] = "Ataxx"
    pass_move: ClassVar[str | None] = PASS

    # -- playing -------------------------------------------------------------

    def initial(self) -> AtaxxState:
        return self.from_fen(START_FEN)

    def to_move(self, state: AtaxxState) -> int:
        return state.side

    def legal_moves(self, state: AtaxxState) -> list[str]:
        me, opp = state.mover()
        empty = FULL ^ (me | opp)
        if not (empty and me and opp) or state.drawn_by_rule():
            return []
        moves = [SQUARE_NAMES[to] for to in bits(dilate(me) & empty)]
        for frm in bits(me):
            names = JUMP_NAMES[frm]
            moves.extend([names[to] for to in bits(JUMP_RING[frm] & empty)])
        return moves or [PASS]

    def play(self, state: AtaxxState, move: str) -> AtaxxState:
        me, opp = state.mover()
        if game_over(me, opp) or state.drawn_by_rule():
            raise IllegalMove(f"the game is over: {move!r} cannot be played")
        if move == PASS:
            if can_move(me, FULL ^ (me | opp)):
                raise IllegalMove("0000 (pass) is only allowed when you have no move")
            return self._after(state, opp, me, clone=False)
        frm, to = self._parse(move)
        if frm != to and not me >> frm & 1:
            raise IllegalMove(f"no piece of yours on {SQUARE_NAMES[frm]} to jump with")
        if (me | opp) >> to & 1:
            raise IllegalMove(f"{SQUARE_NAMES[to]} is occupied")
        if frm == to and not NEIGHBOURS[to] & me:
            raise IllegalMove(f"none of your pieces is next to {SQUARE_NAMES[to]} to clone there")
        nxt, mine = apply(me, opp, frm, to)
        return self._after(state, nxt, mine, clone=frm == to)

    @staticmethod
    def _parse(move: object) -> tuple[int, int]:
        if not isinstance(move, str):
            raise IllegalMove(f"a move is text, not {type(move).__name__}")
        try:
            return MOVE_TABLE[move]
        except KeyError:
            pass
        if len(move) == 4 and move[:2] in SQUARE_INDEX and move[2:] in SQUARE_INDEX:
            frm, to = SQUARE_INDEX[move[:2]], SQUARE_INDEX[move[2:]]
            if NEIGHBOURS[frm] >> to & 1:
                raise IllegalMove(f"{move!r} is a clone: write it as its destination, {move[2:]!r}")
            raise IllegalMove(f"{move!r} is not a clone or a jump (a jump goes exactly 2 squares)")
        raise IllegalMove(f"malformed move {move!r}: expected e.g. 'b6' (clone), 'a7c5' (jump) or '0000'")

    @staticmethod
    def _after(state: AtaxxState, nxt: int, mine: int, *, clone: bool) -> AtaxxState:
        """The state once the side to move has ``mine`` and the other ``nxt``."""
        side = state.side
        x, o = (mine, nxt) if side == 0 else (nxt, mine)
        return AtaxxState(
            x=x,
            o=o,
            side=1 - side,
            halfmove=0 if clone else state.halfmove + 1,
            fullmove=state.fullmove + side,
            history=() if clone else (*state.history, state.key()),
        )

    # -- results -------------------------------------------------------------

    def score(self, state: AtaxxState) -> tuple[int, int]:
        return state.x.bit_count(), state.o.bit_count()

    def outcome(self, state: AtaxxState) -> Outcome | None:
        x, o = state.x, state.o
        if x | o == FULL:
            reason = OutcomeReason.BOARD_FULL
        elif not (x and o):
            reason = OutcomeReason.WIPEOUT  # also the empty board, a draw at 0-0
        else:
            drawn = state.drawn_by_rule()
            if drawn is None:
                return None
            return Outcome(winner=None, score=self.score(state), reason=drawn)
        return Outcome.by_score(self.score(state), reason)

    # -- serialisation -------------------------------------------------------

    def dumps(self, state: AtaxxState) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.slug,
            "board": _board_rows(state),
            "to_move": state.side,
            "halfmove": state.halfmove,
            "fullmove": state.fullmove,
        }
        if state.history:
            # Hex keys (25 digits at most): JSON numbers past 2**53 lose digits in browsers.
            data["history"] = [format(key, "x") for key in state.history]
        return data

    def loads(self, data: dict[str, Any]) -> AtaxxState:
        check_stored(data, self.slug)
        rows = data.get("board")
        if not (isinstance(rows, list) and len(rows) == SIZE):
            raise InvalidPosition("board must be a list of 7 rows (rank 7 first)")
        for row in rows:
            if not (isinstance(row, str) and len(row) == SIZE):
                raise InvalidPosition(f"each board row is 7 characters of x, o and '.', got {row!r}")
        side = stored_int(data, "to_move", 0, 1)
        for key in ("halfmove", "fullmove"):
            if type(data.get(key)) is not int:
                raise InvalidPosition(f"{key} must be an integer, got {data.get(key)!r}")
        _check_counters(side, data["halfmove"], data["fullmove"])
        x, o = parse_cells("".join(rows), _READING, _CELLS, SQUARE_NAMES)
        history = _parse_history(data.get("history", []), data["halfmove"])
        return AtaxxState(
            x=x, o=o, side=side, halfmove=data["halfmove"], fullmove=data["fullmove"], history=history
        )

    def fen(self, state: AtaxxState) -> str:
        ranks = fen_ranks(cells_text(state.x, state.o, _READING, _CELLS), SIZE, ".")
        return f"{ranks} {PIECE_CHARS[state.side]} {state.halfmove} {state.fullmove}"

    def from_fen(self, text: str) -> AtaxxState:
        """A position from community FEN; the two counters may be left out (0 1)."""
        if not isinstance(text, str):
            raise InvalidPosition(f"a FEN is text, not {type(text).__name__}")
        fields = text.split()
        if len(fields) not in (2, 4):
            raise InvalidPosition(f"a FEN has 4 fields (board, side, halfmove, fullmove), got {text!r}")
        board, side_char = fields[0], fields[1]
        if side_char not in PIECE_CHARS:
            raise InvalidPosition(f"the side to move is 'x' or 'o', got {side_char!r}")
        side = PIECE_CHARS.index(side_char)
        halfmove, fullmove = 0, 1
        if len(fields) == 4:
            if not all(field.isascii() and field.isdigit() for field in fields[2:]):
                raise InvalidPosition(
                    f"the move counters must be whole numbers, got {fields[2]!r} {fields[3]!r}"
                )
            halfmove, fullmove = int(fields[2]), int(fields[3])
        _check_counters(side, halfmove, fullmove)
        if "-" in board:
            raise InvalidPosition("blocked squares ('-') are not played on this site")
        cells = expand_ranks(board, size=SIZE, pieces="xo", empty=".")
        x, o = parse_cells(cells, _READING, _CELLS, SQUARE_NAMES)
        return AtaxxState(x=x, o=o, side=side, halfmove=halfmove, fullmove=fullmove)

    # -- web -----------------------------------------------------------------

    def view(self, state: AtaxxState) -> dict[str, Any]:
        outcome = self.outcome(state)
        cells = [
            {
                "square": SQUARE_NAMES[sq],
                "piece": "x" if state.x >> sq & 1 else "o" if state.o >> sq & 1 else None,
            }
            for sq in _READING
        ]
        return {
            **common_view(self, state),
            "cells": [cells[i : i + SIZE] for i in range(0, SQUARES, SIZE)],
            "targets": {} if outcome is not None else self.targets(state),
        }

    def targets(self, state: AtaxxState) -> dict[str, dict[str, list[str]]]:
        """For each piece of the side to move that can move: its clone and jump squares."""
        me, opp = state.mover()
        empty = FULL ^ (me | opp)
        out = {}
        for frm in bits(me):
            clones = [SQUARE_NAMES[to] for to in bits(NEIGHBOURS[frm] & empty)]
            jumps = [SQUARE_NAMES[to] for to in bits(JUMP_RING[frm] & empty)]
            if clones or jumps:
                out[SQUARE_NAMES[frm]] = {"clone": clones, "jump": jumps}
        return out


# Found by games.engines: the engine, and its place in every list of games (smallest first).
ENGINE = AtaxxEngine()
ORDER = 2
