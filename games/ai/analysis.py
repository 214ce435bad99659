"""Post-game computer analysis: evaluate every position, judge every move.

Pure (no Django), on the engines and the computer players' public pieces only.

One scale for all five games: **winning chances** from -1 (the second player
wins) to +1 (the first player wins), 0 for even. Each game's search gives a
score from the point of view of the side to move; ``_chances`` maps it onto
that scale (a logistic curve per game; a proven result is exactly -1, 0 or +1).

The budget per position is fixed, never a clock, so the same game always gets
the same analysis (``BUDGET`` below):

* Reversi: a negamax of ``depth`` plies with the hard level's evaluation
  (``games.ai.reversi.evaluate_hard``), and the exact endgame solver
  (``solve_endgame``) from ``EXACT_EMPTIES`` (14) empty squares on.
* Ataxx: a negamax of ``depth`` plies on the piece difference.
* Quantum TTT: a negamax of ``depth`` plies (a collapse costs no depth) with
  the computer player's evaluation; forced wins within the horizon are +-1.
* Ultimate TTT and Four Tac Toe: the computer player's Monte Carlo tree search
  with a fixed number of ``iterations`` and a fixed seed.

A move is judged by the drop in the mover's winning chances between the
position before it (best play) and the position after it. The thresholds are
lichess's: 0.1 an inaccuracy, 0.2 a mistake, 0.3 a blunder (on the -1..+1
scale, i.e. 5, 10 and 15 points of winning percentage). A move that was the
only legal one, or the search's own best move, is never an error. A move's accuracy is lichess's formula on
the winning percentage lost, ``103.1668 * exp(-0.04354 * loss%) - 3.1669``
clamped to 0..100; a player's accuracy is the mean over their moves that had
a choice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from games.engines.base import Engine

# Drop in the mover's winning chances (scale -1..+1) from which a move is each kind of error.
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.3), ("mistake", 0.2), ("inaccuracy", 0.1))
KINDS: tuple[str, ...] = ("inaccuracy", "mistake", "blunder")
EXACT_EMPTIES = 14  # Reversi: exact solving from this many empty squares on
LINE_LENGTH = 4  # plies shown of the line that follows a better move
SEED = 20_240_517  # the Monte Carlo searches' fixed seed

# The fixed budget per position (see the module docstring). Tuned so that a
# whole game takes well under 30 s on one core; bench/analysis.py measures it.
BUDGET: dict[str, dict[str, int]] = {
    "reversi": {"depth": 6},
    "ataxx": {"depth": 4},
    "quantum_ttt": {"depth": 4},
    "ultimate_ttt": {"iterations": 3000},
    "four_tac_toe": {"iterations": 1000},
}
# Score units per unit of the logistic: chances = tanh(score / (2 * SCALE)).
SCALE: dict[str, float] = {"reversi": 50.0, "ataxx": 8.0, "quantum_ttt": 12.0}
_WIN = 1_000_000  # a won game within the horizon (minus its distance in plies)


@dataclass(frozen=True)
class PositionEval:
    """The analysis of one position.

    ``chances``: winning chances for side 0 (-1..+1) with best play.
    ``best``: a best move for the side to move (None when the game is over).
    ``line``: the line that follows, starting with ``best``.
    ``exact``: Reversi from ``EXACT_EMPTIES`` on: the final disc difference for
    side 0 with perfect play (None elsewhere).
    """

    chances: float
    best: str | None
    line: tuple[str, ...] = ()
    exact: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "chances": round(self.chances, 4),
            "best": self.best,
            "line": list(self.line),
            "exact": self.exact,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PositionEval:
        return cls(float(data["chances"]), data.get("best"), tuple(data.get("line") or ()), data.get("exact"))


@dataclass(frozen=True)
class MoveJudgement:
    """How the move from one position to the next was judged (for its mover)."""

    ply: int
    side: int
    move: str
    drop: float  # loss of the mover's winning chances (>= 0)
    kind: str | None  # "inaccuracy", "mistake", "blunder" or None
    accuracy: float  # 0..100
    best: str | None  # the better move when the move was an error or lost discs
    line: tuple[str, ...] = ()
    exact_loss: int | None = None  # Reversi exact phase: discs lost against perfect play (0 = perfect)
    forced: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "side": self.side,
            "move": self.move,
            "drop": round(self.drop, 4),
            "kind": self.kind,
            "accuracy": round(self.accuracy, 1),
            "best": self.best,
            "line": list(self.line),
            "exact_loss": self.exact_loss,
            "forced": self.forced,
        }


@dataclass
class PlayerSummary:
    accuracy: float | None = None
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
            "counts": dict(self.counts),
        }


# ---------------------------------------------------------------------------
# The maths


def chances_from_score(score: float, scale: float) -> float:
    """Winning chances (-1..+1) of a search score for the same side (logistic)."""
    return math.tanh(score / (2.0 * scale))


def classify(drop: float) -> str | None:
    """The kind of error a drop in the mover's winning chances is, or None."""
    for kind, threshold in THRESHOLDS:
        if drop >= threshold - 1e-9:
            return kind
    return None


