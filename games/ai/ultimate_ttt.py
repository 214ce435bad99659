"""Computer player for Ultimate Tic-Tac-Toe.

* easy: one-move heuristic (win a small board, do not hand the opponent one,
  like the centre) with noise and a share of random moves, so it looks like it
  plays but leaves plenty of chances.
* medium: takes a game-winning move, then a short Monte Carlo tree search.
* hard: takes a game-winning move, refuses moves that let the opponent win at
  once (when it can), then Monte Carlo tree search until the deadline, with
  playouts that do not hand the opponent a board, starting from the tree its
  last search grew when the game went on from there.

The search runs on the engine's internals through ``UTTTAdapter``: moves are
internal cell indexes (``9 * board + sub``), states the engine's own
``UltimateTTTState`` built with ``play_index``. When numba is available the
search runs compiled (``games.ai._uttt_fast``), a few hundred times as many
iterations in the same time, with two additions of its own: an MCTS-Solver
(proven wins and losses) and playouts that win a small board when they can;
the Python search is the fallback.
"""

from __future__ import annotations

import time
from random import Random
from typing import Any

from games.ai._cores import load_core
from games.ai.mcts import search
from games.engines.ultimate_ttt import (
    CELL_INDEX,
    CELL_TOKENS,
    FULL9,
    WIN,
    UltimateTTTState,
    open_boards_mask,
    play_index,
)

# _FREE_IDX[b][free]: internal indexes of the cells of board b set in the 9-bit `free`.
_FREE_IDX: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(9 * b + c for c in range(9) if free >> c & 1) for free in range(512)) for b in range(9)
)
# Boards (0..8) whose bits are set in a 9-bit mask.
_BOARDS_OF: tuple[tuple[int, ...], ...] = tuple(tuple(b for b in range(9) if m >> b & 1) for m in range(512))
# _WINNING_CELLS[m]: cells c (0..8) outside m such that m | c holds a line.
_WINNING_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(9) if not m >> c & 1 and WIN[m | 1 << c]) for m in range(512)
)


def compiled_core() -> Any:
    """The numba core (``games.ai._uttt_fast``), or None when numba is unavailable or turned off."""
    return load_core("_uttt_fast")


def warm_up() -> None:
    """Run the compiled search once (loads numba's cached machine code, or compiles it)."""
    core = compiled_core()
    if core is not None:
        state = play_index(_initial(), 40)
        core.search(state, legal_indexes(state), 1, deadline=time.perf_counter() + 5.0, iterations=50)


def _initial() -> UltimateTTTState:
    return UltimateTTTState(0, 0, 0, -1, 0, 0, 0, 0)


def _search(
    state: UltimateTTTState,
    rng: Random,
    stop: float,
    iterations: int | None,
    root_moves: list[int],
    *,
    exploration: float = 1.0,
    reuse: bool = False,
    informed: bool = False,
) -> int:
    """The UCT search's move: compiled when possible, else ``games.ai.mcts``.

    ``reuse``: the compiled search starts from its last tree when this position is two plies
    below that tree's root (``games.ai._uttt_fast_tree``); ``informed``: its playouts avoid
    handing the opponent a board (``games.ai._uttt_fast_playout.informed_move``).
    """
    core = compiled_core()
    if core is not None:
        move: int
        move, _, _ = core.search(
            state,
            root_moves,
            rng.getrandbits(63),
            deadline=stop,
            iterations=iterations,
            exploration=exploration,
            reuse=reuse,
            informed=informed,
        )
        return move
    return search(UTTTAdapter, state, rng, deadline=stop, iterations=iterations, root_moves=root_moves).move


# Margin kept before the deadline for the work after the search.
_SAFETY = 0.01
# Iterations of the medium search (it also stops at its deadline).
MEDIUM_ITERATIONS = 300
# UCB1's exploration constant for Hard's compiled search: with the solver and the playouts that win
# boards, a narrower, deeper tree scored better against mcthouacbb/uttt (docs/performance.md,
# issue #28); the Python fallback and Medium keep 1.0.
HARD_EXPLORATION = 0.6


def legal_indexes(state: UltimateTTTState) -> list[int]:
    """The legal moves as internal cell indexes."""
    occupied = state.x | state.o
    moves: list[int] = []
    for b in _BOARDS_OF[open_boards_mask(state)]:
        moves.extend(_FREE_IDX[b][~(occupied >> 9 * b) & FULL9])
    return moves


def _result(state: UltimateTTTState) -> float | None:
    if WIN[state.won_x]:
        return 1.0
    if WIN[state.won_o]:
        return 0.0
    if state.closed == FULL9:
        return 0.5
    return None


