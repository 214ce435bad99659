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
"""

from __future__ import annotations

import math
import time
from random import Random
from typing import Any

from games.ai._cores import load_core
from games.ai.mcts import search
from games.engines.four_tac_toe import (
    CELL_LINE_MASKS,
    CELL_TOKENS,
    LINE_CELLS,
    LINE_MASKS,
    PLAYABLE,
    FourTacToeState,
    play_index,
)

# Each scoring line as (mask, cell, cell, cell).
LINE_TABLE: tuple[tuple[int, int, int, int], ...] = tuple(
    (m, *cells) for m, cells in zip(LINE_MASKS, LINE_CELLS, strict=True)
)

# _ROW_CELLS[row][bits]: the cells of display row `row` whose bits are set in the 9-bit `bits`.
_ROW_CELLS = tuple(
    tuple(tuple(9 * r + c for c in range(9) if bits >> c & 1) for bits in range(512)) for r in range(9)
)

_SAFETY = 0.01  # seconds kept before the deadline for the work after the search

# Heuristic weights per scoring line through a cell, by what is already on it.
W_COMPLETE = 100.0  # two of mine: this cell scores a point
W_BLOCK = 60.0  # two of theirs: this cell stops their point
W_TWO = 6.0  # one of mine: this cell makes a threat
W_KILL = 3.0  # one of theirs: this cell kills their line
W_OPEN = 1.0  # empty line: a start

# Share of easy's moves that are plain random.
EASY_RANDOM_SHARE = 0.5

# Progressive widening for the hard search: children allowed = K0 + visits ** ALPHA.
# Measured over 20-game matches against medium at 800 iterations: (2, 0.3) and
# plain UCT scored about 50 %, (3, 0.5) 70 %, (10, 0.65) 58 %, (6, 0.6) 85-90 %.
WIDENING = (6.0, 0.6)
EXPLORATION = 0.5
# Scale of the score difference in the playout reward (tanh), in lines.
REWARD_SCALE = 3.0
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


def free_cells(state: FourTacToeState) -> list[int]:
    """Internal indexes of the empty playable cells."""
    free = PLAYABLE & ~(state.x | state.o)
    cells: list[int] = []
    for row in range(9):
        cells += _ROW_CELLS[row][(free >> 9 * row) & 0x1FF]
    return cells


def gains(mine: int, theirs: int, cell: int) -> int:
    """Lines ``mine`` completes by taking ``cell`` (lines with two of its marks and no other)."""
    n = 0
    for m in CELL_LINE_MASKS[cell]:
        if not theirs & m and (mine & m).bit_count() == 2:
            n += 1
    return n


def cell_value(own: int, opp: int, cell: int) -> float:
    """One-move heuristic value of ``cell`` for the side owning ``own``."""
    value = 0.0
    for m in CELL_LINE_MASKS[cell]:
        theirs = opp & m
        mine = own & m
        if theirs:
            if not mine:
                value += W_BLOCK if theirs.bit_count() == 2 else W_KILL
        elif mine:
            value += W_COMPLETE if mine.bit_count() == 2 else W_TWO
        else:
            value += W_OPEN
    return value


def _own_opp(state: FourTacToeState) -> tuple[int, int]:
    return (state.x, state.o) if state.side == 0 else (state.o, state.x)


def tactical_candidates(state: FourTacToeState, cells: list[int]) -> list[int]:
    """The cells with the best "my points now minus the opponent's best points next".

    Taking a cell never changes the opponent's points at another cell (a line
    the opponent could finish elsewhere has no empty cell left for us), so the
    reply is just the best of the opponent's gains outside the cell we take.
    """
    values = tactical_values(state, cells)
    best = max(values)
    return [c for c, v in zip(cells, values, strict=True) if v == best]


def tactical_values(state: FourTacToeState, cells: list[int]) -> list[int]:
    """Each cell's "my points now minus the opponent's best points next" (``tactical_candidates``
    keeps the best; the analysis values the others by the points they give up)."""
    own, opp = _own_opp(state)
    mine = [gains(own, opp, c) for c in cells]
    theirs = [gains(opp, own, c) for c in cells]
    order = sorted(range(len(cells)), key=lambda i: -theirs[i])
    top = theirs[order[0]]
    second = theirs[order[1]] if len(order) > 1 else 0
    values = []
    for i in range(len(cells)):
        reply = second if i == order[0] else top
        values.append(mine[i] - reply)
    return values


def _result(state: FourTacToeState) -> float | None:
    if state.x | state.o != PLAYABLE:
        return None
    return _reward(state.score_x - state.score_o)


def _reward(diff: int) -> float:
    """Side 0's reward for a final score difference: mostly the result, a little the margin."""
    return 0.5 + 0.5 * math.tanh(diff / REWARD_SCALE)