def move_accuracy(drop: float) -> float:
    """lichess's per-move accuracy from the winning percentage lost."""
    loss = max(0.0, drop) * 50.0  # chances -1..+1 -> percentage points 0..100
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def judge_move(
    ply: int, side: int, move: str, before: PositionEval, after: PositionEval, *, forced: bool
) -> MoveJudgement:
    """Judge the move ``move`` by ``side`` that led from ``before`` to ``after``."""
    sign = 1.0 if side == 0 else -1.0
    drop = max(0.0, sign * (before.chances - after.chances))
    exact_loss = None
    if before.exact is not None and after.exact is not None:
        exact_loss = max(0, int(sign * (before.exact - after.exact)))
    if forced or move == before.best:  # the search's own choice is never an error
        drop = 0.0
    kind = None if forced else classify(drop)
    shows_better = (kind is not None or bool(exact_loss)) and before.best not in (None, move)
    return MoveJudgement(
        ply=ply,
        side=side,
        move=move,
        drop=drop,
        kind=kind,
        accuracy=move_accuracy(drop),
        best=before.best if shows_better else None,
        line=before.line if shows_better else (),
        exact_loss=exact_loss,
        forced=forced,
    )


def summarize(judgements: Sequence[MoveJudgement]) -> tuple[PlayerSummary, PlayerSummary]:
    """Accuracy (mean over moves with a choice) and error counts of each side."""
    out = (PlayerSummary(), PlayerSummary())
    for side in (0, 1):
        mine = [j for j in judgements if j.side == side and not j.forced]
        if mine:
            out[side].accuracy = sum(j.accuracy for j in mine) / len(mine)
        for j in mine:
            if j.kind:
                out[side].counts[j.kind] += 1
    return out


# ---------------------------------------------------------------------------
# Evaluating one position


def _terminal(engine: Engine, state: Any) -> PositionEval | None:
    outcome = engine.outcome(state)
    if outcome is None:
        return None
    chances = 0.0 if outcome.winner is None else (1.0 if outcome.winner == 0 else -1.0)
    exact = None
    if engine.slug == "reversi":
        black, white = outcome.score
        diff = black - white
        empties = 64 - black - white  # empty squares go to the winner
        exact = diff + empties if diff > 0 else diff - empties if diff < 0 else 0
    return PositionEval(chances, None, (), exact)


class _Negamax:
    """A fixed-depth alpha-beta search over the engine contract.

    ``static(state)`` scores a position for its side to move; ``free(move)``
    says a move costs no depth (passes, Quantum TTT's collapses). A move after
    which the same side moves again keeps the score's sign.
    """

    def __init__(self, engine: Engine, static: Callable[[Any], float], free: Callable[[str], bool]) -> None:
        self.engine = engine
        self.static = static
        self.free = free
        self.nodes = 0

    def _ordered(self, state: Any, moves: list[str], me: int) -> list[str]:
        """Most promising first (by the static score after the move), so alpha-beta cuts early."""
        engine, keyed = self.engine, []
        for index, move in enumerate(moves):
            child = engine.play(state, move)
            done = engine.outcome(child)
            if done is not None:
                key = -_WIN if done.winner == me else _WIN if done.winner is not None else 0.0
            else:
                key = self.static(child) * (1 if engine.to_move(child) != me else -1)
            keyed.append((key, index, move))
        keyed.sort()
        return [move for _, _, move in keyed]

    def search(self, state: Any, depth: int, alpha: float, beta: float, ply: int) -> tuple[float, list[str]]:
        self.nodes += 1
        engine = self.engine
        me = engine.to_move(state)
        moves = engine.legal_moves(state)
        if depth <= 0 and not (len(moves) == 1 and self.free(moves[0])):
            return self.static(state), []
        if depth >= 2 and len(moves) > 1:
            moves = self._ordered(state, moves, me)
        best_value, best_line = -math.inf, []
        for move in moves:
            child = engine.play(state, move)
            cost = 0 if self.free(move) else 1
            done = engine.outcome(child)
            if done is not None:  # scored here: a finished game's side to move means nothing
                value = (
                    0.0 if done.winner is None else _WIN - ply - 1 if done.winner == me else ply + 1 - _WIN
                )
                line: list[str] = []
            elif engine.to_move(child) == me:
                value, line = self.search(child, depth - cost, alpha, beta, ply + 1)
            else:
                value, line = self.search(child, depth - cost, -beta, -alpha, ply + 1)
                value = -value
            if value > best_value:
                best_value, best_line = value, [move, *line]
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best_value, best_line


