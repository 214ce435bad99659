"""Reversi's board tables, shared by the Python search (reversi.py) and its compiled core (_reversi_fast.py).

Plain Python, computed once at import: square weights, corner zones, neighbours,
quadrants. Both searches read them from here, so neither imports the other to get them.
"""

from __future__ import annotations

import functools
import struct
import sys
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path

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


# ---------------------------------------------------------------------------
# The learned evaluation's patterns (Logistello's and Edax's set) and its weights file
#
# A pattern is a fixed list of squares; its configuration is a base-3 number with one digit per
# square (0 empty, 1 the side to move's disc, 2 the opponent's), the first square the most
# significant digit. Every family is placed on the board once per distinct image under the
# board's 8 symmetries, the squares in corresponding order, so all its instances read one table
# of weights. A family that some symmetry maps onto itself (a row onto itself reversed, a corner
# square onto itself transposed) gives two configurations the same weight: the weights file
# stores only one weight per such class, the lowest index (its "canonical" configuration), and
# the tables are expanded when loaded. The evaluation adds, for the phase of the game (by empty
# squares), the weights of the 46 pattern instances, of the side to move's and the opponent's
# number of legal moves (capped at MOBILITY_CAP) and a constant.


def _symmetries() -> tuple[Callable[[int, int], tuple[int, int]], ...]:
    return (
        lambda c, r: (c, r),
        lambda c, r: (7 - c, r),
        lambda c, r: (c, 7 - r),
        lambda c, r: (7 - c, 7 - r),
        lambda c, r: (r, c),
        lambda c, r: (7 - r, c),
        lambda c, r: (r, 7 - c),
        lambda c, r: (7 - r, 7 - c),
    )


# (name, squares as (column, row) with a1 = (0, 0)), drawn at the a1 corner or the first row.
_PATTERN_BASES: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("corner3x3", tuple((c, r) for r in range(3) for c in range(3))),
    ("corner2x5", tuple((c, r) for r in range(2) for c in range(5))),
    ("edge2x", tuple((c, 0) for c in range(8)) + ((1, 1), (6, 1))),
    ("row2", tuple((c, 1) for c in range(8))),
    ("row3", tuple((c, 2) for c in range(8))),
    ("row4", tuple((c, 3) for c in range(8))),
    ("diag8", tuple((i, i) for i in range(8))),
    ("diag7", tuple((i + 1, i) for i in range(7))),
    ("diag6", tuple((i + 2, i) for i in range(6))),
    ("diag5", tuple((i + 3, i) for i in range(5))),
    ("diag4", tuple((i + 4, i) for i in range(4))),
)


class PatternFamily:
    """One pattern and its places on the board: ``instances`` (square tuples), ``perms`` (digit
    permutations that map a configuration to an equivalent one, the identity first)."""

    def __init__(self, name: str, base: tuple[tuple[int, int], ...]) -> None:
        self.name = name
        self.size = len(base)
        instances: list[tuple[int, ...]] = []
        seen: set[frozenset[int]] = set()
        perms: set[tuple[int, ...]] = set()
        base_squares = tuple(r * 8 + c for c, r in base)
        for symmetry in _symmetries():
            squares = tuple(r * 8 + c for c, r in (symmetry(c, r) for c, r in base))
            if frozenset(squares) == frozenset(base_squares):
                # Digit j of the image reads the base's square squares[j].
                perms.add(tuple(base_squares.index(sq) for sq in squares))
            if frozenset(squares) not in seen:
                seen.add(frozenset(squares))
                instances.append(squares)
        self.instances = tuple(instances)
        identity = tuple(range(self.size))
        self.perms = (identity, *sorted(perms - {identity}))

    def canonical(self) -> list[int]:
        """For every configuration, the lowest index among its equivalents."""
        images = [_permuted_indices(self.size, perm) for perm in self.perms]
        return [min(values) for values in zip(*images, strict=True)] if len(images) > 1 else images[0]


def _permuted_indices(size: int, perm: tuple[int, ...]) -> list[int]:
    """index -> index of the configuration whose digit j is digit perm[j] of index, for every index.

    Built digit by digit in index order (a list comprehension per digit), which is fast enough
    in plain Python to run at import: about 30 ms for all the families.
    """
    # Digit j of the index (most significant first) moves to position p where perm[p] == j.
    where = [perm.index(j) for j in range(size)]
    values = [0]
    for j in range(size):
        step = 3 ** (size - 1 - where[j])
        values = [v + d for v in values for d in (0, step, 2 * step)]
    return values


PATTERN_FAMILIES: tuple[PatternFamily, ...] = tuple(
    PatternFamily(name, base) for name, base in _PATTERN_BASES
)
MOBILITY_CAP = 31  # legal-move counts from here up share one weight (more than 31 moves is rare)
# Layout of one phase's expanded table: every family's 3**size configurations, then the side to
# move's mobility (0..MOBILITY_CAP), the opponent's, and the constant.
FAMILY_OFFSETS: tuple[int, ...] = tuple(
    sum(3**f.size for f in PATTERN_FAMILIES[:i]) for i in range(len(PATTERN_FAMILIES))
)
MOBILITY_OWN = sum(3**f.size for f in PATTERN_FAMILIES)
MOBILITY_OPP = MOBILITY_OWN + MOBILITY_CAP + 1
BIAS = MOBILITY_OPP + MOBILITY_CAP + 1
TABLE_SIZE = BIAS + 1
# Every instance as (offset of its family's table, its squares), for the evaluations.
PATTERN_INSTANCES: tuple[tuple[int, tuple[int, ...]], ...] = tuple(
    (FAMILY_OFFSETS[i], squares) for i, family in enumerate(PATTERN_FAMILIES) for squares in family.instances
)