def ordered_cells(
    state: FourTacToeState, lines: tuple[tuple[int, int, int, int], ...] = LINE_TABLE
) -> list[int]:
    """Free cells, best first by the one-move heuristic (``cell_value``).

    Works line by line rather than cell by cell: each line's weight is decided
    once and added to its three cells. ``lines`` may leave out lines known to be
    dead (the search passes the lines still alive at its root).
    """
    own, opp = _own_opp(state)
    value = [0.0] * 81
    for m, a, b, c in lines:
        theirs = opp & m
        mine = own & m
        if theirs:
            if mine:
                continue
            w = W_BLOCK if theirs.bit_count() == 2 else W_KILL
        elif mine:
            w = W_COMPLETE if mine.bit_count() == 2 else W_TWO
        else:
            w = W_OPEN
        value[a] += w
        value[b] += w
        value[c] += w
    cells = free_cells(state)
    cells.sort(key=value.__getitem__, reverse=True)
    return cells


# A line's state in a playout, as one small int: 0 empty, 1-3 that many X marks
# and no O, 4-6 one to three O marks and no X, 7 dead (both sides on it).
_AFTER = (
    (1, 2, 3, 7, 7, 7, 7, 7),  # code after an X mark
    (4, 7, 7, 7, 5, 6, 7, 7),  # code after an O mark
)
_THREAT = (2, 5)  # two of X's / two of O's marks: the third cell scores


def _line_code(x_marks: int, o_marks: int) -> int:
    if x_marks and o_marks:
        return 7
    return x_marks.bit_count() if x_marks else (3 + o_marks.bit_count() if o_marks else 0)


