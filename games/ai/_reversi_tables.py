"""Reversi's board tables, shared by the Python search (reversi.py) and its compiled core (_reversi_fast.py).

Plain Python, computed once at import: square weights, corner zones, neighbours,
quadrants. Both searches read them from here, so neither imports the other to get them.
"""

from __future__ import annotations

from games.engines.reversi import FULL, SQUARE_NAMES

# Board regions


def _mask(*names: str) -> int:
    result = 0
    for name in names:
        result |= 1 << SQUARE_NAMES.index(name)
    return result


CORNERS = _mask("a1", "h1", "a8", "h8")
# Per corner: (corner, X-square, C-squares). Both are bad to own while the corner is empty.
_CORNER_ZONES = (
    (_mask("a1"), _mask("b2"), _mask("b1", "a2")),
    (_mask("h1"), _mask("g2"), _mask("g1", "h2")),
    (_mask("a8"), _mask("b7"), _mask("a7", "b8")),
    (_mask("h8"), _mask("g7"), _mask("h7", "g8")),
)


def _corner_index(empty_corners: int) -> int:
    """0..15 from the four corner bits (a1 bit 0, h1 bit 7, a8 bit 56, h8 bit 63)."""
    return (
        (empty_corners & 1) | (empty_corners >> 6 & 2) | (empty_corners >> 54 & 4) | (empty_corners >> 60 & 8)
    )


def _zone_tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    x_table, c_table = [], []
    for index in range(16):
        x_mask = c_mask = 0
        for i, (_corner, x_sq, c_sq) in enumerate(_CORNER_ZONES):
            if index >> i & 1:
                x_mask |= x_sq
                c_mask |= c_sq
        x_table.append(x_mask)
        c_table.append(c_mask)
    return tuple(x_table), tuple(c_table)


# Squares that hurt their owner, by which corners are still empty.
_X_BY_EMPTY_CORNERS, _C_BY_EMPTY_CORNERS = _zone_tables()

# The classic square-value table (corners good, squares next to them bad).
_SQUARE_WEIGHTS_ROWS = (
    (100, -20, 10, 5, 5, 10, -20, 100),
    (-20, -50, -2, -2, -2, -2, -50, -20),
    (10, -2, 1, 1, 1, 1, -2, 10),
    (5, -2, 1, 0, 0, 1, -2, 5),
    (5, -2, 1, 0, 0, 1, -2, 5),
    (10, -2, 1, 1, 1, 1, -2, 10),
    (-20, -50, -2, -2, -2, -2, -50, -20),
    (100, -20, 10, 5, 5, 10, -20, 100),
)
SQUARE_WEIGHTS: tuple[int, ...] = tuple(w for row in _SQUARE_WEIGHTS_ROWS for w in row)
# The same table as a few (weight, squares) classes, best first, for cheap
# evaluation and static move ordering.
_WEIGHTED_CLASSES: tuple[tuple[int, int], ...] = tuple(
    (w, sum(1 << sq for sq in range(64) if SQUARE_WEIGHTS[sq] == w))
    for w in sorted(set(SQUARE_WEIGHTS), reverse=True)
    if w
)
_WEIGHT_CLASSES: tuple[int, ...] = tuple(squares for _, squares in _WEIGHTED_CLASSES) + (
    sum(1 << sq for sq in range(64) if SQUARE_WEIGHTS[sq] == 0),
)

COL_A = 0x0101010101010101


def _neighbours(mask: int) -> int:
    """Squares 8-adjacent to ``mask``."""
    horizontal = ((mask << 1) & 0xFEFEFEFEFEFEFEFE) | ((mask >> 1) & 0x7F7F7F7F7F7F7F7F)
    row = mask | horizontal
    return (horizontal | (row << 8) | (row >> 8)) & FULL


def _column_byte(mask: int, col: int) -> int:
    """The 8 squares of a column as a byte, row 1 in bit 0."""
    col_bits = (mask >> col) & COL_A
    # Multiplying gathers bit 8k into bit 56+k (no carries: the bits are 8 apart).
    return ((col_bits * 0x0102040810204080) & FULL) >> 56


def _reverse_byte_table() -> tuple[int, ...]:
    return tuple(int(f"{b:08b}"[::-1], 2) for b in range(256))


_REVERSED = _reverse_byte_table()


# Quadrant of every square (Edax's parity ordering plays first into regions with
# an odd number of empty squares, where the last move of the region is ours).
_QUADRANT_MASKS = tuple(
    sum(1 << sq for sq in range(64) if (sq % 8 >= 4) + 2 * (sq // 8 >= 4) == q) for q in range(4)
)
_QUADRANT_OF = tuple(next(q for q in _QUADRANT_MASKS if q >> sq & 1) for sq in range(64))
_NEIGHBOURS = tuple(_neighbours(1 << sq) for sq in range(64))
