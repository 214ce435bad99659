"""Ultimate TTT's analysis hooks: the computer player's Monte Carlo tree search at a fixed number of
iterations (``games.ai.analysis.mcts``). The root searches only the moves that do not let the
opponent win at once; the position after such a move is a proven loss, which judges it.
"""

from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING

from games.ai._cores import load_core
from games.ai.analysis.base import AnalysisHooks
from games.ai.analysis.mcts import MonteCarlo, Rows, monte_carlo, rows_of
from games.ai.analysis.search import NO_DEADLINE
from games.engines.base import Engine
from games.engines.ultimate_ttt import CELL_TOKENS, UltimateTTTEngine, UltimateTTTState

if TYPE_CHECKING:
    from collections.abc import Callable

    from games.ai.mcts import SearchResult

SLUG = UltimateTTTEngine.slug


def phase(state: UltimateTTTState) -> str:
    """Opening before 12 marks, endgame from five decided small boards (docs/analysis.md says why)."""
    marks = (state.x | state.o).bit_count()
    return "opening" if marks < 12 else "end" if state.closed.bit_count() >= 5 else "middle"


def candidates(engine: Engine, state: UltimateTTTState) -> tuple[list[int], str | None, Callable[[int], str]]:
    """(moves worth searching, a move that wins on the spot or None, index -> token)."""
    from games.ai.ultimate_ttt import legal_indexes, safe_moves

    moves = legal_indexes(state)
    for index in moves:
        after = engine.outcome(engine.play(state, CELL_TOKENS[index]))
        if after is not None and after.winner == engine.to_move(state):
            return moves, CELL_TOKENS[index], CELL_TOKENS.__getitem__
    return safe_moves(state, moves) or moves, None, CELL_TOKENS.__getitem__


def compiled_root(state: UltimateTTTState, root_moves: list[int], iterations: int, seed: int) -> Rows | None:
    """The root of the compiled search (``Rows``), or None when the core is not loaded."""
    core = load_core("_uttt_fast")
    if core is None:
        return None
    import numpy as np

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
            core.Tree.arrays(),
            root_visits,
            root_value,
            root_proven,
            reuse=False,  # a fresh tree: the analysis repeats itself for a seed
            informed=False,  # the search its calibration was fitted with
        )
    # The core's solver proves some root moves won (1) or lost (-1) for the mover: exact values.
    for i, proof in enumerate(root_proven):
        if proof and root_visits[i]:
            root_value[i] = root_visits[i] * (1.0 if proof > 0 else 0.0)
    return rows_of(root_moves, root_visits, root_value)


def python_search(
    state: UltimateTTTState, rng: Random, iterations: int, root_moves: list[int]
) -> SearchResult:
    """The computer player's pure-Python search of the root (the fallback)."""
    from games.ai.mcts import search
    from games.ai.ultimate_ttt import UTTTAdapter

    return search(UTTTAdapter, state, rng, iterations=iterations, root_moves=root_moves)


HOOKS = AnalysisHooks(
    slug=SLUG,
    core="_uttt_fast",
    budget={"iterations": 120_000},
    python_budget={"iterations": 3000},
    evaluate=monte_carlo(MonteCarlo(candidates, compiled_root, python_search)),
    phase=phase,
)
