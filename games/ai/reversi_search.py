"""Reversi's midgame search: ``Search``, iterative-deepening principal variation search.

It searches on any evaluation of ``games.ai.reversi_eval``, on the compiled core when the
core has that evaluation and is loaded (``MidSearch``, the same algorithm). The player
(``games.ai.reversi``) deepens it move by move; the post-game analysis
(``games.ai.analysis.reversi``) searches with it to a fixed depth.
"""

from __future__ import annotations

import time

from games.ai._reversi_tables import _WEIGHT_CLASSES, SQUARE_WEIGHTS
from games.ai.reversi_endgame import SearchTimeout, apply_bounds, bounds_of
from games.ai.reversi_eval import COMPILED_EVALUATIONS, WIN, Evaluation, compiled_core, terminal_value
from games.engines.reversi import flips, legal_mask


class Search:
    """Iterative-deepening principal variation search with a transposition table."""

    def __init__(self, evaluate: Evaluation, deadline: float, selectivity: float = 0.0) -> None:
        """``selectivity`` above 0 lets the compiled core prune by ProbCut (``_reversi_fast_mid``):
        Hard's player uses it, the analysis and the tests search every move."""
        self.evaluate = evaluate
        self.deadline = deadline
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int, int]] = {}  # key -> depth, lower, upper, best
        self.partial: list[tuple[int, int]] = []  # root results of the iteration under way
        core = compiled_core()
        kind = COMPILED_EVALUATIONS.get(evaluate)
        self.fast = (
            core.MidSearch(kind, deadline, selectivity) if core is not None and kind is not None else None
        )

    def ordered(self, own: int, opp: int, moves: int, first: int, depth: int) -> list[int]:
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
                raise SearchTimeout
            return score
        self.nodes += 1
        if not self.nodes & 63 and time.perf_counter() > self.deadline:
            raise SearchTimeout
        moves = legal_mask(own, opp)
        if not moves:
            if not legal_mask(opp, own):
                return terminal_value(own, opp)
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
                cut, alpha, beta = apply_bounds(lower, upper, alpha, beta)
                if cut is not None:
                    return cut
        original_alpha = alpha
        best_score, best_sq = -10 * WIN, -1
        for sq in self.ordered(own, opp, moves, first, depth):
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
        self.table[key] = (depth, *bounds_of(best_score, original_alpha, beta, -10 * WIN, 10 * WIN), best_sq)
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
