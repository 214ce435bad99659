"""Ataxx computer player: greedy with noise (easy), alpha-beta (medium, hard).

The search works straight on the engine's bitboards from the mover's point of
view, ``(me, opp)``, and only turns the chosen (from, to) pair into a token at
the end.

* hard: iterative deepening to the deadline; the best root move of the last
  iteration (one cut short counts as far as it went on the compiled core).
* medium: the same search capped at two plies.
* easy: one ply, material gain plus noise, and now and then any legal move.

With numba the whole search runs on the compiled core ``games.ai._ataxx_fast``:
a selective principal variation search (null move, jumps that take little left
out near the horizon, late move reductions, killer and history ordering) on an
evaluation of material, tempo, exposed and edge pieces. In a quarter of a
second it reaches depth 8-12 in the middle game where the plain search below,
compiled, reached 6-9.

Without numba (or with ``GAMES_AI_PURE_PYTHON=1``) this module's own search
plays: negamax alpha-beta on the piece difference with a transposition table
and moves ordered by material gained (each capture counts two, a clone one
more); finished games score +-``WIN`` minus the ply count so the quickest win
(and the slowest loss) is preferred, and a node one ply above the horizon is
scored directly as "piece difference after my best immediate gain".
"""

from __future__ import annotations

import random
import time
from typing import Any

from games.ai._cores import load_core
from games.engines.ataxx import (
    FULL,
    HALFMOVE_LIMIT,
    JUMP_RING,
    NEIGHBOURS,
    REPETITIONS,
    dilate,
    move_token,
    position_key,
)
from games.engines.base import Engine
from games.engines.grid import bits

WIN = 100_000
_MATE_BOUND = WIN - 1_000  # scores beyond this are finished games
_EXACT, _LOWER, _UPPER = 0, 1, 2
MEDIUM_DEPTH = 2
MAX_DEPTH = 60
_CHECK_EVERY = 64  # nodes between two looks at the clock (a node one ply up lists ~80 moves)
# Stop this much before the deadline: dropping a big transposition table and the
# caller's own work take a few milliseconds too.
_SAFETY_SHARE, _SAFETY_MAX = 0.1, 0.05
# Don't start another iteration when this share of the budget is gone: the next
# depth costs several times the last one and would only be thrown away.
_NEXT_ITERATION_SHARE = 0.3
# On the compiled core a cut-short iteration still counts (see ``_ataxx_fast.search``): start later ones.
_NEXT_ITERATION_SHARE_COMPILED = 0.5
EASY_RANDOM_SHARE = 0.2
EASY_NOISE = 1.5
Move = tuple[int, int]  # (from, to); from == to for a clone
# Ataxx engines speak UAI (the Universal Ataxx Interface, UCI's shape) besides UGI: games.ai.ugi
# answers ``uai`` for a player that says so.
SPEAKS_UAI = True


class _OutOfTime(Exception):
    pass


def compiled_core() -> Any:
    """The numba core (``games.ai._ataxx_fast``), or None when numba is unavailable or turned off."""
    return load_core("_ataxx_fast")


def warm_up() -> None:
    """Run the compiled functions once (loads numba's cached machine code, or compiles it)."""
    core = compiled_core()
    if core is None:
        return
    me, opp = (1 << 48) | 1, (1 << 42) | (1 << 6)  # the start, x to move
    core.perft(core.U(me), core.U(opp), 2)
    Search(time.perf_counter() + 5.0).best_move(me, opp, root_moves(me, opp, random.Random(0)), 3)


def choose(engine: Engine, state: Any, level: str, rng: random.Random, deadline: float) -> str:
    """A legal move token for the side to move (the game must not be over)."""
    me, opp = state.mover()
    moves = _avoid_drawing(state, me, opp, root_moves(me, opp, rng))
    if not moves:
        return engine.pass_move or "0000"
    if level == "easy":
        frm, to = _easy(me, opp, moves, rng)
    else:
        max_depth = MEDIUM_DEPTH if level == "medium" else MAX_DEPTH
        frm, to = Search(deadline).best_move(me, opp, moves, max_depth)
    return move_token(frm, to)


