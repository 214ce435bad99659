"""Compiled Reversi, the evaluations: the final score, Medium's square classes, Hard's
hand-written terms and its learned patterns (``evaluate_pattern``), and ``evaluate`` to pick one.

Part of the compiled Reversi core: ``games.ai._reversi_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.ai import _reversi_tables as _tables
from games.ai._bits import ONE, U, popcount
from games.ai._reversi_fast_moves import COL_A, COLUMN_MAGIC, CORNERS, WIN, legal, neighbours


def _eval_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from games.ai import _reversi_tables as py

    x_table = np.array(py._X_BY_EMPTY_CORNERS, dtype=np.uint64)
    c_table = np.array(py._C_BY_EMPTY_CORNERS, dtype=np.uint64)
    reversed_bytes = np.array(py._REVERSED, dtype=np.int64)
    class_weights = np.array([w for w, _ in py._WEIGHTED_CLASSES], dtype=np.int64)
    class_masks = np.array([m for _, m in py._WEIGHTED_CLASSES], dtype=np.uint64)
    return x_table, c_table, reversed_bytes, class_weights, class_masks


X_BY_EMPTY_CORNERS, C_BY_EMPTY_CORNERS, REVERSED, CLASS_WEIGHTS, CLASS_MASKS = _eval_tables()


def _pattern_layout() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The learned evaluation's 46 pattern instances: table offsets, sizes, squares (padded)."""
    from games.ai import _reversi_tables as py

    instances = py.PATTERN_INSTANCES
    offsets = np.array([offset for offset, _ in instances], dtype=np.int64)
    sizes = np.array([len(squares) for _, squares in instances], dtype=np.int64)
    squares = np.zeros((len(instances), max(sizes)), dtype=np.int64)
    for i, (_, instance) in enumerate(instances):
        squares[i, : len(instance)] = instance
    return offsets, sizes, squares


# The pattern layout is code, frozen into the compiled functions like the tables above; numba's
# cache is keyed on this file only (the default cache directory on every core source, but not a
# NUMBA_CACHE_DIR set by hand), so a change to the layout in _reversi_tables.py must come with a
# change here (the version in the weights file's name, say). The weights are data and reach the
# compiled code as an argument.
PATTERN_OFFSETS, PATTERN_SIZES, PATTERN_SQUARES = _pattern_layout()
MOBILITY_OWN = _tables.MOBILITY_OWN
MOBILITY_OPP = _tables.MOBILITY_OPP
MOBILITY_CAP = _tables.MOBILITY_CAP
PATTERN_BIAS = _tables.BIAS
EVAL_LIMIT = _tables.EVAL_LIMIT


# ---------------------------------------------------------------------------
# Evaluations


@njit(cache=True)
def final_score(own: np.uint64, opp: np.uint64) -> int:
    diff = popcount(own) - popcount(opp)
    empties = 64 - popcount(own | opp)
    if diff > 0:
        return diff + empties
    if diff < 0:
        return diff - empties
    return 0


@njit(cache=True)
def terminal_value(own: np.uint64, opp: np.uint64) -> int:
    score = final_score(own, opp)
    if score > 0:
        return WIN + score
    if score < 0:
        return -WIN + score
    return 0


@njit(cache=True)
def _anchored(edge: int | np.int64) -> int:
    low = ((edge ^ (edge + 1)) >> 1) & edge
    if low == 0xFF:
        return 8
    rev = REVERSED[edge]
    high = ((rev ^ (rev + 1)) >> 1) & rev
    return popcount(U(low)) + popcount(U(high))


@njit(cache=True)
def _column_byte(mask: np.uint64, col: int) -> np.int64:
    return np.int64(((mask >> U(col)) & COL_A) * COLUMN_MAGIC >> U(56))


@njit(cache=True)
def _edge_anchors(own: np.uint64) -> int:
    if not own & CORNERS:
        return 0
    return (
        _anchored(np.int64(own & U(0xFF)))
        + _anchored(np.int64(own >> U(56)))
        + _anchored(_column_byte(own, 0))
        + _anchored(_column_byte(own, 7))
    )


@njit(cache=True)
def evaluate_hard(own: np.uint64, opp: np.uint64) -> int:
    """The same function as ``games.ai.reversi_eval.evaluate_hard``."""
    empty = ~(own | opp)
    n_empty = popcount(empty)
    own_moves = popcount(legal(own, opp))
    opp_moves = popcount(legal(opp, own))
    score = (60 * (own_moves - opp_moves)) // (own_moves + opp_moves + 2)
    score += 30 * (popcount(own & CORNERS) - popcount(opp & CORNERS))
    corners = empty & CORNERS
    index = np.int64(
        (corners & ONE) | (corners >> U(6) & U(2)) | (corners >> U(54) & U(4)) | (corners >> U(60) & U(8))
    )
    x_sq = X_BY_EMPTY_CORNERS[index]
    c_sq = C_BY_EMPTY_CORNERS[index]
    score -= 15 * (popcount(own & x_sq) - popcount(opp & x_sq))
    score -= 5 * (popcount(own & c_sq) - popcount(opp & c_sq))
    frontier = neighbours(empty)
    score -= 2 * (popcount(own & frontier) - popcount(opp & frontier))
    score += 6 * (_edge_anchors(own) - _edge_anchors(opp))
    if n_empty <= 16:
        score += (16 - n_empty) * (popcount(own) - popcount(opp)) // 4
    return score


@njit(cache=True)
def evaluate_medium(own: np.uint64, opp: np.uint64) -> int:
    """The same function as ``games.ai.reversi_eval.evaluate_medium``."""
    score = 0
    for i in range(CLASS_WEIGHTS.shape[0]):
        squares = CLASS_MASKS[i]
        score += CLASS_WEIGHTS[i] * (popcount(own & squares) - popcount(opp & squares))
    score += 5 * (popcount(legal(own, opp)) - popcount(legal(opp, own)))
    return score


@njit(cache=True)
def evaluate_pattern(own: np.uint64, opp: np.uint64, weights: np.ndarray) -> int:
    """The same function as ``games.ai.reversi_eval.evaluate_learned``, on ``weights`` (phases x table slots).

    The weights come in as an argument, not as a global: numba would freeze a global array into
    the cached machine code, which then would not see a new weights file.
    """
    n_empty = popcount(~(own | opp))
    n_phases = weights.shape[0]
    phase = min(max((60 - n_empty) * n_phases // 60, 0), n_phases - 1)
    score = np.int64(weights[phase, PATTERN_BIAS])
    for i in range(PATTERN_SQUARES.shape[0]):
        index = np.int64(0)
        for j in range(PATTERN_SIZES[i]):
            sq = U(PATTERN_SQUARES[i, j])
            index = index * 3 + np.int64((own >> sq) & ONE) + 2 * np.int64((opp >> sq) & ONE)
        score += weights[phase, PATTERN_OFFSETS[i] + index]
    score += weights[phase, MOBILITY_OWN + min(popcount(legal(own, opp)), MOBILITY_CAP)]
    score += weights[phase, MOBILITY_OPP + min(popcount(legal(opp, own)), MOBILITY_CAP)]
    return int(max(-EVAL_LIMIT, min(EVAL_LIMIT, score)))


@njit(cache=True)
def evaluate(kind: int, own: np.uint64, opp: np.uint64, weights: np.ndarray) -> int:
    if kind == 0:
        return evaluate_medium(own, opp)
    if kind == 1:
        return evaluate_hard(own, opp)
    return evaluate_pattern(own, opp, weights)
