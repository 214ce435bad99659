"""What the games on a grid share: square names, the bits of a mask, board and position text.

A side's pieces are one int with a bit per square. Each game numbers its squares its own
way and passes that numbering here: ``order``, the squares in the order they are written.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.engines.base import InvalidPosition

FILES = "abcdefghi"


def square_names(width: int, height: int) -> tuple[str, ...]:
    """Square names by index ``(rank - 1) * width + file``, a1 first: a1, b1, ..., a2, ..."""
    return tuple(FILES[sq % width] + str(sq // width + 1) for sq in range(width * height))


def bits(mask: int) -> list[int]:
    """The square indices set in ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cells_text(first: int, second: int, order: Sequence[int], chars: str) -> str:
    """One character per square of ``order``: ``chars`` is (first's, second's, empty)."""
    mark_first, mark_second, empty = chars[0], chars[1], chars[2]
    return "".join(
        mark_first if first >> sq & 1 else mark_second if second >> sq & 1 else empty for sq in order
    )


def parse_cells(text: object, order: Sequence[int], chars: str, names: Sequence[str]) -> tuple[int, int]:
    """The two masks a ``cells_text`` describes; anything else is refused, naming the square."""
    mark_first, mark_second, empty = chars[0], chars[1], chars[2]
    if not isinstance(text, str) or len(text) != len(order):
        raise InvalidPosition(
            f"the board must be a string of {len(order)} characters ({mark_first}, {mark_second} or {empty})"
        )
    first = second = 0
    for sq, char in zip(order, text, strict=False):  # the length is checked above
        if char == mark_first:
            first |= 1 << sq
        elif char == mark_second:
            second |= 1 << sq
        elif char != empty:
            raise InvalidPosition(
                f"unexpected character {char!r} on {names[sq]}: use {mark_first}, {mark_second} or {empty}"
            )
    return first, second


def compress_runs(row: str, empty: str) -> str:
    """A FEN rank: runs of the ``empty`` character become their length (``x--o`` -> ``x2o``)."""
    out, run = [], 0
    for char in row:
        if char == empty:
            run += 1
            continue
        if run:
            out.append(str(run))
            run = 0
        out.append(char)
    if run:
        out.append(str(run))
    return "".join(out)


def fen_ranks(cells: str, width: int, empty: str) -> str:
    """Cells in reading order (top rank first) as FEN ranks separated by ``/``."""
    return "/".join(compress_runs(cells[i : i + width], empty) for i in range(0, len(cells), width))


def expand_ranks(text: str, *, size: int, pieces: str, empty: str = "-") -> str:
    """The cells of FEN ranks (top rank first) in reading order, digit runs as ``empty``.

    Refuses a wrong number of ranks, two digits in a row, characters outside
    ``pieces`` and ranks that are not exactly ``size`` cells wide.
    """
    ranks = text.split("/")
    if len(ranks) != size:
        raise InvalidPosition(f"expected {size} ranks separated by '/', got {len(ranks)}")
    cells: list[str] = []
    for r, rank in enumerate(ranks):
        number, row, previous_digit = size - r, "", False
        for char in rank:
            if char in "123456789":
                if previous_digit:
                    raise InvalidPosition(f"rank {number} has two digits in a row: {rank!r}")
                previous_digit = True
                row += empty * int(char)
                continue
            previous_digit = False
            if char not in pieces:
                raise InvalidPosition(
                    f"unexpected character {char!r} in rank {number}: use {', '.join(pieces)} or 1-9"
                )
            if len(row) >= size:
                raise InvalidPosition(f"rank {number} ({rank!r}) describes more than {size} cells")
            row += char
        if len(row) != size:
            raise InvalidPosition(f"rank {number} ({rank!r}) does not describe exactly {size} cells")
        cells.append(row)
    return "".join(cells)