def _avoid_drawing(state: Any, me: int, opp: int, moves: list[Move]) -> list[Move]:
    """Without the moves that draw at once by rule (SPEC 1.2) when the mover has more pieces.

    The searches below know nothing of the 100-ply and repetition draws (a
    deliberate simplification: their tables key on the pieces alone); this root
    filter keeps a player who is ahead from stepping into such a draw. It is cheap:
    it looks one ply ahead, and only when a draw is that close.
    """
    history = getattr(state, "history", ())
    if me.bit_count() <= opp.bit_count() or not (state.halfmove >= HALFMOVE_LIMIT - 1 or len(history) >= 2):
        return moves
    side = state.side
    seen = (*history, state.key())
    keep = []
    for frm, to in moves:
        if frm == to:
            keep.append((frm, to))  # a clone starts both counts again
            continue
        nxt, mine = _apply(me, opp, (frm, to))
        x, o = (mine, nxt) if side == 0 else (nxt, mine)
        if state.halfmove + 1 < HALFMOVE_LIMIT and seen.count(position_key(x, o, 1 - side)) < REPETITIONS - 1:
            keep.append((frm, to))
    return keep or moves


def root_moves(me: int, opp: int, rng: random.Random) -> list[Move]:
    """All moves, best-looking first; ties in an order drawn from ``rng``."""
    empty = FULL ^ (me | opp)
    moves = [(to, to) for to in bits(dilate(me) & empty)]
    for frm in bits(me):
        moves.extend((frm, to) for to in bits(JUMP_RING[frm] & empty))
    rng.shuffle(moves)
    moves.sort(key=lambda m: _gain(opp, m), reverse=True)
    return moves


def _gain(opp: int, move: Move) -> int:
    """Change in piece difference: each capture counts twice, a clone adds one."""
    frm, to = move
    return 2 * (NEIGHBOURS[to] & opp).bit_count() + (frm == to)


def _easy(me: int, opp: int, moves: list[Move], rng: random.Random) -> Move:
    if rng.random() < EASY_RANDOM_SHARE:
        return rng.choice(moves)
    return max(moves, key=lambda m: _gain(opp, m) + rng.gauss(0.0, EASY_NOISE))


