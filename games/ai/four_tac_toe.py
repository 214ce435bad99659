"""Computer player for Four Tac Toe.

The game is about points and its tactics are short: a cell that completes your
lines now, a cell where the opponent would complete theirs next. Every level
builds on two cheap views of the lines through a cell:

* ``cell_value``: a one-move heuristic (complete > block > make a two > kill a
  line of theirs > start an empty line), also used to order moves;
* ``tactical_candidates``: the cells with the best "my points now minus the
  opponent's best points on the reply" (so a double threat gets blocked rather
  than answered with a single point).

Levels:

* easy: half of the moves random, the rest the heuristic seen through heavy
  noise, so it often misses a point or a block.
* medium: the tactical filter, then the heuristic's favourite (no search).
* hard: the tactical filter, then Monte Carlo tree search (``games.ai.mcts``)
  over the survivors until the deadline, with progressive widening in
  heuristic order and *tactical playouts*: each side cashes its best threat,
  else blocks the opponent's, else plays a random cell, to the full board. The
  reward is ``0.5 + 0.5 * tanh(score difference / 3)``: mostly the result, a
  little the margin.

The playouts keep per-line codes and per-cell threat counts incrementally,
starting from tables built once per search at its root (``FourTacToeAdapter``).
``playout="random"`` swaps in the cheaper random fill (deal the free cells out
at random and count: the final score only depends on who owns which cells),
which is weaker and kept for comparison.

When numba is available, hard's search runs compiled (``games.ai._ftt_fast``:
the same tree search and tactical playouts, about 13 times as many iterations
a second) at a quarter of the pure-Python budget, with a share of random moves
in its playouts (``PLAYOUT_NOISE``), without which the extra iterations did not
help. The Python search is the fallback and the reference, unchanged.

Where things live: the one-move tactics (``cell_value``, ``tactical_candidates``,
``ordered_cells``, ``free_cells``) in ``games.ai.four_tac_toe_tactics``; the tree search's
adapter and playouts (``FourTacToeAdapter``, ``REWARD_SCALE``) in
``games.ai.four_tac_toe_playout``; this module holds the levels, the search's settings,
``choose``, ``compiled_core`` and ``warm_up``.
"""

from __future__ import annotations

import time
from random import Random
from typing import Any

from games.ai._cores import load_core
from games.ai.four_tac_toe_playout import REWARD_SCALE, FourTacToeAdapter
from games.ai.four_tac_toe_tactics import cell_value, free_cells, ordered_cells, own_opp, tactical_candidates
from games.ai.mcts import search
from games.engines.four_tac_toe import CELL_TOKENS, FourTacToeState, play_index

_SAFETY = 0.01  # seconds kept before the deadline for the work after the search

# Share of easy's moves that are plain random.
EASY_RANDOM_SHARE = 0.5

# Progressive widening for the hard search: children allowed = K0 + visits ** ALPHA.
# Measured over 20-game matches against medium at 800 iterations: (2, 0.3) and
# plain UCT scored about 50 %, (3, 0.5) 70 %, (10, 0.65) 58 %, (6, 0.6) 85-90 %.
WIDENING = (6.0, 0.6)
EXPLORATION = 0.5
# The compiled search only: the share (out of 1024) of playout moves made at random instead of
# tactically. With near-deterministic playouts, more iterations did not help: 20,000 iterations
# scored 38 % against 5,000 (8 games). With 40 % random moves they do: 75 % (12 games), and at
# 0.24 s a move 72 % against 6,000 iterations (16 games each for shares of 25 %, 40 % and 60 %).
PLAYOUT_NOISE = 400


def compiled_core() -> Any:
    """The numba core (``games.ai._ftt_fast``), or None when numba is unavailable or turned off."""
    return load_core("_ftt_fast")


def warm_up() -> None:
    """Run the compiled search once (loads numba's cached machine code, or compiles it)."""
    core = compiled_core()
    if core is not None:
        state = play_index(FourTacToeState(0, 0, 0, 0, 0), 0)
        _compiled_search(core, state, ordered_cells(state), 1, time.perf_counter() + 5.0, 50)


def _compiled_search(
    core: Any, state: FourTacToeState, root_moves: list[int], seed: int, stop: float, iterations: int | None
) -> int:
    move: int
    move, _, _ = core.search(
        state,
        root_moves,
        seed,
        deadline=stop,
        iterations=iterations,
        exploration=EXPLORATION,
        widening=WIDENING,
        scale=REWARD_SCALE,
        noise=PLAYOUT_NOISE,
    )
    return move


def _easy(state: FourTacToeState, cells: list[int], rng: Random) -> int:
    # Half of the moves are random and the rest look through a heavy noise, so
    # easy often misses a point or a block, as a beginner would.
    if rng.random() < EASY_RANDOM_SHARE:
        return rng.choice(cells)
    own, opp = own_opp(state)
    return max(cells, key=lambda c: cell_value(own, opp, c) * rng.uniform(0.1, 1.0))


def choose(
    engine: Any,
    state: FourTacToeState,
    level: str,
    rng: Random,
    deadline: float,
    *,
    iterations: int | None = None,
) -> str:
    """A move token for ``level``; ``iterations`` caps the search (for reproducible tests)."""
    cells = free_cells(state)
    if not cells:
        raise ValueError("the game is over: there is no move to choose")
    if len(cells) == 1:
        return CELL_TOKENS[cells[0]]
    if level == "easy":
        return CELL_TOKENS[_easy(state, cells, rng)]
    candidates = tactical_candidates(state, cells)
    if len(candidates) == 1:
        return CELL_TOKENS[candidates[0]]
    own, opp = own_opp(state)
    ranked = sorted(candidates, key=lambda c: -cell_value(own, opp, c))
    if level == "medium":
        return CELL_TOKENS[ranked[0]]
    core = compiled_core()
    if core is not None:
        return CELL_TOKENS[
            _compiled_search(core, state, ranked, rng.getrandbits(63), deadline - _SAFETY, iterations)
        ]
    result = search(
        FourTacToeAdapter(state),
        state,
        rng,
        deadline=deadline - _SAFETY,
        iterations=iterations,
        exploration=EXPLORATION,
        widening=WIDENING,
        root_moves=ranked,
    )
    return CELL_TOKENS[result.move]