def _negamax_eval(engine: Engine, state: Any, searcher: _Negamax, depth: int, scale: float) -> PositionEval:
    value, line = searcher.search(state, depth, -math.inf, math.inf, 0)
    if abs(value) >= _WIN - 1_000:
        mover_chances = 1.0 if value > 0 else -1.0
    else:
        mover_chances = chances_from_score(value, scale)
    sign = 1.0 if engine.to_move(state) == 0 else -1.0
    return PositionEval(sign * mover_chances, line[0] if line else None, tuple(line[:LINE_LENGTH]))


# Reversi ---------------------------------------------------------------------


def _reversi_sides(state: Any, side: int) -> tuple[int, int]:
    return (state.black, state.white) if side == 0 else (state.white, state.black)


def _reversi(engine: Engine, state: Any, *, depth: int) -> PositionEval:
    from games.ai.reversi import evaluate_hard, solve_endgame

    me = engine.to_move(state)
    own, opp = _reversi_sides(state, me)
    if 64 - (own | opp).bit_count() <= EXACT_EMPTIES:
        sign = 1 if me == 0 else -1
        score, best = solve_endgame(own, opp)
        line = [best] if best else []
        probe = state
        while best and len(line) < LINE_LENGTH:  # the perfect line: solving gets cheaper each ply
            probe = engine.play(probe, best)
            if engine.outcome(probe) is not None:
                break
            p_own, p_opp = _reversi_sides(probe, engine.to_move(probe))
            _, best = solve_endgame(p_own, p_opp)
            if best:
                line.append(best)
        chances = 0.0 if score == 0 else (1.0 if score > 0 else -1.0)
        return PositionEval(sign * chances, line[0] if line else None, tuple(line), sign * score)

    def static(s: Any) -> float:
        return evaluate_hard(*_reversi_sides(s, engine.to_move(s)))

    searcher = _Negamax(engine, static, lambda m: m == engine.pass_move)
    return _negamax_eval(engine, state, searcher, depth, SCALE["reversi"])


# Ataxx -----------------------------------------------------------------------


def _ataxx(engine: Engine, state: Any, *, depth: int) -> PositionEval:
    def static(s: Any) -> float:
        me: int
        opp: int
        me, opp = s.mover()
        return me.bit_count() - opp.bit_count()

    searcher = _Negamax(engine, static, lambda m: m == engine.pass_move)
    return _negamax_eval(engine, state, searcher, depth, SCALE["ataxx"])


# Quantum TTT -----------------------------------------------------------------


def _quantum_ttt(engine: Engine, state: Any, *, depth: int) -> PositionEval:
    from games.ai.quantum_ttt import evaluate

    def static(s: Any) -> float:
        return evaluate(s, engine.to_move(s))

    searcher = _Negamax(engine, static, lambda m: m.startswith("@"))
    return _negamax_eval(engine, state, searcher, depth, SCALE["quantum_ttt"])


# Monte Carlo games -----------------------------------------------------------