class Search:
    """One alpha-beta search; the transposition table lives as long as it does."""

    def __init__(self, deadline: float) -> None:
        margin = min(_SAFETY_MAX, _SAFETY_SHARE * max(0.0, deadline - time.perf_counter()))
        self.deadline = deadline - margin
        self.nodes = 0
        self.depth_reached = 0
        # key -> (depth, value, bound, best move or None)
        self.table: dict[int, tuple[int, int, int, Move | None]] = {}
        self.horizon_hit = False
        core = compiled_core()
        self.fast = core.Searcher(self.deadline) if core is not None else None

    def best_move(self, me: int, opp: int, moves: list[Move], max_depth: int) -> Move:
        """Best root move of the deepest iteration completed before the deadline."""
        started = time.perf_counter()
        if self.fast is not None:
            # The whole iterative deepening runs on the compiled core, a stronger search than
            # the one below (see ``games.ai._ataxx_fast``); a cut-short iteration counts there.
            soft_stop = started + _NEXT_ITERATION_SHARE_COMPILED * (self.deadline - started)
            code = self.fast.best_move(me, opp, [frm * 64 + to for frm, to in moves], max_depth, soft_stop)
            self.nodes = self.fast.nodes
            self.depth_reached = self.fast.depth_reached
            return code >> 6, code & 63
        best = moves[0]
        for depth in range(1, max_depth + 1):
            self.horizon_hit = False
            try:
                value, move = self._root(me, opp, moves, depth)
            except _OutOfTime:
                break
            best = move
            self.depth_reached = depth
            moves.remove(move)
            moves.insert(0, move)
            if not self.horizon_hit or abs(value) > _MATE_BOUND:
                break  # exact: every line reached the end of the game
            if time.perf_counter() - started > _NEXT_ITERATION_SHARE * (self.deadline - started):
                break
        return best

    def _root(self, me: int, opp: int, moves: list[Move], depth: int) -> tuple[int, Move]:
        alpha, beta = -WIN - 1, WIN + 1
        best = moves[0]
        for move in moves:
            nxt, mine = _apply(me, opp, move)
            value = -self._negamax(nxt, mine, depth - 1, -beta, -alpha, 1)
            if value > alpha:
                alpha, best = value, move
        return alpha, best

    def _negamax(self, me: int, opp: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes % _CHECK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise _OutOfTime
        occupied = me | opp
        if not (me and opp and occupied != FULL):
            return _final(me, opp, ply)
        if depth == 0:
            self.horizon_hit = True
            return me.bit_count() - opp.bit_count()
        empty = FULL ^ occupied
        clones = dilate(me) & empty
        reach = dilate(dilate(me)) & empty  # within two steps: clones and jumps
        if not reach:  # forced pass; the opponent can always move then
            return -self._negamax(opp, me, depth - 1, -beta, -alpha, ply + 1)
        if depth == 1 and empty & (empty - 1):
            return self._best_gain(me, opp, clones, reach, ply)

        key = me << 49 | opp
        entry = self.table.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_value, bound, tt_move = entry
            if e_depth >= depth:
                e_value = _from_table(e_value, ply)
                # The stored line may have stopped at a horizon: not an exact result.
                self.horizon_hit = self.horizon_hit or abs(e_value) <= _MATE_BOUND
                if bound == _EXACT:
                    return e_value
                if bound == _LOWER and e_value >= beta:
                    return e_value
                if bound == _UPPER and e_value <= alpha:
                    return e_value

        moves = _ordered(me, opp, clones, empty, tt_move)
        alpha_start = alpha
        best_value, best_move = -WIN - 1, moves[0]
        for move in moves:
            frm, to = move
            flips = NEIGHBOURS[to] & opp
            mine = me | 1 << to | flips if frm == to else (me ^ (1 << frm)) | 1 << to | flips
            value = -self._negamax(opp ^ flips, mine, depth - 1, -beta, -alpha, ply + 1)
            if value > best_value:
                best_value, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        bound = _LOWER if best_value >= beta else _UPPER if best_value <= alpha_start else _EXACT
        self.table[key] = (depth, _to_table(best_value, ply), bound, best_move)
        return best_value

    def _best_gain(self, me: int, opp: int, clones: int, reach: int, ply: int) -> int:
        """Value of a node one ply above the horizon: material after the best gain.

        Exact except for a move that ends the game, which is checked here: a
        capture of every enemy piece. (Filling the board needs a single empty
        square, a case the caller searches normally.)
        """
        self.horizon_hit = True
        best_clone = max((NEIGHBOURS[to] & opp).bit_count() for to in bits(clones)) if clones else -1
        jumps_only = reach & ~clones
        best_jump = max((NEIGHBOURS[to] & opp).bit_count() for to in bits(jumps_only)) if jumps_only else -1
        enemies = opp.bit_count()
        if max(best_clone, best_jump) == enemies:
            return WIN - ply - 1
        gain = max(2 * best_clone + 1, 2 * best_jump)
        return me.bit_count() - enemies + gain


def _apply(me: int, opp: int, move: Move) -> tuple[int, int]:
    frm, to = move
    flips = NEIGHBOURS[to] & opp
    mine = me | 1 << to | flips if frm == to else (me ^ (1 << frm)) | 1 << to | flips
    return opp ^ flips, mine


def _ordered(me: int, opp: int, clones: int, empty: int, first: Move | None) -> list[Move]:
    """Moves by material gained (clones one ahead of equal jumps), ``first`` first."""
    scored = [((NEIGHBOURS[to] & opp).bit_count() * 2 + 1, to, to) for to in bits(clones)]
    for frm in bits(me):
        for to in bits(JUMP_RING[frm] & empty):
            scored.append(((NEIGHBOURS[to] & opp).bit_count() * 2, frm, to))
    scored.sort(reverse=True)
    moves = [(frm, to) for _, frm, to in scored]
    if first is not None:
        moves.remove(first)
        moves.insert(0, first)
    return moves


def _final(me: int, opp: int, ply: int) -> int:
    """Score of a finished game for the side to move: quicker wins are better."""
    diff = me.bit_count() - opp.bit_count()
    if diff > 0:
        return WIN - ply
    if diff < 0:
        return -WIN + ply
    return 0


def _to_table(value: int, ply: int) -> int:
    """Finished-game scores are stored relative to the node, not the root."""
    if value > _MATE_BOUND:
        return value + ply
    if value < -_MATE_BOUND:
        return value - ply
    return value


def _from_table(value: int, ply: int) -> int:
    if value > _MATE_BOUND:
        return value - ply
    if value < -_MATE_BOUND:
        return value + ply
    return value
