"""Reversi's exact endgame solver: ``EndgameSolver`` and, on its own, ``solve_endgame``.

Negamax alpha-beta for the last empty squares, on the compiled core when it is loaded (the
same answers, more cut-offs). ``solve_endgame(own, opp)`` is the solver on its own (used by
the bench ``bench/reversi_endgame.py``): the final disc difference with best play, from the
point of view of the side to move, with the empty squares of a game that ends early going to
the winner (the usual Othello convention, as in the FFO test positions).

``SearchTimeout``, ``apply_bounds`` and ``bounds_of`` serve the midgame search too
(``games.ai.reversi_search``); the player that calls both is ``games.ai.reversi``.
"""

from __future__ import annotations

import time

from games.ai._reversi_tables import (
    _NEIGHBOURS,
    _QUADRANT_MASKS,
    _QUADRANT_OF,
    CORNERS,
    SQUARE_WEIGHTS,
    _neighbours,
)
from games.ai.reversi_eval import compiled_core, final_score
from games.engines.reversi import FULL, SQUARE_NAMES, flips, legal_mask


class SearchTimeout(Exception):
    """Raised inside a search (this solver, ``reversi_search.Search``) when its deadline has passed."""


# Below this many empty squares the solver stops ordering moves by mobility and
# keeping a transposition table: the bookkeeping would cost more than it saves.
_SHALLOW = 6
_TIME_CHECK = 63  # look at the clock every 64 nodes


def apply_bounds(lower: int, upper: int, alpha: int, beta: int) -> tuple[int | None, int, int]:
    """A stored (lower, upper) bound against the window: (a cut-off score or None, narrowed alpha, beta)."""
    if lower >= beta:
        return lower, alpha, beta
    if upper <= alpha:
        return upper, alpha, beta
    return None, max(alpha, lower), min(beta, upper)


def bounds_of(score: int, alpha: int, beta: int, floor: int, ceiling: int) -> tuple[int, int]:
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
            raise SearchTimeout

    def solve(self, own: int, opp: int, alpha: int = -64, beta: int = 64) -> tuple[int, int | None]:
        """(score, best square or None) with ``alpha < score < beta`` exact, else a bound."""
        if self.core is not None:
            deadline = float("inf") if self.deadline is None else self.deadline
            score, sq, nodes, timed_out = self.core.solve(own, opp, alpha, beta, deadline)
            self.nodes += nodes
            if timed_out:
                raise SearchTimeout
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
            cut, alpha, beta = apply_bounds(lower, upper, alpha, beta)
            if cut is not None:
                return cut
        original_alpha = alpha
        children = self._ordered_children(own, opp, moves, first)
        best_score, best_sq = self._principal_variation(children, alpha, beta, n_empty)
        self.table[key] = (*bounds_of(best_score, original_alpha, beta, -64, 64), best_sq)
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
            raise SearchTimeout
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
    except SearchTimeout:
        raise TimeoutError("endgame solver ran out of time") from None
    if sq is not None:
        return score, SQUARE_NAMES[sq]
    return score, ("pass" if legal_mask(opp, own) else None)
