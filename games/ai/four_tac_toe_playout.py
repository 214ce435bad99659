"""Four Tac Toe's Monte Carlo tree search view: ``FourTacToeAdapter`` and its playouts.

The adapter (``games.ai.mcts.Adapter``) orders moves by the one-move heuristic
(``games.ai.four_tac_toe_tactics``) and plays *tactical playouts*: each side cashes its best
threat, else blocks the opponent's, else plays a random cell, to the full board, keeping per-line
codes and per-cell threat counts incrementally from tables built once per search at its root.
``playout="random"`` swaps in the cheaper random fill, kept for comparison. The reward is
``0.5 + 0.5 * tanh(score difference / REWARD_SCALE)``. The player is ``games.ai.four_tac_toe``.
"""

from __future__ import annotations

import math
from random import Random

from games.ai.four_tac_toe_tactics import LINE_TABLE, free_cells, ordered_cells
from games.engines.four_tac_toe import PLAYABLE, FourTacToeState, play_index

# Scale of the score difference in the playout reward (tanh), in lines.
REWARD_SCALE = 3.0


def _result(state: FourTacToeState) -> float | None:
    if state.x | state.o != PLAYABLE:
        return None
    return _reward(state.score_x - state.score_o)


def _reward(diff: int) -> float:
    """Side 0's reward for a final score difference: mostly the result, a little the margin."""
    return 0.5 + 0.5 * math.tanh(diff / REWARD_SCALE)


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
