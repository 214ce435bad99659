"""Ataxx's analysis hooks: Hard's iterative deepening to a fixed depth, on the compiled core
when it is loaded, else a pure-Python alpha-beta search on the piece count. Scores are in pieces.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from games.ai._cores import load_core
from games.ai.analysis.base import LINE_LENGTH, AnalysisHooks, PositionEval
from games.ai.analysis.search import (
    NO_DEADLINE,
    Negamax,
    RootResult,
    as_score,
    floor_of,
    negamax_eval,
    position,
    proof,
    terminal,
)
from games.engines.ataxx import AtaxxEngine, AtaxxState, move_token
from games.engines.base import Engine

SLUG = AtaxxEngine.slug


def phase(state: AtaxxState) -> str:
    """Opening up to 12 pieces on the board, endgame from 37 (docs/analysis.md says why)."""
    me, opp = state.mover()
    pieces = (me | opp).bit_count()
    return "opening" if pieces <= 12 else "end" if pieces >= 37 else "middle"


def _pieces(state: AtaxxState) -> float:
    """The fallback's static score: the side to move's pieces minus the opponent's."""
    mine: int
    theirs: int
    mine, theirs = state.mover()
    return mine.bit_count() - theirs.bit_count()


def evaluate(engine: Engine, state: AtaxxState, *, depth: int) -> PositionEval:
    """Hard's search to ``depth`` plies on the compiled core, else the pure-Python fallback's."""
    passing = engine.pass_move
    assert passing is not None  # Ataxx passes
    if engine.legal_moves(state) == [passing]:
        child = engine.play(state, passing)
        done = terminal(engine, child)
        after = done if done is not None else evaluate(engine, child, depth=depth)
        score = None if after.score is None else -after.score
        return PositionEval(after.chances, passing, (passing, *after.line)[:LINE_LENGTH], None, score)
    result = _compiled(engine, state, depth, floor_of(SLUG), LINE_LENGTH)
    if result is not None:
        return position(engine, state, result, SLUG)
    searcher = Negamax(engine, _pieces, lambda m: m == engine.pass_move)
    return negamax_eval(engine, state, searcher, depth, SLUG)


def _compiled(
    engine: Engine, state: AtaxxState, depth: int, floor_of: Callable[[float], float], line_length: int
) -> RootResult | None:
    """Iterative deepening to ``depth`` on the compiled core (Hard's own search, no clock).

    The second best move: a second search over the other moves at the same depth.
    Scores in pieces (the core counts hundredths of a piece).
    """
    core = load_core("_ataxx_fast")
    if core is None:
        return None
    from games.ai.ataxx import root_moves

    passing = engine.pass_move
    assert passing is not None  # Ataxx passes
    me, opp = state.mover()
    moves = root_moves(me, opp, Random(0))  # the same order every time: ties broken by a fixed seed
    codes = [frm * 64 + to for frm, to in moves]
    searcher = core.Searcher(NO_DEADLINE)
    code = searcher.best_move(me, opp, codes, depth, NO_DEADLINE)
    value = searcher.value
    proven = proof(value, core.MATE_BOUND)
    score = deep = one_less = None
    if proven is None:
        # The mean with one ply less: the two parities' biases cancel (search.unbiased).
        shallow = core.Searcher(NO_DEADLINE)
        shallow.best_move(me, opp, codes, max(1, depth - 1), NO_DEADLINE)
        both = value if proof(shallow.value, core.MATE_BOUND) is not None else (value + shallow.value) / 2
        score = both / 100
        if proof(shallow.value, core.MATE_BOUND) is None and depth > 1:
            deep, one_less = value / 100, shallow.value / 100
    only = False
    if len(codes) > 1:
        others = [c for c in codes if c != code]
        second = core.Searcher(NO_DEADLINE)
        second.best_move(me, opp, others, depth, NO_DEADLINE)
        floor = floor_of(as_score(value, core.MATE_BOUND, 100))
        only = as_score(second.value, core.MATE_BOUND, 100) <= floor
    best = move_token(code >> 6, code & 63)
    line = [best]
    probe = engine.play(state, best)
    while len(line) < line_length and engine.outcome(probe) is None:
        p_me, p_opp = probe.mover()
        p_moves = root_moves(p_me, p_opp, Random(0))
        if not p_moves:
            reply = passing
        else:
            p_code = core.Searcher(NO_DEADLINE).best_move(
                p_me, p_opp, [f * 64 + t for f, t in p_moves], max(1, depth - 2), NO_DEADLINE
            )
            reply = move_token(p_code >> 6, p_code & 63)
        line.append(reply)
        probe = engine.play(probe, reply)
    return RootResult(score, proven, best, tuple(line), only, deep=deep, shallow=one_less)


HOOKS = AnalysisHooks(
    slug=SLUG,
    core="_ataxx_fast",
    budget={"depth": 6},
    python_budget={"depth": 4},
    evaluate=evaluate,
    phase=phase,
)
