"""Quantum tic-tac-toe's static evaluation, for the computer player's search and the analysis.

``evaluate(state, side)`` scores a quiet position (no collapse pending) by its open lines:
classical marks, spooky marks that may settle in them, and threats (two classical marks plus a
spooky mark in the third square). It is a sum over marks: ``eval_tables`` gives, per pattern of
classical marks, the classical part and what one spooky mark is worth in each square, which the
search's last ply reads directly (``games.ai.quantum_ttt_search``).
"""

from __future__ import annotations

from typing import NamedTuple

from games.engines.quantum_ttt import LINES, QState

# Square weights = number of lines through a square (centre 4, corners 3, edges 2).
WEIGHT = (0, 3, 2, 3, 2, 4, 2, 3, 2, 3)


class Weights(NamedTuple):
    """Evaluation weights, in points (a win is worth ``quantum_ttt_search.WIN``).

    Picked by self-play at fixed depth; a larger ``threat`` made the shallow
    levels defend better, which narrowed the gap between medium and hard.
    """

    one: int = 8  # an open line holding one classical mark of the side
    two: int = 30  # ... two classical marks
    spooky: int = 2  # a spooky mark in a free square of an open line
    threat: int = 25  # a spooky mark in the last free square of a two-mark line
    square: int = 2  # a classical mark, per line through its square


EVAL = Weights()
_LINE_MASKS = tuple(sum(1 << (sq - 1) for sq in line) for line in LINES)
_tables: dict[tuple[int, ...], tuple[int, list[int], list[int]]] = {}


def eval_tables(classical: tuple[int, ...]) -> tuple[int, list[int], list[int]]:
    """For one pattern of classical marks: the classical part of the score (X minus
    O) and, per side, what one spooky mark of that side is worth in each square
    (index = square number)."""
    cached = _tables.get(classical)
    if cached is not None:
        return cached
    w = EVAL
    own = [0, 0]  # classical squares per side, as bitmasks
    for i, m in enumerate(classical):
        if m:
            own[(m + 1) & 1] |= 1 << i
    base = 0
    per_square = [[0] * 10, [0] * 10]
    for line in _LINE_MASKS:
        for side in (0, 1):
            if own[1 - side] & line:
                continue  # the opponent already holds a square of it: dead for this side
            mine = (own[side] & line).bit_count()
            base += (1 if side == 0 else -1) * (0, w.one, w.two, 0)[mine]
            bonus = w.spooky + (w.threat if mine == 2 else 0)
            for i in range(9):
                if line >> i & 1 and not classical[i]:
                    per_square[side][i + 1] += bonus
    for i, m in enumerate(classical):
        if m:
            base += (w.square if m & 1 else -w.square) * WEIGHT[i + 1]
    if len(_tables) > 50_000:
        _tables.clear()
    entry = (base, per_square[0], per_square[1])
    _tables[classical] = entry
    return entry


def evaluate(state: QState, side: int) -> int:
    """Static score of a quiet position for ``side`` (positive is good).

    Per line still open for a player: classical marks count most, each spooky
    mark of theirs in a square of the line a little (it may settle there), and
    two classical marks with their spooky mark in the third square is a threat.
    Classical marks also count by the number of lines through their square.
    """
    value, per_x, per_o = eval_tables(state.classical)
    for m, a, b in state.spooky:
        if m & 1:
            value += per_x[a] + per_x[b]
        else:
            value -= per_o[a] + per_o[b]
    return value if side == 0 else -value
