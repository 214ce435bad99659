"""Quantum tic-tac-toe's pure-Python search: ``Searcher``, negamax alpha-beta over the engine's moves.

Principal variation search with a transposition table (entries know whether their subtree was
solved exactly), move ordering from the table, a history of cut-off moves and square weights
(``order_keys``, which the compiled core takes too), and one move per symmetry class where the
position is symmetric (``Searcher.distinct``). Turns do not strictly alternate, so a child's
score is negated only when the side to move changes; collapse choices cost no depth. The
evaluation is ``games.ai.quantum_ttt_eval``'s; the levels are ``games.ai.quantum_ttt``'s.
"""

from __future__ import annotations

import gc
import time
from random import Random

from games.ai.quantum_ttt_eval import WEIGHT, eval_tables, evaluate
from games.engines.base import Engine
from games.engines.quantum_ttt import QState

WIN = 10_000
SOLVED = 99  # depth stored for a subtree searched to the end of the game
EXACT, LOWER, UPPER = 0, 1, 2
# Seconds kept between the end of a search and the deadline, for freeing the
# table and for the scheduler on a busy machine: up to 40 ms, 20% of short budgets.
SAFETY = 0.04
# The eight symmetries of the square, as permutations of square numbers 0..9 (0 unused).
_ROT = (0, 7, 4, 1, 8, 5, 2, 9, 6, 3)
_FLIP = (0, 3, 2, 1, 6, 5, 4, 9, 8, 7)