def phase_of(n_empty: int, n_phases: int) -> int:
    """The weight set for a position with ``n_empty`` empty squares (phase 0 at the start)."""
    return min(max((60 - n_empty) * n_phases // 60, 0), n_phases - 1)


def compact_layout() -> tuple[list[int], int]:
    """Map from the expanded table's slots to the stored weights' slots, and how many are stored.

    Each family stores one weight per canonical configuration (in index order); mobility and
    the constant are stored as they are.
    """
    slot_of: list[int] = []
    stored = 0
    for family in PATTERN_FAMILIES:
        canonical = family.canonical()
        rank: dict[int, int] = {}
        for value in canonical:
            if value not in rank:
                rank[value] = stored + len(rank)
        slot_of.extend(rank[value] for value in canonical)
        stored += len(rank)
    extra = TABLE_SIZE - len(slot_of)
    slot_of.extend(range(stored, stored + extra))
    return slot_of, stored + extra


def layout_signature() -> int:
    """CRC of the pattern layout: a weights file fitted for other patterns is refused."""
    text = repr(([(f.name, f.instances, f.perms) for f in PATTERN_FAMILIES], MOBILITY_CAP))
    return zlib.crc32(text.encode())


# The weights file: a header (magic, format version, number of phases, units per disc, layout
# CRC, weights per phase) and then the stored weights, int16 little-endian, zlib-compressed.
WEIGHTS_PATH = Path(__file__).resolve().parent / "data" / "reversi_eval_v1.bin"
_MAGIC = b"RVEV"
WEIGHTS_VERSION = 1
EVAL_SCALE = 32  # weight units per disc: the evaluation is the expected final disc difference x 32
EVAL_LIMIT = 64 * EVAL_SCALE  # no position is worth more than a 64-disc win
_HEADER = struct.Struct("<4sHHHII")


class PatternWeights:
    """Expanded weight tables, one per phase (int16 arrays: 0.3 MB a phase, where lists of
    Python ints would take ten times that; indexing them is as fast)."""

    def __init__(self, tables: list[array[int]]) -> None:
        self.n_phases = len(tables)
        self.tables = tables
        # The table for each number of empty squares (0..60), so an evaluation finds it in one step.
        self.by_empties: tuple[array[int], ...] = tuple(tables[phase_of(n, self.n_phases)] for n in range(61))


def write_weights(path: Path, stored: list[list[int]], scale: int = EVAL_SCALE) -> None:
    """Write the stored (compact) weights of every phase; used by bench/train_reversi_eval.py."""
    _, n_stored = compact_layout()
    if any(len(phase) != n_stored for phase in stored):
        raise ValueError(f"every phase needs {n_stored} weights")
    flat = array("h", (w for phase in stored for w in phase))
    if sys.byteorder != "little":
        flat.byteswap()
    header = _HEADER.pack(_MAGIC, WEIGHTS_VERSION, len(stored), scale, layout_signature(), n_stored)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + zlib.compress(flat.tobytes(), 9))


def read_weights(path: Path = WEIGHTS_PATH) -> PatternWeights:
    """Read and expand a weights file; ValueError when it is not one this code can use."""
    data = path.read_bytes()
    if len(data) < _HEADER.size:
        raise ValueError(f"{path}: too short for a weights file")
    magic, version, n_phases, scale, signature, n_stored = _HEADER.unpack_from(data)
    if magic != _MAGIC or version != WEIGHTS_VERSION:
        raise ValueError(f"{path}: not a version {WEIGHTS_VERSION} Reversi weights file")
    slot_of, expected = compact_layout()
    if signature != layout_signature() or n_stored != expected or not 1 <= n_phases <= 60:
        raise ValueError(f"{path}: fitted for another pattern layout")
    if scale != EVAL_SCALE:
        raise ValueError(f"{path}: weights in 1/{scale} of a disc, this code reads 1/{EVAL_SCALE}")
    flat = array("h")
    flat.frombytes(zlib.decompress(data[_HEADER.size :]))
    if sys.byteorder != "little":
        flat.byteswap()
    if len(flat) != n_phases * n_stored:
        raise ValueError(f"{path}: {len(flat)} weights, expected {n_phases * n_stored}")
    tables: list[array[int]] = []
    for phase in range(n_phases):
        stored: list[int] = flat[phase * n_stored : (phase + 1) * n_stored].tolist()
        tables.append(array("h", [stored[slot] for slot in slot_of]))
    return PatternWeights(tables)


@functools.cache
def pattern_weights() -> PatternWeights:
    """The committed weights, read once per process (about 0.1 s)."""
    return read_weights()
