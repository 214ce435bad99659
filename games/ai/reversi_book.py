"""Reversi's opening book: the named Othello openings, from which Hard plays its first moves.

The openings are data, ``games/ai/data/reversi_openings.txt`` (its header names the sources):
one named line of moves from the start per row, plus ``avoid:`` rows for book moves Hard must
not play itself (the Parallel, and the moves Hard's own search or the game report read as
unsound: ``bench/reversi_book_check.py``). ``book_moves(state)``
answers from a dict built once, keyed by the position itself (both bitboards and the side to
move), so a line reached by another move order, or in any of the four orientations of the
board that keep the start position, is found in one lookup.

Why positions under symmetry: the published lines all begin with f5, but black's four first
moves (d3, c4, f5, e6) give the same position turned or reflected. The symmetries of the
square that map the start position onto itself are four (the identity, the half turn and the
reflections in the two diagonals); each maps a book line onto a line from the site's start.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from games.engines.reversi import SQUARE_NAMES, ReversiEngine, ReversiState, square_index

DATA = Path(__file__).resolve().parent / "data" / "reversi_openings.txt"

_SQUARE = re.compile(r"[a-h][1-8]")


@dataclass(frozen=True)
class Opening:
    """A named line of play from the start position, in the site's notation (f5 first)."""

    moves: tuple[str, ...]
    name: str


@dataclass(frozen=True)
class BookText:
    """The book file read: its named openings, and the move sequences whose last move Hard avoids."""

    openings: tuple[Opening, ...]
    avoided: tuple[tuple[str, ...], ...]


def _split_moves(text: str) -> tuple[tuple[str, ...], str]:
    """(the leading square names of ``text``, the rest of it)."""
    words = text.split()
    count = 0
    while count < len(words) and _SQUARE.fullmatch(words[count]):
        count += 1
    return tuple(words[:count]), " ".join(words[count:])


def parse(text: str) -> BookText:
    """The openings and avoided moves of a book file's ``text`` (``#`` starts a comment line)."""
    openings: list[Opening] = []
    avoided: list[tuple[str, ...]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("avoid:"):
            moves, _why = _split_moves(line.removeprefix("avoid:"))
            if not moves:
                raise ValueError(f"line {number}: 'avoid:' names no moves")
            avoided.append(moves)
            continue
        moves, name = _split_moves(line)
        if not moves or not name:
            raise ValueError(f"line {number}: expected moves (a1..h8) then a name: {line!r}")
        openings.append(Opening(moves, name))
    return BookText(tuple(openings), tuple(avoided))


@functools.cache
def book_text() -> BookText:
    """The committed book, read once."""
    return parse(DATA.read_text(encoding="utf-8"))


def openings() -> tuple[Opening, ...]:
    """Every named opening of the committed book, in the file's order."""
    return book_text().openings


# ---------------------------------------------------------------------------
# The four symmetries that keep the start position, as maps of square indices (row * 8 + column).

SquareMap = Callable[[int], int]

SYMMETRIES: tuple[SquareMap, ...] = (
    lambda sq: sq,  # identity
    lambda sq: 63 - sq,  # half turn
    lambda sq: (sq % 8) * 8 + sq // 8,  # reflection in the a1-h8 diagonal
    lambda sq: (7 - sq % 8) * 8 + 7 - sq // 8,  # reflection in the h1-a8 diagonal
)


def transform_mask(mask: int, symmetry: SquareMap) -> int:
    """The bitboard ``mask`` with every square moved by ``symmetry``."""
    result = 0
    while mask:
        low = mask & -mask
        mask ^= low
        result |= 1 << symmetry(low.bit_length() - 1)
    return result


def transform_move(move: str, symmetry: SquareMap) -> str:
    """A square name moved by ``symmetry``."""
    return SQUARE_NAMES[symmetry(square_index(move))]


def _edges(lines: Iterable[tuple[str, ...]]) -> Iterable[tuple[tuple[int, int, int], str]]:
    """(position, move played there) for every move of ``lines``, in all four orientations."""
    engine = ReversiEngine()
    for moves in lines:
        state = engine.initial()
        for move in moves:
            for symmetry in SYMMETRIES:
                key = (
                    transform_mask(state.black, symmetry),
                    transform_mask(state.white, symmetry),
                    state.side,
                )
                yield key, transform_move(move, symmetry)
            state = engine.play(state, move)  # IllegalMove for a line that is not legal


Table = dict[tuple[int, int, int], tuple[str, ...]]


def build(text: BookText) -> Table:
    """Position (black, white, side to move) -> the book moves Hard may play there, sorted so that
    a seeded choice among them is reproducible. An avoided move is left out where it is played,
    but the lines through it still count after it (when the opponent played it)."""
    # Only the last move of an avoided sequence is avoided: the moves before it lead there.
    avoided = {edge for moves in text.avoided for edge in list(_edges([moves]))[-len(SYMMETRIES) :]}
    continuations: dict[tuple[int, int, int], set[str]] = {}
    for key, move in _edges(opening.moves for opening in text.openings):
        if (key, move) not in avoided:
            continuations.setdefault(key, set()).add(move)
    return {key: tuple(sorted(moves)) for key, moves in continuations.items()}


@functools.cache
def _book() -> Table:
    return build(book_text())


def book_moves(state: ReversiState) -> tuple[str, ...]:
    """The book's moves for the side to move in ``state`` that Hard may play; () when out of book."""
    return _book().get((state.black, state.white, state.side), ())


def warm_up() -> None:
    """Read the book and build its lookup, so the first game's first move does not pay for it."""
    _book()
