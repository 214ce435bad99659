"""Computer player for quantum tic-tac-toe.

Every level searches the engine's own moves, collapse choices included, with
negamax alpha-beta. Turns do not strictly alternate (the chooser of a collapse
moves twice), so a child's score is negated only when the side to move changes.
Collapse choices cost no depth: a position with a pending collapse is never
scored statically, because the two outcomes can differ by a whole game.

- hard: iterative deepening until the deadline or until the tree is solved to
  the end of the game: principal variation search with a transposition table
  (entries know whether their subtree was solved exactly), move ordering from
  the table, a history of cut-off moves and square weights, and one move per
  symmetry class where the position is symmetric;
- medium: the same search stopped at two plies;
- easy: one ply (plus collapse choices) on a noisy evaluation, and now and then a
  random move, so a beginner can beat it; it never misses a collapse choice that
  wins on the spot.

The evaluation (``evaluate``) counts open lines: classical marks, spooky marks
that may settle in them, and threats (two classical marks plus a spooky mark in
the third square). It is a sum over marks, which lets the last ply score quiet
pairs without playing them (``Searcher._frontier``). In one second hard reaches
five or six plies in the opening and usually solves the game exactly from move 5.

When numba is available, medium and hard run the same search compiled
(``games.ai._qttt_fast``: some forty times as many nodes a second) at a
quarter of the pure-Python budgets; this Python search stays the fallback and
the reference, and easy (noisy, one ply) always runs here.

Where things live: the evaluation in ``games.ai.quantum_ttt_eval``, the search (``Searcher``,
``order_keys``) in ``games.ai.quantum_ttt_search``; this module holds the levels, ``choose``,
``compiled_core`` and ``warm_up``.
"""

from __future__ import annotations

import time
from random import Random
from typing import Any

from games.ai._cores import load_core
from games.ai.quantum_ttt_search import SAFETY, Searcher, order_keys
from games.engines.base import Engine
from games.engines.quantum_ttt import QState

MAX_DEPTH = {"easy": 1, "medium": 2, "hard": 12}
EASY_BLUNDER = 0.15  # share of easy moves played at random


def compiled_core() -> Any:
    """The numba core (``games.ai._qttt_fast``), or None when numba is unavailable or turned off."""
    return load_core("_qttt_fast")


def warm_up() -> None:
    """Run the compiled search once (loads numba's cached machine code, or compiles it)."""
    core = compiled_core()
    if core is not None:
        state = QState((0,) * 9, ((1, 1, 5), (2, 3, 7)), 3, 0)
        core.search(state, order_keys(Random(0)), 2, time.perf_counter() + 5.0)


def _compiled_search(core: Any, state: QState, level: str, rng: Random, deadline: float) -> str:
    """The hard or medium search on the compiled core (the same margin before the deadline)."""
    stop = deadline - min(SAFETY, 0.2 * max(0.0, deadline - time.perf_counter()))
    move: str
    move, _, _, _ = core.search(state, order_keys(rng), MAX_DEPTH.get(level, MAX_DEPTH["hard"]), stop)
    return move


def choose(engine: Engine, state: QState, level: str, rng: Random, deadline: float) -> str:
    """A legal move for the side to move at ``level``, returned before ``deadline``."""
    moves = engine.legal_moves(state)
    if len(moves) == 1:
        return moves[0]
    if level == "easy":
        return _easy(engine, state, moves, rng, deadline)
    core = compiled_core()
    if core is not None:
        return _compiled_search(core, state, level, rng, deadline)
    searcher = Searcher(engine, deadline, rng)
    move, _, _ = searcher.best_move(state, MAX_DEPTH.get(level, MAX_DEPTH["hard"]))
    return move


def _easy(engine: Engine, state: QState, moves: list[str], rng: Random, deadline: float) -> str:
    me = engine.to_move(state)
    for move in moves:  # a beginner still sees a line made on the spot
        out = engine.outcome(engine.play(state, move))
        if out is not None and out.winner == me:
            return move
    if rng.random() < EASY_BLUNDER:
        return rng.choice(moves)
    searcher = Searcher(engine, deadline, rng, noise=12)
    move, _, _ = searcher.best_move(state, MAX_DEPTH["easy"])
    return move