class FourTacToeAdapter:
    """The MCTS view of the game (see ``games.ai.mcts.Adapter``) for one search.

    Lines that hold marks of both sides at the root stay dead below it, so the
    playouts and the move ordering only look at the others.
    """

    play = staticmethod(play_index)
    result = staticmethod(_result)

    def __init__(self, root: FourTacToeState, playout: str = "tactical") -> None:
        self.root = root
        self.lines = tuple(t for t in LINE_TABLE if not (root.x & t[0] and root.o & t[0]))
        self.masks = tuple(t[0] for t in self.lines)
        if playout == "random":
            self.rollout = self._random_rollout  # type: ignore[method-assign]
        # Local line ids through each cell, and the root's line codes and threat
        # counts, copied by every tactical playout.
        cell_lines: list[list[int]] = [[] for _ in range(81)]
        for k, (_m, a, b, c) in enumerate(self.lines):
            cell_lines[a].append(k)
            cell_lines[b].append(k)
            cell_lines[c].append(k)
        self.cell_lines = tuple(tuple(ids) for ids in cell_lines)
        occupied = root.x | root.o
        self.codes = [_line_code(root.x & m, root.o & m) for m in self.masks]
        threats: tuple[list[int], list[int]] = ([0] * 81, [0] * 81)
        for k, m in enumerate(self.masks):
            if self.codes[k] in _THREAT:
                threats[_THREAT.index(self.codes[k])][(m & ~occupied).bit_length() - 1] += 1
        self.threats = threats

    @staticmethod
    def to_move(state: FourTacToeState) -> int:
        return state.side

    def moves(self, state: FourTacToeState) -> list[int]:
        return ordered_cells(state, self.lines)

    def rollout(self, state: FourTacToeState, rng: Random) -> float:
        """Play to the end: cash your threats, else block theirs, else a random cell."""
        return _reward(self.playout(state, rng)[0])

    def playout(self, state: FourTacToeState, rng: Random) -> tuple[int, int, int]:
        """The tactical playout behind ``rollout``: final score difference and final marks.

        Line counts and threat counts start from copies of the root's and follow
        the marks added since the root, then every playout move, incrementally.
        """
        codes = self.codes[:]
        gains = (self.threats[0][:], self.threats[1][:])
        threats = ({c for c in range(81) if gains[0][c]}, {c for c in range(81) if gains[1][c]})
        masks, cell_lines = self.masks, self.cell_lines
        occupied = self.root.x | self.root.o
        xs = state.x
        # Marks added between the root and this node: update codes and threats only.
        for side, added in ((0, state.x & ~self.root.x), (1, state.o & ~self.root.o)):
            after, two, g, t = _AFTER[side], _THREAT[side], gains[side], threats[side]
            while added:
                bit = added & -added
                added ^= bit
                occupied |= bit
                for k in cell_lines[bit.bit_length() - 1]:
                    v = codes[k] = after[codes[k]]
                    if v == two:
                        empty = (masks[k] & ~occupied).bit_length() - 1
                        g[empty] += 1
                        t.add(empty)
        t0, t1 = threats
        for t in threats:
            t.difference_update([c for c in t if occupied >> c & 1])
        free = free_cells(state)
        where = [0] * 81
        for i, c in enumerate(free):
            where[c] = i
        diff = state.score_x - state.score_o
        side = state.side
        rand = rng.random
        while free:
            mine, theirs = threats[side], threats[1 - side]
            if mine:
                g = gains[side]
                cell = max(mine, key=g.__getitem__)
                diff += g[cell] if side == 0 else -g[cell]
            elif theirs:
                cell = max(theirs, key=gains[1 - side].__getitem__)
            else:
                cell = free[int(rand() * len(free))]
            # Swap-remove the cell from the free list.
            i = where[cell]
            last = free.pop()
            if last != cell:
                free[i] = last
                where[last] = i
            occupied |= 1 << cell
            t0.discard(cell)
            t1.discard(cell)
            after, two, g, t = _AFTER[side], _THREAT[side], gains[side], threats[side]
            for k in cell_lines[cell]:
                v = codes[k] = after[codes[k]]
                if v == two:
                    empty = (masks[k] & ~occupied).bit_length() - 1
                    g[empty] += 1
                    t.add(empty)
            if side == 0:
                xs |= 1 << cell
            side ^= 1
        return diff, xs, occupied & ~xs

    def _random_rollout(self, state: FourTacToeState, rng: Random) -> float:
        """Deal the free cells out at random (the side to move gets the odd one) and count."""
        free = PLAYABLE & ~(state.x | state.o)
        want = (free.bit_count() + 1) // 2
        bits = rng.getrandbits
        # Rejection sampling: a uniformly random subset of exactly `want` cells,
        # far cheaper than shuffling a list in Python.
        while True:
            mover = free & bits(81)
            if mover.bit_count() == want:
                break
        waiter = free ^ mover
        if state.side == 0:
            x, o = state.x | mover, state.o | waiter
        else:
            x, o = state.x | waiter, state.o | mover
        diff = 0
        for m in self.masks:
            if x & m == m:
                diff += 1
            elif o & m == m:
                diff -= 1
        return _reward(diff)


def _easy(state: FourTacToeState, cells: list[int], rng: Random) -> int:
    # Half of the moves are random and the rest look through a heavy noise, so
    # easy often misses a point or a block, as a beginner would.
    if rng.random() < EASY_RANDOM_SHARE:
        return rng.choice(cells)
    own, opp = _own_opp(state)
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
    own, opp = _own_opp(state)
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
