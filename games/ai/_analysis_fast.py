"""The post-game analysis's searches on the compiled cores (``games.ai.analysis`` calls them).

Each function here returns a ``RootResult``: what the analysis needs of one position
and that the computer players' own entry points do not give (they want a move, not
the value of the second best move, nor a search without a clock). They call the
cores' existing jitted functions and wrappers; nothing in a core file changes for them.

Every search here has a fixed depth or a fixed number of iterations and no deadline
(``NO_DEADLINE``), so the same position always gets the same answer. A function
returns None when its game's core is not loaded (``games.ai._cores.load_core``: numba
missing, turned off, or a worker whose loader has not got there yet); the analysis
then runs its pure-Python search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

from games.ai._cores import load_core

NO_DEADLINE = math.inf
MCTS_MIN_SHARE = 0.02  # a root move visited less than this share says nothing about its value


@dataclass(frozen=True)
class RootResult:
    """One position's search, from the side to move's point of view.

    ``score``: the search's value in the game's calibration units (None when proven).
    ``proven``: +1, 0 or -1 when the search reached the end of the game on every line.
    ``best``: the best move's token; ``line``: the moves that follow it (``best`` first).
    ``only``: every other move scores at or below the ``floor`` the caller gave.
    ``exact``: Reversi's final disc difference with perfect play (solver phase only).
    ``root``, ``deep``, ``shallow``: what the search said of the root moves (``PositionEval``).
    ``mate``: a proof's distance in plies to the end (Quantum TTT only, ``PositionEval.mate``).
    """

    score: float | None
    proven: int | None
    best: str
    line: tuple[str, ...]
    only: bool
    exact: int | None = None
    root: tuple[tuple[str, float, int], ...] = ()
    deep: float | None = None
    shallow: float | None = None
    mate: int | None = None


# Reversi ---------------------------------------------------------------------------


def reversi_core() -> Any:
    return load_core("_reversi_fast")


# Ataxx ------------------------------------------------------------------------------


def ataxx(
    engine: Any, state: Any, depth: int, floor_of: Callable[[float], float], line_length: int
) -> RootResult | None:
    """Iterative deepening to ``depth`` on the compiled core (Hard's own search, no clock).

    The second best move: a second search over the other moves at the same depth.
    Scores in pieces (the core counts hundredths of a piece).
    """
    core = load_core("_ataxx_fast")
    if core is None:
        return None
    from games.ai.ataxx import root_moves
    from games.engines.ataxx import move_token

    me, opp = state.mover()
    moves = root_moves(me, opp, Random(0))  # the same order every time: ties broken by a fixed seed
    codes = [frm * 64 + to for frm, to in moves]
    searcher = core.Searcher(NO_DEADLINE)
    code = searcher.best_move(me, opp, codes, depth, NO_DEADLINE)
    value = searcher.value
    proven = _proven(value, core.MATE_BOUND)
    score = deep = one_less = None
    if proven is None:
        # The mean with one ply less: the two parities' biases cancel (analysis._unbiased).
        shallow = core.Searcher(NO_DEADLINE)
        shallow.best_move(me, opp, codes, max(1, depth - 1), NO_DEADLINE)
        both = value if _proven(shallow.value, core.MATE_BOUND) is not None else (value + shallow.value) / 2
        score = both / 100
        if _proven(shallow.value, core.MATE_BOUND) is None and depth > 1:
            deep, one_less = value / 100, shallow.value / 100
    only = False
    if len(codes) > 1:
        others = [c for c in codes if c != code]
        second = core.Searcher(NO_DEADLINE)
        second.best_move(me, opp, others, depth, NO_DEADLINE)
        floor = floor_of(_as_score(value, core.MATE_BOUND, 100))
        only = _as_score(second.value, core.MATE_BOUND, 100) <= floor
    best = move_token(code >> 6, code & 63)
    line = [best]
    probe = engine.play(state, best)
    while len(line) < line_length and engine.outcome(probe) is None:
        p_me, p_opp = probe.mover()
        p_moves = root_moves(p_me, p_opp, Random(0))
        if not p_moves:
            reply = engine.pass_move
        else:
            p_code = core.Searcher(NO_DEADLINE).best_move(
                p_me, p_opp, [f * 64 + t for f, t in p_moves], max(1, depth - 2), NO_DEADLINE
            )
            reply = move_token(p_code >> 6, p_code & 63)
        line.append(reply)
        probe = engine.play(probe, reply)
    return RootResult(score, proven, best, tuple(line), only, deep=deep, shallow=one_less)


# Quantum TTT ------------------------------------------------------------------------


def quantum_ttt(
    engine: Any, state: Any, depth: int, floor_of: Callable[[float], float], line_length: int
) -> RootResult | None:
    """Every distinct root move searched to ``depth - 1`` on the compiled core: best and second best.

    A collapse (the choice after a cycle) costs no depth, as in the computer player.
    """
    core = load_core("_qttt_fast")
    if core is None:
        return None
    from games.ai.quantum_ttt import Searcher, _order_keys

    me = engine.to_move(state)
    order = _order_keys(Random(0))
    moves = Searcher(engine, NO_DEADLINE, Random(0))._distinct(state, engine.legal_moves(state))
    scored: list[tuple[float, int, str, tuple[str, ...]]] = []
    for index, move in enumerate(moves):
        child = engine.play(state, move)
        done = engine.outcome(child)
        if done is not None:
            value = 0 if done.winner is None else (core.WIN if done.winner == me else -core.WIN)
            reply: tuple[str, ...] = ()
        else:
            cost = 0 if move.startswith("@") else 1
            answer, child_value, _, _ = core.search(child, order, max(1, depth - cost), NO_DEADLINE)
            value = child_value if engine.to_move(child) == me else -child_value
            reply = (answer,)
        scored.append((value, -index, move, reply))
    scored.sort(reverse=True)
    value, _, best, reply = scored[0]
    bound = core.WIN - 100
    proven = _proven(value, bound)
    score = None if proven is not None else float(value)
    only = len(scored) > 1 and _as_score(scored[1][0], bound, 1) <= floor_of(_as_score(value, bound, 1))
    # A child's proven value is WIN minus its plies to the end counted from the child.
    mate = core.WIN - abs(int(value)) + 1 if proven is not None else None
    line = [best, *reply]
    probe = engine.play(state, best)
    if reply:
        probe = engine.play(probe, reply[0])
    while len(line) < line_length and engine.outcome(probe) is None:
        answer, _, _, _ = core.search(probe, order, max(1, depth - 2), NO_DEADLINE)
        line.append(answer)
        probe = engine.play(probe, answer)
    return RootResult(score, proven, best, tuple(line), only, mate=mate)


# Monte Carlo games --------------------------------------------------------------------


def mcts_root(
    slug: str, state: Any, root_moves: list[int], iterations: int, seed: int
) -> list[tuple[int, int, float]] | None:
    """(move index, visits, mean reward for the side to move) per root move, most visited first."""
    import numpy as np

    if slug == "ultimate_ttt":
        core = load_core("_uttt_fast")
        if core is None:
            return None
        boards, won = core.state_arrays(state)
        root_visits = np.zeros(len(root_moves), np.int64)
        root_value = np.zeros(len(root_moves), np.float64)
        root_proven = np.zeros(len(root_moves), np.int8)
        rng = np.array([seed | 1], np.uint64)
        with core.LOCK:
            core.mcts(
                boards,
                won,
                np.array(root_moves, np.int64),
                iterations,
                NO_DEADLINE,
                1.0,
                rng,
                *core.Tree.arrays(),
                root_visits,
                root_value,
                root_proven,
            )
        # The core's solver proves some root moves won (1) or lost (-1) for the mover: exact values.
        for i, proof in enumerate(root_proven):
            if proof and root_visits[i]:
                root_value[i] = root_visits[i] * (1.0 if proof > 0 else 0.0)
    else:
        core = load_core("_ftt_fast")
        if core is None:
            return None
        from games.ai.four_tac_toe import EXPLORATION, PLAYOUT_NOISE, REWARD_SCALE, WIDENING

        owner, codes, gains, info = core.state_arrays(state)
        root_visits = np.zeros(len(root_moves), np.int64)
        root_value = np.zeros(len(root_moves), np.float64)
        rng = np.array([seed | 1], np.uint64)
        with core.LOCK:
            core.mcts(
                owner,
                codes,
                gains,
                info,
                np.array(root_moves, np.int64),
                iterations,
                NO_DEADLINE,
                EXPLORATION,
                WIDENING[0],
                WIDENING[1],
                REWARD_SCALE,
                PLAYOUT_NOISE,
                rng,
                *core.Tree.arrays(),
                root_visits,
                root_value,
            )
    rows = [
        (move, int(visits), float(value) / visits if visits else 0.5)
        for move, visits, value in zip(root_moves, root_visits, root_value, strict=True)
    ]
    rows.sort(key=lambda row: (-row[1], -row[2]))
    return rows


def mcts_second_best(rows: list[tuple[int, int, float]]) -> float | None:
    """The best mean reward among the other root moves visited enough to tell, or None."""
    total = sum(visits for _, visits, _ in rows)
    enough = [mean for _, visits, mean in rows[1:] if visits >= MCTS_MIN_SHARE * total]
    return max(enough) if enough else None


# Shared -------------------------------------------------------------------------------


def _proven(value: float, bound: int) -> int | None:
    if value >= bound:
        return 1
    if value <= -bound:
        return -1
    return None


def _as_score(value: float, bound: int, per_unit: int) -> float:
    """A search value in calibration units; a proven result as plus or minus infinity."""
    if value >= bound:
        return math.inf
    if value <= -bound:
        return -math.inf
    return value / per_unit