def _compose(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(p[q[i]] for i in range(10))


def _symmetries() -> tuple[tuple[int, ...], ...]:
    group = [tuple(range(10))]
    for _ in range(3):
        group.append(_compose(_ROT, group[-1]))
    group += [_compose(_FLIP, g) for g in group]
    return tuple(group[1:])  # identity left out: it fixes everything


SYMMETRIES = _symmetries()


class _Timeout(Exception):
    pass


class Searcher:
    def __init__(self, engine: Engine, deadline: float, rng: Random, *, noise: int = 0) -> None:
        self.engine = engine
        self.deadline = deadline - min(SAFETY, 0.2 * max(0.0, deadline - time.perf_counter()))
        self.rng = rng
        self.noise = noise
        # The shortcut adds no noise per move, so the noisy (easy) search goes the long way.
        self.frontier = not noise
        self.table: dict[QState, tuple[int, int, int, str | None]] = {}
        self.nodes = 0
        self.horizon = 0  # counts static evaluations and unsolved table hits
        # Static move order: busy squares first, ties broken by the seeded rng.
        self.order_key = order_keys(rng)
        self.history: dict[str, int] = {}  # moves that caused cut-offs, weighted by depth

    # ------------------------------------------------------------------ api
    def best_move(self, state: QState, max_depth: int) -> tuple[str, int, int]:
        """(move, score, depth reached) by iterative deepening."""
        # The table grows to tens of thousands of tuples. A garbage collection
        # walking them (during the search, or the first one after it, which sees
        # every object the search made) stalls for 50-100 ms and overruns the
        # deadline. The search makes no reference cycles: collection is paused, and
        # the table is freed (by reference counting) before it resumes.
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._deepen(state, max_depth)
        finally:
            self.table = {}
            if enabled:
                gc.enable()

    def _deepen(self, state: QState, max_depth: int) -> tuple[str, int, int]:
        moves = self._ordered(state, self.engine.legal_moves(state), None)
        best, score, reached = moves[0], 0, 0
        for depth in range(1, max_depth + 1):
            try:
                before = self.horizon
                move, value = self._root(state, depth, best)
            except _Timeout:
                break
            best, score, reached = move, value, depth
            if self.horizon == before or abs(value) >= WIN - 100:
                break  # solved to the end of the game (or a forced result found)
        return best, score, reached

    # --------------------------------------------------------------- search
    def _root(self, state: QState, depth: int, first: str) -> tuple[str, int]:
        engine = self.engine
        me = engine.to_move(state)
        alpha, beta = -WIN - 1, WIN + 1
        best, best_value = first, -WIN - 1
        child_depth = depth if state.pending else depth - 1
        moves = self._ordered(state, self.distinct(state, engine.legal_moves(state)), first)
        for i, move in enumerate(moves):
            child = engine.play(state, move)
            same = engine.to_move(child) == me
            if i:  # null window first: most moves only need proving worse than the best
                if same:
                    value = self._negamax(child, child_depth, alpha, alpha + 1, 1)
                else:
                    value = -self._negamax(child, child_depth, -alpha - 1, -alpha, 1)
                if value <= alpha:
                    continue
            if same:
                value = self._negamax(child, child_depth, alpha, beta, 1)
            else:
                value = -self._negamax(child, child_depth, -beta, -alpha, 1)
            if value > best_value:
                best, best_value = move, value
                alpha = max(alpha, value)
        return best, best_value

    def _negamax(self, state: QState, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if not self.nodes & 63 and time.perf_counter() > self.deadline:
            raise _Timeout
        engine = self.engine
        outcome = engine.outcome(state)
        me = engine.to_move(state)
        if outcome is not None:
            if outcome.winner is None:
                return 0
            return WIN - ply if outcome.winner == me else ply - WIN
        if depth <= 0 and not state.pending:
            self.horizon += 1
            value = evaluate(state, me)
            if self.noise:
                value += self.rng.randint(-self.noise, self.noise)
            return value
        entry = self.table.get(state)
        tt_move = None
        if entry is not None:
            e_depth, flag, value, tt_move = entry
            if e_depth >= depth:
                if e_depth != SOLVED:
                    self.horizon += 1
                if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
                    return value
                if e_depth != SOLVED:
                    self.horizon -= 1
        alpha0 = alpha
        horizon0 = self.horizon
        if depth == 1 and self.frontier and not state.pending and state.classical.count(0) > 1:
            best_value, best_move = self._frontier(state, me, beta, ply)
        else:
            best_value, best_move = self._expand(state, me, depth, alpha, beta, ply, tt_move)
        flag = UPPER if best_value <= alpha0 else LOWER if best_value >= beta else EXACT
        stored_depth = SOLVED if self.horizon == horizon0 else depth
        self.table[state] = (stored_depth, flag, best_value, best_move)
        return best_value

    def _expand(
        self, state: QState, me: int, depth: int, alpha: int, beta: int, ply: int, tt_move: str | None
    ) -> tuple[int, str | None]:
        engine = self.engine
        child_depth = depth if state.pending else depth - 1
        moves = engine.legal_moves(state)
        if depth >= 2:
            moves = self.distinct(state, moves)
        best_value, best_move = -WIN - 1, None
        for move in self._ordered(state, moves, tt_move):
            child = engine.play(state, move)
            same = engine.to_move(child) == me
            if best_move is not None and beta - alpha > 1:
                # Principal variation search: prove the move is no better with a null window first.
                if same:
                    value = self._negamax(child, child_depth, alpha, alpha + 1, ply + 1)
                else:
                    value = -self._negamax(child, child_depth, -alpha - 1, -alpha, ply + 1)
                if alpha < value < beta:
                    best_value = max(best_value, value)
                    if same:
                        value = self._negamax(child, child_depth, value, beta, ply + 1)
                    else:
                        value = -self._negamax(child, child_depth, -beta, -value, ply + 1)
            elif same:
                value = self._negamax(child, child_depth, alpha, beta, ply + 1)
            else:
                value = -self._negamax(child, child_depth, -beta, -alpha, ply + 1)
            if value > best_value or best_move is None:
                best_value, best_move = value, move
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    self.history[move] = self.history.get(move, 0) + depth * depth
                    break
        return best_value, best_move

    def _frontier(self, state: QState, me: int, beta: int, ply: int) -> tuple[int, str | None]:
        """The depth-1 search of a quiet position, without making the quiet moves.

        The evaluation is a sum over marks, so a pair that closes no cycle adds
        exactly its two squares' values for the mover: no child position needed.
        Only cycle-closing pairs are played, with the opponent's two choices.
        """
        classical = state.classical
        value, per_x, per_o = eval_tables(classical)
        root = list(range(10))  # union-find over squares, to tell which pairs close a cycle
        for m, a, b in state.spooky:
            if m & 1:
                value += per_x[a] + per_x[b]
            else:
                value -= per_o[a] + per_o[b]
            while root[a] != a:
                a = root[a]
            while root[b] != b:
                b = root[b]
            root[a] = b
        for sq in range(1, 10):
            r = sq
            while root[r] != r:
                r = root[r]
            root[sq] = r
        per = per_o if me else per_x
        if me:
            value = -value
        best, best_move = -WIN - 1, None
        closing = []
        for token, a, b in _PAIRS:
            if classical[a - 1] or classical[b - 1]:
                continue
            if root[a] == root[b]:
                closing.append((token, a, b))
            elif per[a] + per[b] > best:
                best, best_move = per[a] + per[b], token
        if best_move is not None:
            best += value
            self.horizon += 1
            if best >= beta:
                return best, best_move
        # Settling the new mark in square a pushes every other mark of a's tree away
        # from a, whichever b closed the cycle: the collapsed position depends on a
        # alone. So each square is collapsed once, and a closing pair a-b is worth
        # the worse (for the mover) of settled[a] and settled[b].
        engine = self.engine
        settled: dict[int, int] = {}
        for token, a, b in closing:
            worst = WIN + 1  # the opponent chooses the collapse that suits them
            for sq in (a, b):
                score = settled.get(sq)
                if score is None:
                    after = engine.play(engine.play(state, token), f"@{sq}")
                    outcome = engine.outcome(after)
                    if outcome is None:
                        self.horizon += 1
                        score = evaluate(after, me)
                    elif outcome.winner is None:
                        score = 0
                    else:
                        score = WIN - ply - 2 if outcome.winner == me else ply + 2 - WIN
                    settled[sq] = score
                worst = min(worst, score)
                if worst <= best:
                    break
            if worst > best:
                best, best_move = worst, token
                if best >= beta:
                    break
        return best, best_move

    # -------------------------------------------------------------- helpers
    def _ordered(self, state: QState, moves: list[str], first: str | None) -> list[str]:
        if state.pending:
            return sorted(moves, key=lambda m: m != first)
        history, key = self.history, self.order_key
        ordered = sorted(moves, key=lambda m: key[m] - history.get(m, 0))
        if first is not None and first in moves:
            ordered.remove(first)
            ordered.insert(0, first)
        return ordered

    def distinct(self, state: QState, moves: list[str]) -> list[str]:
        """One move per class of moves that a symmetry of the position maps onto each other."""
        if state.pending or len(moves) < 2:
            return moves
        syms = [g for g in SYMMETRIES if _maps_to_itself(state, g)]
        if not syms:
            return moves
        seen: set[str] = set()
        kept = []
        for move in moves:
            if move in seen:
                continue
            kept.append(move)
            a, b = int(move[0]), int(move[2])
            for g in syms:
                x, y = sorted((g[a], g[b]))
                seen.add(f"{x}-{y}")
        return kept


def _maps_to_itself(state: QState, g: tuple[int, ...]) -> bool:
    classical = state.classical
    for sq in range(1, 10):
        if classical[g[sq] - 1] != classical[sq - 1]:
            return False
    marks = set(state.spooky)
    for m, a, b in state.spooky:
        x, y = g[a], g[b]
        if (m, min(x, y), max(x, y)) not in marks:
            return False
    return True


def _move_weight(move: str) -> int:
    if len(move) == 3:
        return WEIGHT[int(move[0])] + WEIGHT[int(move[2])]
    return WEIGHT[int(move[-1])]


_PAIRS = tuple((f"{a}-{b}", a, b) for a in range(1, 10) for b in range(a + 1, 10))


def _all_tokens() -> list[str]:
    tokens = [f"{a}-{b}" for a in range(1, 10) for b in range(a + 1, 10)]
    return tokens + [f"@{n}" for n in range(1, 10)] + [str(n) for n in range(1, 10)]


def order_keys(rng: Random) -> dict[str, float]:
    """Static move order, lower first: busy squares first, ties broken by the seeded rng."""
    return {m: -_move_weight(m) - rng.random() for m in _all_tokens()}
