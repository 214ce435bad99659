"""Reversi's analysis hooks: a principal variation search on Hard's learned evaluation to a
fixed depth, and the exact endgame solver from a number of empty squares on (moves then read
"perfect" or "loses N discs": ``PositionEval.exact``). The search (``games.ai.reversi_search``) and the solver
(``games.ai.reversi_endgame``) run on the compiled core when it is loaded; scores are in discs.
"""

from __future__ import annotations

import math

from games.ai.analysis.base import LINE_LENGTH, AnalysisHooks, PositionEval
from games.ai.analysis.search import RootResult, floor_of, position, terminal, unbiased
from games.engines.base import Engine, Outcome
from games.engines.reversi import SQUARE_NAMES, ReversiEngine, ReversiState, flips, legal_mask

SLUG = ReversiEngine.slug
_UNIT = 32  # the learned evaluation counts in 1/32 of a disc: scores are in discs


def phase(state: ReversiState) -> str:
    """Opening up to 20 discs on the board, endgame from 44 (docs/analysis.md says why)."""
    discs = (state.black | state.white).bit_count()
    return "opening" if discs <= 20 else "end" if discs >= 44 else "middle"


def final_exact(outcome: Outcome) -> int:
    """A finished game's disc difference for side 0, the empty squares going to the winner."""
    black, white = outcome.score
    diff = black - white
    empties = 64 - black - white  # empty squares go to the winner
    return diff + empties if diff > 0 else diff - empties if diff < 0 else 0


def _sides(state: ReversiState, side: int) -> tuple[int, int]:
    return (state.black, state.white) if side == 0 else (state.white, state.black)


def evaluate(engine: Engine, state: ReversiState, *, depth: int, exact: int) -> PositionEval:
    """Midgame: a principal variation search on Hard's learned evaluation; from ``exact`` empties the
    solver. The search and the solver run on the compiled core when it is loaded."""
    from games.ai.reversi_endgame import EndgameSolver
    from games.ai.reversi_eval import WIN, evaluate_learned
    from games.ai.reversi_search import Search

    me = engine.to_move(state)
    own, opp = _sides(state, me)
    moves = legal_mask(own, opp)
    passing = engine.pass_move
    assert passing is not None  # Reversi passes
    if not moves:  # a forced pass: the position is worth what the opponent's turn is
        child = engine.play(state, passing)
        done = terminal(engine, child, final_exact)
        after = done if done is not None else evaluate(engine, child, depth=depth, exact=exact)
        return PositionEval(
            after.chances,
            passing,
            (passing, *after.line)[:LINE_LENGTH],
            after.exact,
            None if after.score is None else -after.score,
        )
    squares = [sq for sq in range(64) if moves >> sq & 1]
    children = {sq: (opp ^ flips(own, opp, sq), own | flips(own, opp, sq) | (1 << sq)) for sq in squares}
    floor_of_score = floor_of(SLUG)
    if 64 - (own | opp).bit_count() <= exact:
        solver = EndgameSolver()
        score, sq = solver.solve(own, opp)
        best = SQUARE_NAMES[sq] if sq is not None else passing
        only = False
        if score >= 0 and len(squares) > 1:  # the only move that keeps the win (or the draw)?
            need = 1 if score > 0 else 0
            only = all(
                -solver.solve(*children[other], -need, -need + 1)[0] < need
                for other in squares
                if other != sq
            )
        line: list[str] = [best]
        probe = engine.play(state, best)
        while len(line) < LINE_LENGTH and engine.outcome(probe) is None:  # solving gets cheaper each ply
            p_own, p_opp = _sides(probe, engine.to_move(probe))
            _, p_sq = solver.solve(p_own, p_opp)
            reply = SQUARE_NAMES[p_sq] if p_sq is not None else passing
            line.append(reply)
            probe = engine.play(probe, reply)
        outcome = 0 if score == 0 else (1 if score > 0 else -1)
        return position(engine, state, RootResult(None, outcome, best, tuple(line), only), SLUG, score)

    search = Search(evaluate_learned, math.inf)
    infinity = 10 * WIN

    def root(at: int, order: list[int]) -> list[tuple[int, int]]:
        """Every root move's value at depth ``at``: exact for the best, upper bounds for the others."""
        results: list[tuple[int, int]] = []
        alpha = -infinity
        for sq in order:
            c_own, c_opp = children[sq]
            if not results:
                value = -search.negamax(c_own, c_opp, at - 1, -infinity, infinity)
            else:
                value = -search.negamax(c_own, c_opp, at - 1, -alpha - 1, -alpha)
                if value > alpha:
                    value = -search.negamax(c_own, c_opp, at - 1, -infinity, -alpha)
            results.append((value, sq))
            alpha = max(alpha, value)
        results.sort(key=lambda item: -item[0])
        return results

    order = search.ordered(own, opp, moves, -1, 3)
    previous: list[tuple[int, int]] = []
    results: list[tuple[int, int]] = []
    for at in range(1, depth + 1):  # iterative deepening: each depth orders the next
        previous = results
        results = root(at, order)
        order = [sq for _, sq in results]
    value, sq = results[0]
    proven = 1 if value >= WIN else -1 if value <= -WIN else None
    one_less = previous[0][0] if previous else value
    estimate = None if proven is not None else unbiased(value, one_less, WIN) / _UNIT
    deep = shallow = None
    if proven is None and previous and abs(one_less) < WIN:
        deep, shallow = value / _UNIT, one_less / _UNIT
    only = False
    if len(results) > 1 and proven is None:
        floor = floor_of_score(value / _UNIT) * _UNIT
        if floor > -infinity:
            bound = math.floor(floor)
            only = all(
                other <= bound or -search.negamax(*children[other_sq], depth - 1, -bound - 1, -bound) <= bound
                for other, other_sq in results[1:]
            )
    pv = [SQUARE_NAMES[sq]]
    probe = engine.play(state, pv[0])
    while len(pv) < LINE_LENGTH and engine.outcome(probe) is None:  # a shallower search for the line
        reply = _line_move(engine, probe, min(depth, 4))
        pv.append(reply)
        probe = engine.play(probe, reply)
    return position(
        engine,
        state,
        RootResult(estimate, proven, pv[0], tuple(pv), only, deep=deep, shallow=shallow),
        SLUG,
    )


def _line_move(engine: Engine, state: ReversiState, depth: int) -> str:
    from games.ai.reversi_eval import WIN, evaluate_learned
    from games.ai.reversi_search import Search

    own, opp = _sides(state, engine.to_move(state))
    moves = legal_mask(own, opp)
    if not moves:
        return str(engine.pass_move)
    search = Search(evaluate_learned, math.inf)
    best, best_value = -1, -10 * WIN - 1
    for sq in search.ordered(own, opp, moves, -1, 3):
        f = flips(own, opp, sq)
        value = -search.negamax(opp ^ f, own | f | (1 << sq), depth - 1, -10 * WIN, -best_value)
        if value > best_value:
            best, best_value = sq, value
    return SQUARE_NAMES[best]


HOOKS = AnalysisHooks(
    slug=SLUG,
    core="_reversi_fast",
    budget={"depth": 8, "exact": 18},
    python_budget={"depth": 4, "exact": 14},
    evaluate=evaluate,
    phase=phase,
    final_exact=final_exact,
)
