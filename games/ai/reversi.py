"""Computer player for Reversi: alpha-beta on bitboards plus an exact endgame solver.

Levels:

* ``easy``: one ply. Each move is scored by a square table plus the discs it
  flips plus noise; now and then a random move, and a corner only some of the
  time. It plays like a beginner who likes corners and big captures.
* ``medium``: iterative-deepening alpha-beta up to 4 plies with a square-table
  and mobility evaluation; exact endgame from 8 empty squares.
* ``hard``: iterative-deepening negamax (principal variation search) with a
  transposition table and move ordering, on a learned evaluation
  (``evaluate_learned``): pattern tables (edges with their X-squares, corner
  squares and rectangles, rows, columns and diagonals) and mobility, per game
  phase, fitted by least squares to self-play positions labelled by the exact
  endgame solver (``bench/train_reversi_eval.py``; the weights are
  ``games/ai/data/reversi_eval_v1.bin``). From 18 empty squares it tries to
  prove a win or draw with the endgame solver (null window around 0), from 14
  it solves for the exact score; when the solver runs out of time the midgame
  choice stands. ``evaluate_hard`` is the hand-written evaluation it had
  before (mobility, frontier, corners, X- and C-squares, anchored edges): the
  post-game analysis (``games.ai.analysis``) still reads positions with it
  (its winning-chances curve is calibrated on its scale), and
  ``bench/reversi_eval_versus.py`` plays it (level ``hard_classic``) against
  today's Hard.

With numba installed every search here runs on the compiled core
``games.ai._reversi_fast`` (same algorithms, about a hundred times the nodes
per second; this module's code is the fallback and the reference), and Hard
then proves a win or draw from 20 empty squares and solves exactly from 18,
in a quarter of the pure-Python budget.

Hard opens from a book of the named Othello openings (``games.ai.reversi_book``,
the data in ``games/ai/data/reversi_openings.txt``): while the position is one
of the book's, in any of the four orientations that keep the start position, it
plays one of the book's moves there, picked with the seeded ``rng``, without
searching. Easy and Medium never look at the book.

Both searching levels vary their first few moves out of book: they pick at
random (from the seeded ``rng``) among moves scored within a small margin of the
best, so games against them do not all repeat.

Every search checks the clock at its nodes and gives up cleanly at the
deadline, keeping the best move of the last completed iteration.

``solve_endgame(own, opp)`` is the exact solver on its own (used by the bench
``bench/reversi_endgame.py``): the final disc difference with best play, from
the point of view of the side to move, with the empty squares of a game that
ends early going to the winner (the usual Othello convention, as in the FFO
test positions).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from games.ai import reversi_book
from games.ai._cores import load_core
from games.ai._reversi_tables import (
    _C_BY_EMPTY_CORNERS,
    _NEIGHBOURS,
    _QUADRANT_MASKS,
    _QUADRANT_OF,
    _REVERSED,
    _WEIGHT_CLASSES,
    _WEIGHTED_CLASSES,
    _X_BY_EMPTY_CORNERS,
    BIAS,
    CORNERS,
    EVAL_LIMIT,
    MOBILITY_CAP,
    MOBILITY_OPP,
    MOBILITY_OWN,
    PATTERN_INSTANCES,
    SQUARE_WEIGHTS,
    _column_byte,
    _corner_index,
    _neighbours,
    pattern_weights,
)
from games.engines.base import IllegalMove
from games.engines.reversi import FULL, SQUARE_NAMES, ReversiEngine, flips, legal_mask


def compiled_core() -> Any:
    """The numba core (``games.ai._reversi_fast``), or None when numba is unavailable or turned off."""
    return load_core("_reversi_fast")


# Board regions, square weights, neighbours and quadrants live in games/ai/_reversi_tables.py.


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


# ---------------------------------------------------------------------------
# Evaluations (from the side to move's point of view)

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


def _terminal_value(own: int, opp: int) -> int:
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


# ---------------------------------------------------------------------------
# Exact endgame solver


class _Timeout(Exception):
    """Raised inside a search when its deadline has passed."""


# Below this many empty squares the solver stops ordering moves by mobility and
# keeping a transposition table: the bookkeeping would cost more than it saves.
_SHALLOW = 6
_TIME_CHECK = 63  # look at the clock every 64 nodes


def _apply_bounds(lower: int, upper: int, alpha: int, beta: int) -> tuple[int | None, int, int]:
    """A stored (lower, upper) bound against the window: (a cut-off score or None, narrowed alpha, beta)."""
    if lower >= beta:
        return lower, alpha, beta
    if upper <= alpha:
        return upper, alpha, beta
    return None, max(alpha, lower), min(beta, upper)


def _bounds_of(score: int, alpha: int, beta: int, floor: int, ceiling: int) -> tuple[int, int]:
    """What a search that returned ``score`` for the window (alpha, beta) proves: (lower, upper)."""
    if score <= alpha:
        return floor, score
    if score >= beta:
        return score, ceiling
    return score, score


class EndgameSolver:
    """Exact negamax alpha-beta for the last empty squares.

    Scores are final disc differences for the side to move. Above ``_SHALLOW``
    empties: fastest-first move ordering (fewest replies for the opponent),
    principal-variation search and a transposition table of bounds; below it:
    a loop over the empty squares in quadrant-parity order.
    """

    def __init__(self, deadline: float | None = None, *, compiled: bool | None = None) -> None:
        self.deadline = deadline
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int | None]] = {}
        # The compiled core when there is one (same answers, more cut-offs), unless told otherwise.
        self.core = compiled_core() if compiled is None or compiled else None
        if compiled and self.core is None:
            raise RuntimeError(
                "the compiled core is not available (numba missing or GAMES_AI_PURE_PYTHON set)"
            )

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & _TIME_CHECK and self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Timeout

    def solve(self, own: int, opp: int, alpha: int = -64, beta: int = 64) -> tuple[int, int | None]:
        """(score, best square or None) with ``alpha < score < beta`` exact, else a bound."""
        if self.core is not None:
            deadline = float("inf") if self.deadline is None else self.deadline
            score, sq, nodes, timed_out = self.core.solve(own, opp, alpha, beta, deadline)
            self.nodes += nodes
            if timed_out:
                raise _Timeout
            return score, (sq if sq >= 0 else None)
        n_empty = 64 - (own | opp).bit_count()
        moves = legal_mask(own, opp)
        if not moves:
            if not legal_mask(opp, own):
                return final_score(own, opp), None
            score, _ = self.solve(opp, own, -beta, -alpha)
            return -score, None
        return self._principal_variation(self._ordered_children(own, opp, moves, None), alpha, beta, n_empty)

    def _principal_variation(
        self, children: list[tuple[int, int, int, int]], alpha: int, beta: int, n_empty: int
    ) -> tuple[int, int | None]:
        """(best score, its square): the first child with the full window, the rest
        with a null window, searched again only when they beat alpha."""
        best_score, best_sq = -65, None
        for _, sq, child_own, child_opp in children:
            if best_sq is None:
                score = -self._search(child_opp, child_own, -beta, -alpha, n_empty - 1)
            else:
                score = -self._search(child_opp, child_own, -alpha - 1, -alpha, n_empty - 1)
                if alpha < score < beta:
                    score = -self._search(child_opp, child_own, -beta, -score, n_empty - 1)
            if score > best_score:
                best_score, best_sq = score, sq
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best_score, best_sq

    def _ordered_children(
        self, own: int, opp: int, moves: int, first: int | None
    ) -> list[tuple[int, int, int, int]]:
        """Children (order key, square, own after, opp after), fastest-first."""
        children = []
        while moves:
            bit = moves & -moves
            moves ^= bit
            sq = bit.bit_length() - 1
            flipped = flips(own, opp, sq)
            new_own = own | flipped | bit
            new_opp = opp ^ flipped
            if sq == first:
                key = -1000
            else:
                # Fastest first: few replies for the opponent, above all no corner
                # for them, few of our discs next to empty squares, then the
                # square's own value.
                replies = legal_mask(new_opp, new_own)
                empty = ~(new_own | new_opp) & FULL
                key = (
                    16 * replies.bit_count()
                    + 16 * (replies & CORNERS).bit_count()
                    + (new_own & _neighbours(empty)).bit_count()
                    - SQUARE_WEIGHTS[sq] // 10
                )
            children.append((key, sq, new_own, new_opp))
        children.sort()
        return children

    def _search(self, own: int, opp: int, alpha: int, beta: int, n_empty: int) -> int:
        if n_empty <= _SHALLOW:
            return self._enter_shallow(own, opp, alpha, beta, n_empty)
        self._tick()
        moves = legal_mask(own, opp)
        if not moves:
            if not legal_mask(opp, own):
                return final_score(own, opp)
            return -self._search(opp, own, -beta, -alpha, n_empty)
        key = own << 64 | opp
        entry = self.table.get(key)
        first = None
        if entry is not None:
            lower, upper, first = entry
            cut, alpha, beta = _apply_bounds(lower, upper, alpha, beta)
            if cut is not None:
                return cut
        original_alpha = alpha
        children = self._ordered_children(own, opp, moves, first)
        best_score, best_sq = self._principal_variation(children, alpha, beta, n_empty)
        self.table[key] = (*_bounds_of(best_score, original_alpha, beta, -64, 64), best_sq)
        return best_score

    def _enter_shallow(self, own: int, opp: int, alpha: int, beta: int, n_empty: int) -> int:
        empty = ~(own | opp) & FULL
        odd = 0
        for quadrant in _QUADRANT_MASKS:
            if (empty & quadrant).bit_count() & 1:
                odd |= quadrant
        return self._shallow(own, opp, alpha, beta, n_empty, odd, passed=False)

    def _shallow(
        self, own: int, opp: int, alpha: int, beta: int, n_empty: int, odd: int, *, passed: bool
    ) -> int:
        """Few empties: try the empty squares directly, odd quadrants first.

        ``odd`` is the union of the quadrants holding an odd number of empty
        squares; playing a square toggles its quadrant.
        """
        self.nodes += 1
        if not self.nodes & _TIME_CHECK and self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Timeout
        empty = ~(own | opp) & FULL
        if n_empty == 2:
            return self._two(own, opp, alpha, beta, empty)
        best_score = -65
        for group in (empty & odd, empty & ~odd):
            while group:
                bit = group & -group
                group ^= bit
                sq = bit.bit_length() - 1
                if not _NEIGHBOURS[sq] & opp:
                    continue
                flipped = flips(own, opp, sq)
                if not flipped:
                    continue
                score = -self._shallow(
                    opp ^ flipped,
                    own | flipped | bit,
                    -beta,
                    -alpha,
                    n_empty - 1,
                    odd ^ _QUADRANT_OF[sq],
                    passed=False,
                )
                if score > best_score:
                    best_score = score
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            return best_score
        if best_score > -65:
            return best_score
        if passed:  # neither side can move: the game is over
            return -final_score(opp, own)
        return -self._shallow(opp, own, -beta, -alpha, n_empty, odd, passed=True)

    def _two(self, own: int, opp: int, alpha: int, beta: int, empty: int) -> int:
        """Exact score with two empty squares left."""
        bit_a = empty & -empty
        bit_b = empty ^ bit_a
        sq_a = bit_a.bit_length() - 1
        sq_b = bit_b.bit_length() - 1
        best_score = -65
        if _NEIGHBOURS[sq_a] & opp:
            flipped = flips(own, opp, sq_a)
            if flipped:
                best_score = -_last_move(opp ^ flipped, own | flipped | bit_a, sq_b)
                if best_score >= beta:
                    return best_score
        if _NEIGHBOURS[sq_b] & opp:
            flipped = flips(own, opp, sq_b)
            if flipped:
                score = -_last_move(opp ^ flipped, own | flipped | bit_b, sq_a)
                if score > best_score:
                    best_score = score
        if best_score > -65:
            return best_score
        # We must pass; the opponent plays one of the two squares, if it can.
        if _NEIGHBOURS[sq_a] & own:
            flipped = flips(opp, own, sq_a)
            if flipped:
                best_score = -_last_move(own ^ flipped, opp | flipped | bit_a, sq_b)
                if best_score >= -alpha:
                    return -best_score
        if _NEIGHBOURS[sq_b] & own:
            flipped = flips(opp, own, sq_b)
            if flipped:
                score = -_last_move(own ^ flipped, opp | flipped | bit_b, sq_a)
                if score > best_score:
                    best_score = score
        if best_score > -65:
            return -best_score
        return final_score(own, opp)


def _last_move(own: int, opp: int, sq: int) -> int:
    """Exact score with one empty square left."""
    discs = own.bit_count()  # opp has 63 - discs
    if _NEIGHBOURS[sq] & opp:
        flipped = flips(own, opp, sq).bit_count()
        if flipped:
            return 2 * (discs + flipped + 1) - 64
    if _NEIGHBOURS[sq] & own:
        flipped = flips(opp, own, sq).bit_count()
        if flipped:
            return 2 * (discs - flipped) - 64
    diff = 2 * discs - 63  # nobody can fill it: it goes to the winner
    return diff + 1 if diff > 0 else diff - 1


def solve_endgame(own: int, opp: int, deadline: float | None = None) -> tuple[int, str | None]:
    """Exact final disc difference for the side to move and a best move.

    ``own``/``opp`` are the bitboards of the side to move and of the other
    side. Returns ``(score, move)``: ``move`` is a square name, ``"pass"`` when
    the side to move must pass, or None when the game is over. Raises
    TimeoutError if ``deadline`` (a ``time.perf_counter()`` value) passes first.
    """
    solver = EndgameSolver(deadline)
    try:
        score, sq = solver.solve(own, opp)
    except _Timeout:
        raise TimeoutError("endgame solver ran out of time") from None
    if sq is not None:
        return score, SQUARE_NAMES[sq]
    return score, ("pass" if legal_mask(opp, own) else None)


# ---------------------------------------------------------------------------
# Midgame search

Evaluation = Callable[[int, int], int]  # (own discs, opponent discs) -> score for ``own``


class _Search:
    """Iterative-deepening principal variation search with a transposition table."""

    def __init__(self, evaluate: Evaluation, deadline: float) -> None:
        self.evaluate = evaluate
        self.deadline = deadline
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int, int]] = {}  # key -> depth, lower, upper, best
        self.partial: list[tuple[int, int]] = []  # root results of the iteration under way
        core = compiled_core()
        kind = _COMPILED_EVALUATIONS.get(evaluate)
        self.fast = core.MidSearch(kind, deadline) if core is not None and kind is not None else None

    def _ordered(self, own: int, opp: int, moves: int, first: int, depth: int) -> list[int]:
        """Moves to try, best-looking first."""
        if depth >= 3:
            keyed = []
            bits = moves
            while bits:
                bit = bits & -bits
                bits ^= bit
                sq = bit.bit_length() - 1
                if sq == first:
                    continue
                flipped = flips(own, opp, sq)
                replies = legal_mask(opp ^ flipped, own | flipped | bit).bit_count()
                keyed.append((8 * replies - SQUARE_WEIGHTS[sq] // 4, sq))
            keyed.sort()
            ordered = [sq for _, sq in keyed]
        else:
            ordered = []
            for weight_class in _WEIGHT_CLASSES:
                bits = moves & weight_class
                while bits:
                    bit = bits & -bits
                    bits ^= bit
                    sq = bit.bit_length() - 1
                    if sq != first:
                        ordered.append(sq)
        if first >= 0:
            ordered.insert(0, first)
        return ordered

    def negamax(self, own: int, opp: int, depth: int, alpha: int, beta: int) -> int:
        if self.fast is not None:
            score: int | None = self.fast.value(own, opp, depth, alpha, beta)
            self.nodes = self.fast.nodes
            if score is None:
                raise _Timeout
            return score
        self.nodes += 1
        if not self.nodes & 63 and time.perf_counter() > self.deadline:
            raise _Timeout
        moves = legal_mask(own, opp)
        if not moves:
            if not legal_mask(opp, own):
                return _terminal_value(own, opp)
            # A pass is forced and costs no thinking, so it uses up no depth.
            return -self.negamax(opp, own, depth, -beta, -alpha)
        if depth <= 0:
            return self.evaluate(own, opp)
        key = own << 64 | opp
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            entry_depth, lower, upper, first = entry
            if entry_depth >= depth:
                cut, alpha, beta = _apply_bounds(lower, upper, alpha, beta)
                if cut is not None:
                    return cut
        original_alpha = alpha
        best_score, best_sq = -10 * WIN, -1
        for sq in self._ordered(own, opp, moves, first, depth):
            flipped = flips(own, opp, sq)
            child_own, child_opp = opp ^ flipped, own | flipped | (1 << sq)
            if best_sq < 0:
                score = -self.negamax(child_own, child_opp, depth - 1, -beta, -alpha)
            else:
                score = -self.negamax(child_own, child_opp, depth - 1, -alpha - 1, -alpha)
                if alpha < score < beta:
                    score = -self.negamax(child_own, child_opp, depth - 1, -beta, -score)
            if score > best_score:
                best_score, best_sq = score, sq
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        self.table[key] = (depth, *_bounds_of(best_score, original_alpha, beta, -10 * WIN, 10 * WIN), best_sq)
        return best_score

    def root(
        self, own: int, opp: int, depth: int, order: list[int], window: int | None
    ) -> list[tuple[int, int]]:
        """Scores of the root moves at ``depth``, best first.

        With ``window`` None only the best move's score is exact (the others are
        upper bounds); with a window every move within ``window`` of the best
        gets an exact score, so a random pick among near-equal moves is fair.
        """
        results = self.partial = []
        alpha = -10 * WIN
        for sq in order:
            flipped = flips(own, opp, sq)
            child_own, child_opp = opp ^ flipped, own | flipped | (1 << sq)
            floor = alpha if window is None else alpha - window
            if not results:
                score = -self.negamax(child_own, child_opp, depth - 1, -10 * WIN, 10 * WIN)
            else:
                score = -self.negamax(child_own, child_opp, depth - 1, -floor - 1, -floor)
                if score > floor:
                    score = -self.negamax(child_own, child_opp, depth - 1, -10 * WIN, -floor)
            results.append((score, sq))
            alpha = max(alpha, score)
        results.sort(key=lambda item: -item[0])
        return results


# Evaluations the compiled core has too (by its ``kind`` number).
_COMPILED_EVALUATIONS: dict[Evaluation, int] = {evaluate_medium: 0, evaluate_hard: 1, evaluate_learned: 2}


class _Level:
    def __init__(
        self,
        evaluate: Evaluation,
        max_depth: int,
        exact_empties: int,
        wld_empties: int,
        opening_plies: int,
        opening_margin: int,
    ) -> None:
        self.evaluate = evaluate
        self.max_depth = max_depth
        self.exact_empties = exact_empties  # try the exact solver from this many empties
        self.wld_empties = wld_empties  # try a win/draw/loss proof from this many empties
        self.opening_plies = opening_plies  # vary the opening while this few discs were placed
        self.opening_margin = opening_margin  # ... among moves this close to the best


_LEVELS = {
    "medium": _Level(
        evaluate_medium, max_depth=4, exact_empties=8, wld_empties=8, opening_plies=8, opening_margin=20
    ),
    "hard": _Level(
        evaluate_learned, max_depth=60, exact_empties=14, wld_empties=18, opening_plies=6, opening_margin=16
    ),
}
# Opening margins are in their evaluation's units: Hard's 16 is half a disc (the learned
# evaluation counts in 1/32 of a disc), about what 3 was on the hand-written one.
# On the compiled core the solvers reach further in a quarter of the time.
_COMPILED_LEVELS = {
    "medium": _LEVELS["medium"],
    "hard": _Level(
        evaluate_learned, max_depth=60, exact_empties=18, wld_empties=20, opening_plies=6, opening_margin=16
    ),
}
# Hard as it was before its learned evaluation: no player can choose it (games.ai.LEVELS does not
# name it); bench/reversi_eval_versus.py plays it against today's Hard.
_LEVELS["hard_classic"] = _Level(
    evaluate_hard, max_depth=60, exact_empties=14, wld_empties=18, opening_plies=6, opening_margin=3
)
_COMPILED_LEVELS["hard_classic"] = _Level(
    evaluate_hard, max_depth=60, exact_empties=18, wld_empties=20, opening_plies=6, opening_margin=3
)

_SAFETY = 0.02  # seconds kept in hand before the deadline
_SOLVER_SHARE = 0.2  # of the budget for the midgame search when a solver will run after it


def near_best(results: list[tuple[int, int]], window: int) -> list[int]:
    """The squares of ``Search.root(..., window)``'s results scored strictly within ``window`` of the best.

    Strictly: a move whose null-window test at the floor (the best so far minus ``window``) failed
    returns a bound at most that floor, and a fail-hard search (the transposition table's cut-offs)
    returns the floor itself. Counting those as "within" once let Hard pick any move of its first
    six plies (the parallel opening after f5 as often as d6, two discs worse).
    """
    top = results[0][0]
    return sorted(sq for score, sq in results if score > top - window)


def _midgame_move(own: int, opp: int, params: _Level, rng: random.Random, stop: float) -> int:
    """Best square by iterative deepening; the last completed iteration counts.

    On the compiled core an iteration cut short by the deadline counts too, as
    far as it went: its first move (the previous best) was searched with the
    full window, and any later move that beat it got an exact score.
    """
    n_empty = 64 - (own | opp).bit_count()
    started = time.perf_counter()
    search = _Search(params.evaluate, stop)
    compiled = search.fast is not None
    order = search._ordered(own, opp, legal_mask(own, opp), -1, 3)
    best = order[0]
    explore = (64 - n_empty) - 4 < params.opening_plies
    window = params.opening_margin if explore else None
    try:
        for depth in range(1, min(params.max_depth, n_empty) + 1):
            results = search.root(own, opp, depth, order, window)
            top = results[0][0]
            best = results[0][1] if window is None else rng.choice(near_best(results, window))
            order = [sq for _, sq in results]
            if abs(top) >= WIN:
                break  # the game is decided within the horizon
            # An iteration costs several times the previous one: do not start one
            # that would most likely be thrown away.
            if time.perf_counter() - started > (0.5 if compiled else 0.4) * (stop - started):
                break
    except _Timeout:
        partial = search.partial
        if compiled and window is None and partial and partial[0][1] == order[0]:
            best = max(partial, key=lambda result: result[0])[1]
    return best


def search_move(own: int, opp: int, level: str, rng: random.Random, deadline: float) -> int:
    """Best square for the side to move (which must have a legal placement)."""
    params = (_COMPILED_LEVELS if compiled_core() is not None else _LEVELS)[level]
    n_empty = 64 - (own | opp).bit_count()
    stop = deadline - _SAFETY
    if n_empty > params.wld_empties:
        return _midgame_move(own, opp, params, rng, stop)
    # A quick midgame answer first, in case the solver runs out of time.
    now = time.perf_counter()
    best = _midgame_move(own, opp, params, rng, now + _SOLVER_SHARE * (stop - now))
    solver = EndgameSolver(stop)
    try:
        if n_empty <= params.exact_empties:
            _, solved = solver.solve(own, opp)
            if solved is not None:
                best = solved
        else:
            # Null window around a draw: a score above 0 proves a win, exactly 0
            # a draw; below 0 every move loses and the midgame choice stays.
            score, solved = solver.solve(own, opp, -1, 1)
            if score >= 0 and solved is not None:
                best = solved
    except _Timeout:
        pass
    return best


def warm_up() -> None:
    """Read Hard's weights and opening book, and run every compiled function once (loads numba's
    cached machine code, or compiles it)."""
    pattern_weights()
    reversi_book.warm_up()
    core = compiled_core()
    if core is None:
        return
    own, opp = 0x0000000810000000, 0x0000001008000000  # the start, black to move
    core.perft(core.U(own), core.U(opp), 2, 0)
    for evaluate in _COMPILED_EVALUATIONS:
        _Search(evaluate, float("inf")).negamax(own, opp, 2, -10 * WIN, 10 * WIN)
    # FFO endgame position 5 (14 empties, solved in a few milliseconds): every part of the solver.
    state = ReversiEngine().from_fen("-OOOOO----OXXO-XXXOXOXX-XXOXOXXOXXOOXOOOXXXXOO-OX-XOOO---XXXXX-- X")
    EndgameSolver().solve(state.black, state.white)


def easy_move(own: int, opp: int, rng: random.Random) -> int:
    """A beginner's move: greedy for corners and captures, with slips."""
    moves = legal_mask(own, opp)
    squares = [sq for sq in range(64) if moves >> sq & 1]
    if rng.random() < 0.2:
        return rng.choice(squares)
    corners = [sq for sq in squares if (1 << sq) & CORNERS]
    if corners and rng.random() < 0.6:
        return rng.choice(corners)

    def appeal(sq: int) -> float:
        captured = flips(own, opp, sq).bit_count()
        return SQUARE_WEIGHTS[sq] / 10 + captured + rng.uniform(0, 6)

    return max(squares, key=appeal)


def choose(engine: Any, state: Any, level: str, rng: random.Random, deadline: float) -> str:
    """The AI dispatcher's entry point: a legal move token for ``state``."""
    own, opp = (state.black, state.white) if engine.to_move(state) == 0 else (state.white, state.black)
    if not legal_mask(own, opp):
        if not legal_mask(opp, own):
            raise IllegalMove("the game is over: there is no move to choose")
        pass_move: str = engine.pass_move
        return pass_move
    if level == "hard":
        # A named opening's move, when the game is still in the book: sound by published theory,
        # and varied, where the search would answer every opening the same way.
        book = reversi_book.book_moves(state)
        if book:
            return rng.choice(book)
    sq = easy_move(own, opp, rng) if level == "easy" else search_move(own, opp, level, rng, deadline)
    return SQUARE_NAMES[sq]
