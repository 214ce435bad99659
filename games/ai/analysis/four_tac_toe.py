"""Four Tac Toe's analysis hooks: the computer player's Monte Carlo tree search at a fixed number of
iterations (``games.ai.analysis.mcts``) over the cells its tactical filter keeps; the root table
then gets the cells the filter left out (``left_out``).
"""

from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING

from games.ai._cores import load_core
from games.ai.analysis.base import AnalysisHooks, Root
from games.ai.analysis.mcts import MonteCarlo, Rows, monte_carlo, rows_of
from games.ai.analysis.search import NO_DEADLINE
from games.engines.base import Engine
from games.engines.four_tac_toe import CELL_TOKENS, FourTacToeEngine, FourTacToeState

if TYPE_CHECKING:
    from collections.abc import Callable

    from games.ai.mcts import SearchResult

SLUG = FourTacToeEngine.slug


def phase(state: FourTacToeState) -> str:
    """Opening before 12 marks, endgame from 54 of the 80 cells (docs/analysis.md says why)."""
    marks = (state.x | state.o).bit_count()
    return "opening" if marks < 12 else "end" if marks >= 54 else "middle"


def candidates(engine: Engine, state: FourTacToeState) -> tuple[list[int], str | None, Callable[[int], str]]:
    """(the cells the tactical filter keeps, best first by their value; None; index -> token)."""
    from games.ai.four_tac_toe_tactics import cell_value, free_cells, tactical_candidates

    cells = tactical_candidates(state, free_cells(state))
    own, opp = (state.x, state.o) if state.side == 0 else (state.o, state.x)
    return sorted(cells, key=lambda c: -cell_value(own, opp, c)), None, CELL_TOKENS.__getitem__


def compiled_root(state: FourTacToeState, root_moves: list[int], iterations: int, seed: int) -> Rows | None:
    """The root of the compiled search (``Rows``), or None when the core is not loaded."""
    core = load_core("_ftt_fast")
    if core is None:
        return None
    import numpy as np

    from games.ai.four_tac_toe import EXPLORATION, PLAYOUT_NOISE, WIDENING
    from games.ai.four_tac_toe_playout import REWARD_SCALE

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
    return rows_of(root_moves, root_visits, root_value)


def python_search(
    state: FourTacToeState, rng: Random, iterations: int, root_moves: list[int]
) -> SearchResult:
    """The computer player's pure-Python search of the root (the fallback)."""
    from games.ai.four_tac_toe import EXPLORATION, WIDENING
    from games.ai.four_tac_toe_playout import FourTacToeAdapter
    from games.ai.mcts import search

    return search(
        FourTacToeAdapter(state),
        state,
        rng,
        iterations=iterations,
        exploration=EXPLORATION,
        widening=WIDENING,
        root_moves=root_moves,
    )


def left_out(state: FourTacToeState, root: Root) -> Root:
    """The root table with the cells the tactical filter left out of the search.

    The filter keeps the cells with the best "my points now minus the opponent's best points
    next"; a cell it left out gives up the difference, and each point counts 2 / REWARD_SCALE
    of the logit, the search's own reward's slope in the final margin, below the search's best
    move. Not clipped: once a game is decided the searches' means are all 0 or 1, and the points
    a move gives away are all that is left to tell a move from another (as Reversi's discs).
    """
    if not root:
        return root
    from games.ai.four_tac_toe_playout import REWARD_SCALE
    from games.ai.four_tac_toe_tactics import free_cells, tactical_values

    cells = free_cells(state)
    values = tactical_values(state, cells)
    top = max(values)
    valued = {move for move, _, _ in root}
    best = root[0][1]
    extra = tuple(
        (CELL_TOKENS[c], best - 2.0 * (top - v) / REWARD_SCALE, 0)
        for c, v in zip(cells, values, strict=True)
        if CELL_TOKENS[c] not in valued and v < top
    )
    return root + extra


HOOKS = AnalysisHooks(
    slug=SLUG,
    core="_ftt_fast",
    budget={"iterations": 8_000},
    python_budget={"iterations": 1000},
    evaluate=monte_carlo(MonteCarlo(candidates, compiled_root, python_search, left_out)),
    phase=phase,
)