def _mcts_best(engine: Engine, state: Any, iterations: int) -> tuple[float, str]:
    """(winning chances for the side to move, best move) by the computer player's MCTS."""
    from games.ai.mcts import search

    rng = Random(SEED)
    if engine.slug == "ultimate_ttt":
        from games.ai.ultimate_ttt import UTTTAdapter, legal_indexes, safe_moves
        from games.engines.ultimate_ttt import CELL_TOKENS

        moves = legal_indexes(state)
        for index in moves:  # a move that wins the game on the spot
            after = engine.outcome(engine.play(state, CELL_TOKENS[index]))
            if after is not None and after.winner == engine.to_move(state):
                return 1.0, CELL_TOKENS[index]
        candidates = safe_moves(state, moves) or moves
        if len(candidates) == 1:
            return _after_only_move(engine, state, CELL_TOKENS[candidates[0]], iterations)
        result = search(UTTTAdapter, state, rng, iterations=iterations, root_moves=candidates)
        return 2.0 * result.value - 1.0, CELL_TOKENS[result.move]
    from games.ai.four_tac_toe import (
        EXPLORATION,
        WIDENING,
        FourTacToeAdapter,
        cell_value,
        free_cells,
        tactical_candidates,
    )
    from games.engines.four_tac_toe import CELL_TOKENS as FTT_TOKENS

    cells = tactical_candidates(state, free_cells(state))
    if len(cells) == 1:
        return _after_only_move(engine, state, FTT_TOKENS[cells[0]], iterations)
    own, opp = (state.x, state.o) if state.side == 0 else (state.o, state.x)
    ranked = sorted(cells, key=lambda c: -cell_value(own, opp, c))
    result = search(
        FourTacToeAdapter(state),
        state,
        rng,
        iterations=iterations,
        exploration=EXPLORATION,
        widening=WIDENING,
        root_moves=ranked,
    )
    return 2.0 * result.value - 1.0, FTT_TOKENS[result.move]


def _after_only_move(engine: Engine, state: Any, move: str, iterations: int) -> tuple[float, str]:
    """A single sensible move: the position is worth what the position after it is."""
    child = engine.play(state, move)
    done = _terminal(engine, child)
    me = engine.to_move(state)
    if done is not None:
        return (done.chances if me == 0 else -done.chances), move
    value, _ = _mcts_best(engine, child, iterations)
    return (value if engine.to_move(child) == me else -value), move


def _mcts(engine: Engine, state: Any, *, iterations: int) -> PositionEval:
    # A tree search is optimistic for the side it searches for, so a position's
    # value is the mean of the mover's search here and the opponent's search
    # after the best move: the two biases cancel.
    me = engine.to_move(state)
    mover_chances, best = _mcts_best(engine, state, iterations)
    line, probe = [best], engine.play(state, best)
    done = _terminal(engine, probe)
    if done is not None:
        mover_chances = done.chances if me == 0 else -done.chances
    else:
        reply_chances, _ = _mcts_best(engine, probe, iterations)
        mover_chances = (
            mover_chances + (reply_chances if engine.to_move(probe) == me else -reply_chances)
        ) / 2
    sign = 1.0 if me == 0 else -1.0
    while len(line) < LINE_LENGTH and engine.outcome(probe) is None:  # a cheaper search for the line
        _, reply = _mcts_best(engine, probe, max(20, iterations // 8))
        line.append(reply)
        probe = engine.play(probe, reply)
    return PositionEval(sign * max(-1.0, min(1.0, mover_chances)), best, tuple(line))


_EVALUATORS: dict[str, Callable[..., PositionEval]] = {
    "reversi": _reversi,
    "ataxx": _ataxx,
    "quantum_ttt": _quantum_ttt,
    "ultimate_ttt": _mcts,
    "four_tac_toe": _mcts,
}


def evaluate(engine: Engine, state: Any, budget: dict[str, int] | None = None) -> PositionEval:
    """Winning chances, best move and line of ``state`` at the game's fixed budget."""
    done = _terminal(engine, state)
    if done is not None:
        return done
    return _EVALUATORS[engine.slug](engine, state, **(budget or BUDGET[engine.slug]))


def judge_game(
    engine: Engine, moves: Sequence[str], evals: Sequence[PositionEval], start: Any | None = None
) -> list[MoveJudgement]:
    """Judge every move of a game from the evaluations of its positions (one more than moves)."""
    if len(evals) != len(moves) + 1:
        raise ValueError("need one evaluation per position: one more than the moves")
    state = engine.initial() if start is None else start
    out = []
    for ply, move in enumerate(moves):
        side = engine.to_move(state)
        forced = len(engine.legal_moves(state)) == 1
        out.append(judge_move(ply, side, move, evals[ply], evals[ply + 1], forced=forced))
        state = engine.play(state, move)
    return out
