"""Reversi's evaluations, from the side to move's point of view, and the compiled core that has them too.

``evaluate_learned`` is Hard's (pattern tables and mobility per game phase, in 1/32 of a disc),
``evaluate_hard`` the hand-written one it had before (the post-game analysis reads positions
with it), ``evaluate_medium`` Medium's square table and mobility. ``final_score`` is a finished
game's disc difference; ``WIN`` puts a finished game's search score beyond any evaluation.
Board regions, square weights and the learned weights' loader live in
``games/ai/_reversi_tables.py``; the searches that use these evaluations in
``games.ai.reversi_endgame`` and ``games.ai.reversi_search``; the player in ``games.ai.reversi``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.ai._cores import load_core
from games.ai._reversi_tables import (
    _C_BY_EMPTY_CORNERS,
    _REVERSED,
    _WEIGHTED_CLASSES,
    _X_BY_EMPTY_CORNERS,
    BIAS,
    CORNERS,
    EVAL_LIMIT,
    MOBILITY_CAP,
    MOBILITY_OPP,
    MOBILITY_OWN,
    PATTERN_INSTANCES,
    _column_byte,
    _corner_index,
    _neighbours,
    pattern_weights,
)
from games.engines.reversi import FULL, legal_mask


def compiled_core() -> Any:
    """The numba core (``games.ai._reversi_fast``), or None when numba is unavailable or turned off."""
    return load_core("_reversi_fast")


def _anchored(edge: int) -> int:
    """How many discs of an 8-square edge hang on to either of its corners."""
    low = ((edge ^ (edge + 1)) >> 1) & edge
    if low == 0xFF:
        return 8
    rev = _REVERSED[edge]
    high = ((rev ^ (rev + 1)) >> 1) & rev
    return low.bit_count() + high.bit_count()


def _edge_anchors(own: int) -> int:
    """Own discs on an edge joined to an own corner by own discs: they cannot be flipped along it."""
    if not own & CORNERS:
        return 0
    return (
        _anchored(own & 0xFF)
        + _anchored(own >> 56)
        + _anchored(_column_byte(own, 0))
        + _anchored(_column_byte(own, 7))
    )


WIN = 10_000  # a won game scores WIN + disc difference, beyond any evaluation


def final_score(own: int, opp: int) -> int:
    """Disc difference of a finished game; empty squares go to the winner."""
    diff = own.bit_count() - opp.bit_count()
    empties = 64 - (own | opp).bit_count()
    if diff > 0:
        return diff + empties
    if diff < 0:
        return diff - empties
    return 0


def terminal_value(own: int, opp: int) -> int:
    """A finished game's search score: ``WIN`` plus the disc difference for a win, minus for a loss."""
    score = final_score(own, opp)
    if score > 0:
        return WIN + score
    if score < 0:
        return -WIN + score
    return 0


def evaluate_hard(own: int, opp: int) -> int:
    """The hand-written evaluation Hard had before ``evaluate_learned``, in rough hundredths of a game.

    Kept under its old name for the post-game analysis, which is calibrated on its scale.
    """
    empty = ~(own | opp) & FULL
    n_empty = empty.bit_count()
    own_moves = legal_mask(own, opp).bit_count()
    opp_moves = legal_mask(opp, own).bit_count()
    # Mobility as a ratio, so it matters as much with few moves as with many.
    score = (60 * (own_moves - opp_moves)) // (own_moves + opp_moves + 2)
    score += 30 * ((own & CORNERS).bit_count() - (opp & CORNERS).bit_count())
    index = _corner_index(empty & CORNERS)
    x_sq = _X_BY_EMPTY_CORNERS[index]
    c_sq = _C_BY_EMPTY_CORNERS[index]
    score -= 15 * ((own & x_sq).bit_count() - (opp & x_sq).bit_count())
    score -= 5 * ((own & c_sq).bit_count() - (opp & c_sq).bit_count())
    # Potential mobility: discs next to empty squares give the opponent moves.
    frontier = _neighbours(empty)
    score -= 2 * ((own & frontier).bit_count() - (opp & frontier).bit_count())
    score += 6 * (_edge_anchors(own) - _edge_anchors(opp))
    if n_empty <= 16:
        # Late in the game the discs themselves start to count.
        score += (16 - n_empty) * (own.bit_count() - opp.bit_count()) // 4
    return score


def evaluate_learned(own: int, opp: int) -> int:
    """Hard's learned evaluation: the final disc difference it expects, in 1/32 of a disc.

    The sum of the weights of the 46 pattern instances' configurations and of both sides'
    mobility, for the game's phase (games/ai/_reversi_tables.py has the layout, the weights
    file's format and the loader; bench/train_reversi_eval.py fits the weights).
    """
    table = pattern_weights().by_empties[64 - (own | opp).bit_count()]
    state = [0] * 64  # per square: 0 empty, 1 own, 2 opponent (the patterns' base-3 digits)
    bits = own
    while bits:
        low = bits & -bits
        state[low.bit_length() - 1] = 1
        bits ^= low
    bits = opp
    while bits:
        low = bits & -bits
        state[low.bit_length() - 1] = 2
        bits ^= low
    score: int = table[BIAS]
    for offset, squares in PATTERN_INSTANCES:
        index = 0
        for sq in squares:
            index = index * 3 + state[sq]
        score += table[offset + index]
    score += table[MOBILITY_OWN + min(legal_mask(own, opp).bit_count(), MOBILITY_CAP)]
    score += table[MOBILITY_OPP + min(legal_mask(opp, own).bit_count(), MOBILITY_CAP)]
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, score))


def evaluate_medium(own: int, opp: int) -> int:
    """Square table plus plain mobility: sound, but blind to finer structure."""
    score = 0
    for weight, squares in _WEIGHTED_CLASSES:
        score += weight * ((own & squares).bit_count() - (opp & squares).bit_count())
    score += 5 * (legal_mask(own, opp).bit_count() - legal_mask(opp, own).bit_count())
    return score


Evaluation = Callable[[int, int], int]  # (own discs, opponent discs) -> score for ``own``


# Evaluations the compiled core has too (by its ``kind`` number): ``reversi_search.Search`` runs
# these compiled, and the player's ``warm_up`` loads each of them.
COMPILED_EVALUATIONS: dict[Evaluation, int] = {evaluate_medium: 0, evaluate_hard: 1, evaluate_learned: 2}