class UTTTAdapter:
    """The MCTS view of the game (see ``games.ai.mcts.Adapter``)."""

    moves = staticmethod(legal_indexes)
    play = staticmethod(play_index)
    result = staticmethod(_result)

    @staticmethod
    def to_move(state: UltimateTTTState) -> int:
        return state.side

    @staticmethod
    def rollout(state: UltimateTTTState, rng: Random) -> float:
        """Uniformly random moves to the end; side 0's reward."""
        x, o, side, last = state.x, state.o, state.side, state.last
        won_x, won_o, closed = state.won_x, state.won_o, state.closed
        rand = rng.random
        free_idx, boards_of, win = _FREE_IDX, _BOARDS_OF, WIN
        while True:
            occupied = x | o
            target = last % 9 if last >= 0 else 9
            if target < 9 and not closed >> target & 1:
                cands: tuple[int, ...] | list[int] = free_idx[target][~(occupied >> 9 * target) & 511]
            else:
                cands = []
                for b in boards_of[511 & ~closed]:
                    cands += free_idx[b][~(occupied >> 9 * b) & 511]
            index = cands[int(rand() * len(cands))]
            board = index // 9
            shift = 9 * board
            if side == 0:
                x |= 1 << index
                if win[(x >> shift) & 511]:
                    won_x |= 1 << board
                    closed |= 1 << board
                    if win[won_x]:
                        return 1.0
                elif ((x | o) >> shift) & 511 == 511:
                    closed |= 1 << board
            else:
                o |= 1 << index
                if win[(o >> shift) & 511]:
                    won_o |= 1 << board
                    closed |= 1 << board
                    if win[won_o]:
                        return 0.0
                elif ((x | o) >> shift) & 511 == 511:
                    closed |= 1 << board
            if closed == 511:
                return 0.5
            side ^= 1
            last = index


# ---------------------------------------------------------------------------
# Tactics


def game_winning_cells(state: UltimateTTTState, side: int) -> set[int]:
    """Empty cells where ``side`` would win the game at once, wherever it is allowed to play."""
    own, won = (state.x, state.won_x) if side == 0 else (state.o, state.won_o)
    occupied = state.x | state.o
    cells: set[int] = set()
    for b in _BOARDS_OF[FULL9 & ~state.closed]:
        if WIN[won | 1 << b]:
            mine = (own >> 9 * b) & FULL9
            free = ~(occupied >> 9 * b) & FULL9
            cells.update(9 * b + c for c in _WINNING_CELLS[mine] if free >> c & 1)
    return cells


def winning_moves(state: UltimateTTTState, moves: list[int]) -> list[int]:
    """The moves among ``moves`` that win the game now."""
    cells = game_winning_cells(state, state.side)
    return [m for m in moves if m in cells]


def safe_moves(state: UltimateTTTState, moves: list[int]) -> list[int]:
    """The moves after which the opponent cannot win at once (all of them if none is safe)."""
    safe = []
    for m in moves:
        after = play_index(state, m)
        if _result(after) is not None:
            safe.append(m)
            continue
        threats = game_winning_cells(after, after.side)
        if not threats or not any(t in threats for t in legal_indexes(after)):
            safe.append(m)
    return safe or moves


# ---------------------------------------------------------------------------
# Easy: a noisy one-move heuristic


def _heuristic(state: UltimateTTTState, move: int) -> float:
    """One-move value: win a small board, like centres, do not hand the opponent a board."""
    sub = move % 9
    after = play_index(state, move)
    value = 0.0
    if (after.won_x, after.won_o) != (state.won_x, state.won_o):
        value += 10.0
    if sub == 4:
        value += 1.0
    if after.closed >> sub & 1:
        value -= 3.0  # the opponent gets a free choice
    else:
        # Can the opponent win the board it is sent to at once?
        opp = after.o if state.side == 0 else after.x
        free = ~((after.x | after.o) >> 9 * sub) & FULL9
        if any(free >> c & 1 for c in _WINNING_CELLS[(opp >> 9 * sub) & FULL9]):
            value -= 5.0
    return value


def _easy(state: UltimateTTTState, moves: list[int], rng: Random) -> int:
    # A share of plain random moves and a noisy heuristic: it looks like it plays,
    # but misses plenty.
    if rng.random() < 0.3:
        return rng.choice(moves)
    return max(moves, key=lambda m: _heuristic(state, m) + rng.uniform(0.0, 6.0))


# ---------------------------------------------------------------------------
# Entry point


def choose(
    engine: Any,
    state: UltimateTTTState,
    level: str,
    rng: Random,
    deadline: float,
    *,
    iterations: int | None = None,
) -> str:
    """A move token for ``level``; ``iterations`` caps the search (for reproducible tests)."""
    moves = legal_indexes(state)
    if not moves:
        raise ValueError("the game is over: there is no move to choose")
    if len(moves) == 1:
        return CELL_TOKENS[moves[0]]
    if level == "easy":
        return CELL_TOKENS[_easy(state, moves, rng)]
    wins = winning_moves(state, moves)
    if wins:
        return CELL_TOKENS[wins[0]]
    stop = deadline - _SAFETY
    if level == "medium":
        cap = MEDIUM_ITERATIONS if iterations is None else min(iterations, MEDIUM_ITERATIONS)
        return CELL_TOKENS[_search(state, rng, stop, cap, moves)]
    candidates = safe_moves(state, moves)
    if len(candidates) == 1:
        return CELL_TOKENS[candidates[0]]
    # A search capped by its iterations (the tests') starts afresh, so that it repeats itself.
    reuse = iterations is None
    return CELL_TOKENS[
        _search(
            state, rng, stop, iterations, candidates, exploration=HARD_EXPLORATION, reuse=reuse, informed=True
        )
    ]


__all__ = ["CELL_INDEX", "UTTTAdapter", "choose", "game_winning_cells", "legal_indexes", "safe_moves"]
