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
in a quarter of the pure-Python budget. There Hard's midgame search is also
selective: ProbCut (``HARD_SELECTIVITY``; ``games.ai._reversi_fast_mid``) answers
a null-window node from a shallower search when that one clears the bound by
a wide margin, so the same time reaches several plies deeper. The analysis
searches every move.

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

Where things live: the evaluations (and ``compiled_core``, the core that has them too) in
``games.ai.reversi_eval``; the exact endgame solver (``EndgameSolver``, ``solve_endgame``) in
``games.ai.reversi_endgame``; the midgame search (``Search``) in ``games.ai.reversi_search``;
the board tables in ``games/ai/_reversi_tables.py``. This module is the player: its levels,
``search_move`` (midgame search, then a solver near the end), ``easy_move``, ``choose`` and
``warm_up``, and ``compiled_core`` for ``games.ai`` (which asks the player module for it).
"""

from __future__ import annotations

import random
import time
from typing import Any

from games.ai import reversi_book
from games.ai._reversi_tables import CORNERS, SQUARE_WEIGHTS, pattern_weights
from games.ai.reversi_endgame import EndgameSolver, SearchTimeout
from games.ai.reversi_eval import (
    COMPILED_EVALUATIONS,
    WIN,
    Evaluation,
    compiled_core,
    evaluate_hard,
    evaluate_learned,
    evaluate_medium,
)
from games.ai.reversi_search import Search
from games.engines.base import IllegalMove
from games.engines.reversi import SQUARE_NAMES, ReversiEngine, flips, legal_mask


class _Level:
    def __init__(
        self,
        evaluate: Evaluation,
        max_depth: int,
        exact_empties: int,
        wld_empties: int,
        opening_plies: int,
        opening_margin: int,
        selectivity: float = 0.0,
    ) -> None:
        self.evaluate = evaluate
        self.max_depth = max_depth
        self.exact_empties = exact_empties  # try the exact solver from this many empties
        self.wld_empties = wld_empties  # try a win/draw/loss proof from this many empties
        self.opening_plies = opening_plies  # vary the opening while this few discs were placed
        self.opening_margin = opening_margin  # ... among moves this close to the best
        self.selectivity = selectivity  # ProbCut's threshold on the compiled core (0: every move searched)


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
# On the compiled core the solvers reach further in a quarter of the time, and Hard's midgame search
# prunes by ProbCut: HARD_SELECTIVITY standard deviations (docs/performance.md, "Issue #42: Othello's
# ProbCut").
HARD_SELECTIVITY = 1.5
_COMPILED_LEVELS = {
    "medium": _LEVELS["medium"],
    "hard": _Level(
        evaluate_learned,
        max_depth=60,
        exact_empties=18,
        wld_empties=20,
        opening_plies=6,
        opening_margin=16,
        selectivity=HARD_SELECTIVITY,
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
    explore = (64 - n_empty) - 4 < params.opening_plies
    window = params.opening_margin if explore else None
    # Picking among near-equal moves needs their scores, not ProbCut's bounds: a move that equals
    # the best by symmetry could be cut below it and never picked.
    search = Search(params.evaluate, stop, 0.0 if explore else params.selectivity)
    compiled = search.fast is not None
    order = search.ordered(own, opp, legal_mask(own, opp), -1, 3)
    best = order[0]
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
    except SearchTimeout:
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
    except SearchTimeout:
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
    for evaluate in COMPILED_EVALUATIONS:
        Search(evaluate, float("inf")).negamax(own, opp, 2, -10 * WIN, 10 * WIN)
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
