"""Post-game computer analysis: evaluate every position, judge every move.

Pure (no Django), on the engines and the computer players' public pieces only.

One scale for all five games: **winning chances** from -1 (the second player
wins) to +1 (the first player wins), 0 for even. Each game's search gives a
score from the point of view of the side to move; ``chances_from_score`` maps
it onto that scale with a logistic curve whose constant per game was fitted
on self-play results (``games/ai/data/analysis_calibration.json``, written by
``bench/calibrate_analysis.py``); a proven result is exactly -1, 0 or +1.

The budget per position is fixed, never a clock, so the same game always gets
the same analysis. On the compiled cores (``BUDGET``, ``games/ai/_analysis_fast.py``):

* Reversi: a principal variation search of ``depth`` plies on Hard's learned
  evaluation, and the exact endgame solver from ``exact`` empty squares on.
* Ataxx: Hard's iterative deepening to ``depth`` plies.
* Quantum TTT: every distinct move searched ``depth`` plies deep (a collapse
  costs no depth); forced wins within the horizon are +-1.
* Ultimate TTT and Four Tac Toe: the computer player's Monte Carlo tree search
  with a fixed number of ``iterations`` and a fixed seed.

Without a loaded core the same kinds of search run in pure Python at the
smaller ``PYTHON_BUDGET`` (the fallback; a worker's first seconds).

A move is judged against the other moves of the search of the position before it
(``same_search_loss``: the root table of the Monte Carlo games, the
full-depth value against the next position's one-ply-shallower value in Reversi and
Ataxx): the drop its loss of score would be from an even position (the fitted curve's
steepest point, so a move that throws discs away in a lost position still counts).
Where that search did not value the move, by the drop in the mover's winning chances
between the position before it (best play) and the position after it, or, when more,
the drop its loss of score would be from an even position: lichess's thresholds
0.1 an inaccuracy, 0.2 a mistake, 0.3 a blunder (on the -1..+1 scale, i.e. 5,
10 and 15 points of winning percentage); below them "best", "excellent" or
"good" (``label``). A Reversi solver-phase move's discs given away count as a loss of
score; between two positions with the same proven result a Quantum TTT move is judged
by the distance it gives up (``slower_or_sooner``). "Only move": the best move, played,
when every other move would have been a mistake or worse. A move's accuracy is lichess's
formula on the winning percentage lost, read the game's ``accuracy_weight`` times over
(fitted on a random player and Hard); a player's accuracy (``game_accuracy``) is
lichess's: the mean of the volatility-weighted mean and the harmonic mean of
their moves' accuracies, over the game and over each phase (``phase_of``).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from random import Random
from typing import Any

from games.ai import _analysis_fast as fast
from games.engines.base import Engine

# Drop in the mover's winning chances (scale -1..+1) from which a move is each kind of error.
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.3), ("mistake", 0.2), ("inaccuracy", 0.1))
KINDS: tuple[str, ...] = ("inaccuracy", "mistake", "blunder")
# Every label a move can get, best first ("forced": the only legal move, not judged).
LABELS: tuple[str, ...] = ("best", "excellent", "good", "inaccuracy", "mistake", "blunder", "forced")
BEST_DROP = 0.01  # below this drop (half a point of winning percentage) a move is as good as the best
EXCELLENT_DROP = 0.04  # two points
ONLY_DROP = 0.2  # "only move": every other move drops at least this much (a mistake)
# A move that throws discs or pieces away in a decided position loses no winning chances, yet
# it is a bad move: it counts with this share of the drop the same loss of score would be in an
# even game (random clicking scored 89.9 % in Reversi on the winning chances alone). The whole
# drop, not half of it (until Dec 2026): a move's loss is judged on the fitted curve where it
# says most, at the even point, and half let a random player score 64 % against Hard in Reversi
# (bench/analysis_accuracy.py, docs/performance.md).
SCORE_WEIGHT = 1.0
# The most winning chances (mover's, -1..+1) a Monte Carlo mean or a proven result counts for in a
# root table (PositionEval.root): beyond it the searches' means are noise, and a winning move must
# not look like a loss next to another winning move.
ROOT_CLIP = 0.95
PHASES: tuple[str, ...] = ("opening", "middle", "end")
LINE_LENGTH = 4  # plies shown of the line that follows a better move
SEED = 20_240_517  # the Monte Carlo searches' fixed seed

# The fixed budget per position on the compiled cores (see the module docstring), and
# in pure Python. bench/analysis.py measures the seconds per game of both.
BUDGET: dict[str, dict[str, int]] = {
    "reversi": {"depth": 8, "exact": 18},
    "ataxx": {"depth": 6},
    "quantum_ttt": {"depth": 6},
    "ultimate_ttt": {"iterations": 120_000},
    "four_tac_toe": {"iterations": 8_000},
}
PYTHON_BUDGET: dict[str, dict[str, int]] = {
    "reversi": {"depth": 4, "exact": 14},
    "ataxx": {"depth": 4},
    "quantum_ttt": {"depth": 4},
    "ultimate_ttt": {"iterations": 3000},
    "four_tac_toe": {"iterations": 1000},
}
CALIBRATION_FILE = Path(__file__).with_name("data") / "analysis_calibration.json"
_WIN = 1_000_000  # a won game within the horizon (minus its distance in plies)
_REVERSI_UNIT = 32  # the learned evaluation counts in 1/32 of a disc: scores are in discs


@cache
def calibration() -> dict[str, dict[str, Any]]:
    """The fitted curve constants per game, with how they were got (bench/calibrate_analysis.py)."""
    data: dict[str, dict[str, Any]] = json.loads(CALIBRATION_FILE.read_text())["games"]
    return data


def scale_of(slug: str) -> float:
    """Score units per unit of the logistic: chances = tanh(score / (2 * scale))."""
    return float(calibration()[slug]["scale"])


def slip_of(slug: str) -> float | None:
    """The share of plies on which the calibration's players let a proven result go (fitted on the
    same self-play as the curve), for a game whose proofs carry their distance (``PositionEval.mate``)."""
    slip = calibration()[slug].get("slip")
    return None if slip is None else float(slip["per_ply"])


def accuracy_weight_of(slug: str) -> float:
    """How many points of lichess's per-move accuracy formula a point of winning percentage lost counts
    for in this game (1 unless fitted otherwise: docs/analysis.md, "Accuracy")."""
    weight = calibration()[slug].get("accuracy_weight")
    return 1.0 if weight is None else float(weight["weight"])


@dataclass(frozen=True)
class PositionEval:
    """The analysis of one position.

    ``chances``: winning chances for side 0 (-1..+1) with best play.
    ``best``: a best move for the side to move (None when the game is over).
    ``line``: the line that follows, starting with ``best``.
    ``exact``: Reversi from the solver's depth on: the final disc difference for
    side 0 with perfect play (None elsewhere).
    ``score``: the search's score for the side to move (calibration units), None when proven.
    ``only``: ``best`` is the only move that is not a mistake or worse.

    What the search said of the moves themselves, so that a move is judged against the
    other moves of the same search (``judge_move``):
    ``root``: the Monte Carlo games, (move, the side to move's score after it, visits) for
    each visited root move, the logit of its mean reward in the units of ``score``, at most
    that of ``ROOT_CLIP`` winning chances (97.5 %) as ``score`` is: choosing between two
    winning moves costs nothing (Four Tac Toe adds the cells its filter left out, ``_left_out``).
    ``deep``, ``shallow``: Reversi and Ataxx, the side to move's score of the search at
    the full depth and at one ply less, before their mean (``score``). The full-depth
    search of the position before a move gave that move minus the position after it's
    ``shallow``: the same search, so a move is compared with the best move of the same
    tree.
    ``mate``: a proven result's distance, the plies to the end of the game with best play
    (the winner hurrying, the loser holding out); 0 for a finished game. Set where a proof
    has no other margin (Quantum TTT): ``judge_move`` tells a lost position's moves apart by it.
    """

    chances: float
    best: str | None
    line: tuple[str, ...] = ()
    exact: int | None = None
    score: float | None = None
    only: bool = False
    root: tuple[tuple[str, float, int], ...] = ()
    deep: float | None = None
    shallow: float | None = None
    mate: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "chances": round(self.chances, 4),
            "best": self.best,
            "line": list(self.line),
            "exact": self.exact,
            "score": None if self.score is None else round(self.score, 3),
            "only": self.only,
            "root": [[move, round(value, 3), visits] for move, value, visits in self.root],
            "deep": None if self.deep is None else round(self.deep, 3),
            "shallow": None if self.shallow is None else round(self.shallow, 3),
            "mate": self.mate,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PositionEval:
        """An evaluation stored by ``as_dict``; one stored before a field existed gets its default."""
        score, deep, shallow, mate = (
            data.get("score"),
            data.get("deep"),
            data.get("shallow"),
            data.get("mate"),
        )
        return cls(
            float(data["chances"]),
            data.get("best"),
            tuple(data.get("line") or ()),
            data.get("exact"),
            None if score is None else float(score),
            bool(data.get("only", False)),
            tuple((str(m), float(c), int(v)) for m, c, v in data.get("root") or ()),
            None if deep is None else float(deep),
            None if shallow is None else float(shallow),
            None if mate is None else int(mate),
        )


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
    label: str = "best"  # one of LABELS
    only: bool = False  # the only move that was not a mistake, and it was played
    phase: str = "middle"  # one of PHASES
    chances: float = 0.0  # the mover's winning chances after the move, 0..1

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
            "label": self.label,
            "only": self.only,
            "phase": self.phase,
            "chances": round(self.chances, 4),
        }


@dataclass
class PlayerSummary:
    accuracy: float | None = None
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    labels: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))
    phases: dict[str, float | None] = field(default_factory=lambda: dict.fromkeys(PHASES))
    only: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
            "counts": dict(self.counts),
            "labels": dict(self.labels),
            "phases": {k: None if v is None else round(v, 1) for k, v in self.phases.items()},
            "only": self.only,
        }


# ---------------------------------------------------------------------------
# The maths


def chances_from_score(score: float, scale: float) -> float:
    """Winning chances (-1..+1) of a search score for the same side (logistic)."""
    return math.tanh(score / (2.0 * scale))


def score_from_chances(chances: float, scale: float) -> float:
    """The score whose winning chances are ``chances`` (the inverse; +-inf at +-1)."""
    if chances >= 1.0:
        return math.inf
    if chances <= -1.0:
        return -math.inf
    return 2.0 * scale * math.atanh(chances)


def percent(chances: float) -> float:
    """Winning chances -1..+1 as people read them: 0..100 % for the same side."""
    return (max(-1.0, min(1.0, chances)) + 1.0) * 50.0


def log_loss(samples: Sequence[tuple[float, float]], scale: float) -> float:
    """Mean log loss of the logistic ``1 / (1 + exp(-score / scale))`` on (score, result 0..1) samples."""
    total = 0.0
    for score, result in samples:
        p = 1.0 / (1.0 + math.exp(max(-60.0, min(60.0, -score / scale))))
        p = min(1 - 1e-9, max(1e-9, p))
        total -= result * math.log(p) + (1 - result) * math.log(1 - p)
    return total / len(samples)


def fit_scale(samples: Sequence[tuple[float, float]]) -> float:
    """The maximum-likelihood logistic scale for (score, result) samples (bench/calibrate_analysis.py).

    A golden-section search on log(scale) between 0.001 and 10,000: the loss has one minimum.
    """
    low, high = math.log(1e-3), math.log(1e4)
    ratio = (math.sqrt(5) - 1) / 2
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = log_loss(samples, math.exp(a)), log_loss(samples, math.exp(b))
    for _ in range(80):
        if fa < fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = log_loss(samples, math.exp(a))
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = log_loss(samples, math.exp(b))
    return math.exp((low + high) / 2)


def fit_slip(proofs: Sequence[tuple[int, bool]]) -> float:
    """The maximum-likelihood ``slip`` for (plies to the end, the proven result held) samples
    (bench/calibrate_analysis.py): P(held) = (1 - slip) ** plies. A golden-section search on slip in
    (0, 0.5): the loss has one minimum."""

    def loss(slip: float) -> float:
        total = 0.0
        for plies, held in proofs:
            kept = (1.0 - slip) ** plies
            total -= math.log(max(1e-12, kept if held else 1.0 - kept))
        return total

    low, high = 1e-6, 0.5
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if loss(a) < loss(b):
            high = b
        else:
            low = a
    return (low + high) / 2


def classify(drop: float) -> str | None:
    """The kind of error a drop in the mover's winning chances is, or None."""
    for kind, threshold in THRESHOLDS:
        if drop >= threshold - 1e-9:
            return kind
    return None


def label(drop: float, *, forced: bool) -> str:
    """A move's label from its drop in winning chances (a Reversi solver-phase move's discs given
    away are in its drop: ``judge_move``)."""
    if forced:
        return "forced"
    kind = classify(drop)
    if kind is not None:
        return kind
    if drop < BEST_DROP:
        return "best"
    return "excellent" if drop < EXCELLENT_DROP else "good"


def move_accuracy(drop: float) -> float:
    """lichess's per-move accuracy from the winning percentage lost."""
    loss = max(0.0, drop) * 50.0  # chances -1..+1 -> percentage points 0..100
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def judge_move(
    ply: int,
    side: int,
    move: str,
    before: PositionEval,
    after: PositionEval,
    *,
    forced: bool,
    phase: str = "middle",
    scale: float | None = None,
    moves_again: bool = False,
    slip: float | None = None,
    accuracy_weight: float = 1.0,
) -> MoveJudgement:
    """Judge the move ``move`` by ``side`` that led from ``before`` to ``after``.

    With the game's ``scale``: when the search of ``before`` valued the move
    (``same_search_loss``), the drop is what the move's loss against that search's best move
    would be in an even position (the curve at its steepest), so a move is compared with the
    best alternative of the same position even once the game is decided; otherwise the drop is
    at least ``SCORE_WEIGHT`` (1: all of) the drop the loss of score between the two positions
    would be in an even position (``moves_again``: the mover is to move after it too, so the
    score after keeps its sign).

    With ``slip`` (a game whose proofs carry their distance): between two positions with the same
    proven result for the mover, the move is judged by the distance it gives up, the winner's
    longer way or the loser's quicker end (``slower_or_sooner``). ``accuracy_weight``: the move's
    accuracy reads its drop that many times over (its label does not).
    """
    sign = 1.0 if side == 0 else -1.0
    drop = max(0.0, sign * (before.chances - after.chances))
    same = None if scale is None else same_search_loss(before, after, move, moves_again=moves_again)
    if scale is not None and same is not None:
        # judged against the best move of the same search, read at the curve's steepest point (as
        # the score part below): the two positions' own searches are not needed then
        drop = SCORE_WEIGHT * chances_from_score(same, scale)
    elif scale is not None and before.score is not None and after.score is not None:
        lost = before.score - (after.score if moves_again else -after.score)
        drop = max(drop, SCORE_WEIGHT * max(0.0, chances_from_score(lost, scale)))
    if slip is not None:
        drop = max(drop, slower_or_sooner(before, after, side, slip))
    exact_loss = None
    if before.exact is not None and after.exact is not None:
        exact_loss = max(0, int(sign * (before.exact - after.exact)))
        if scale is not None:  # a disc given away in the solver's phase counts as one in the midgame
            drop = max(drop, SCORE_WEIGHT * chances_from_score(exact_loss, scale))
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
        accuracy=move_accuracy(drop * accuracy_weight),
        best=before.best if shows_better else None,
        line=before.line if shows_better else (),
        exact_loss=exact_loss,
        forced=forced,
        label=label(drop, forced=forced),
        only=before.only and move == before.best and not forced,
        phase=phase,
        chances=percent(sign * after.chances) / 100.0,
    )


def slower_or_sooner(before: PositionEval, after: PositionEval, side: int, slip: float) -> float:
    """What a move gave up between two positions with the same proven result for ``side`` (0 if not).

    A proven result holds only as long as the winner keeps finding the way: with the calibration's
    players it holds through ``d`` plies with probability ``(1 - slip) ** d``, and a result let go
    leaves an open game. So the winner's chances of a win in ``d`` plies are ``(1 - slip) ** d``
    (-1..+1 scale, an open game 0), the loser's minus that. The best move reaches the end in
    ``before.mate`` plies; the move played in ``after.mate`` plus its own. A winner who takes the
    longer way, or a loser who lets the end come sooner than the best defence, loses the
    difference. Without the distances, or with different results, 0.
    """
    if before.mate is None or after.mate is None:
        return 0.0
    sign = 1.0 if side == 0 else -1.0
    result = sign * before.chances
    if abs(result) != 1.0 or sign * after.chances != result:
        return 0.0
    best = (1.0 - slip) ** max(0, before.mate - 1)
    played = (1.0 - slip) ** after.mate
    return max(0.0, (best - played) if result > 0 else (played - best))


def same_search_loss(
    before: PositionEval, after: PositionEval, move: str, *, moves_again: bool = False
) -> float | None:
    """The score ``move`` lost against the best move in the search of the position before it, or None.

    The root table when it has both moves (score units of the curve, so a loss in a lost
    position still counts); else the full-depth value before against the one-ply-shallower
    value after, which is the value the same tree gave the move. None when the search did
    not value the move (an Ultimate TTT move that lets the opponent win at once, a pass,
    Quantum TTT: docs/decisions.md): the two positions' scores judge it then.
    """
    if before.root:
        table = {m: value for m, value, _ in before.root}
        if move not in table or before.best not in table:
            return None
        return max(0.0, table[before.best] - table[move])
    if before.deep is not None and after.shallow is not None and not moves_again:
        return max(0.0, before.deep + after.shallow)
    return None


def _harmonic_mean(values: Sequence[float]) -> float:
    # lichess floors each accuracy at 1 here, so that one 0 does not make the whole mean 0
    return len(values) / sum(1.0 / max(1.0, v) for v in values)


def _volatility_weights(chances: Sequence[float], moves: int) -> list[float]:
    """lichess's weight of each move: the spread of the winning percentage around it.

    Moves in a decided position (nothing left to win or lose) weigh little, moves
    where the game turned weigh much. One weight per move.
    """
    series = [percent(c) for c in chances]
    window = max(2, min(8, moves // 10))
    windows = [series[:window]] * max(0, min(window, len(series)) - 2)
    windows += [series[i : i + window] for i in range(0, max(1, len(series) - window + 1))]
    weights = [max(0.5, min(12.0, statistics.pstdev(w) if len(w) > 1 else 0.0)) for w in windows]
    return (weights + [weights[-1]] * moves)[:moves]


def game_accuracy(
    judgements: Sequence[MoveJudgement], weights: Sequence[float] | None = None
) -> float | None:
    """lichess's game accuracy of these moves: (volatility-weighted mean + harmonic mean) / 2.

    Forced moves do not count; None without a move that had a choice.
    """
    chosen = [(j, 1.0 if weights is None else weights[i]) for i, j in enumerate(judgements) if not j.forced]
    if not chosen:
        return None
    accuracies = [j.accuracy for j, _ in chosen]
    weighted = sum(a * w for a, (_, w) in zip(accuracies, chosen, strict=True)) / sum(w for _, w in chosen)
    return (weighted + _harmonic_mean(accuracies)) / 2.0


def summarize(
    judgements: Sequence[MoveJudgement], chances: Sequence[float] | None = None
) -> tuple[PlayerSummary, PlayerSummary]:
    """Accuracy (overall and per phase), labels and error counts of each side.

    ``chances``: every position's winning chances (one more than the moves), for the
    volatility weights; without them every move weighs the same.
    """
    weights = (
        _volatility_weights(chances, len(judgements)) if chances is not None else [1.0] * len(judgements)
    )
    out = (PlayerSummary(), PlayerSummary())
    for side in (0, 1):
        mine = [(j, w) for j, w in zip(judgements, weights, strict=True) if j.side == side]
        out[side].accuracy = game_accuracy([j for j, _ in mine], [w for _, w in mine])
        for name in PHASES:
            here = [(j, w) for j, w in mine if j.phase == name]
            out[side].phases[name] = game_accuracy([j for j, _ in here], [w for _, w in here])
        for j, _ in mine:
            out[side].labels[j.label] += 1
            out[side].only += j.only
            if j.kind:
                out[side].counts[j.kind] += 1
    return out


# ---------------------------------------------------------------------------
# Phases: opening, middle, end (docs/analysis.md says why these bounds)


def phase_of(engine: Engine, state: Any) -> str:
    """The phase of the game in which the side to move of ``state`` moves."""
    slug = engine.slug
    if slug == "reversi":
        discs = (state.black | state.white).bit_count()
        return "opening" if discs <= 20 else "end" if discs >= 44 else "middle"
    if slug == "ataxx":
        me, opp = state.mover()
        pieces = (me | opp).bit_count()
        return "opening" if pieces <= 12 else "end" if pieces >= 37 else "middle"
    if slug == "quantum_ttt":
        classical = sum(1 for square in state.classical if square)
        return "opening" if state.move <= 3 and not classical else "end" if classical >= 5 else "middle"
    marks = (state.x | state.o).bit_count()
    if slug == "ultimate_ttt":
        return "opening" if marks < 12 else "end" if state.closed.bit_count() >= 5 else "middle"
    return "opening" if marks < 12 else "end" if marks >= 54 else "middle"  # four_tac_toe: 80 cells


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
    return PositionEval(chances, None, (), exact, mate=0)


def _position(
    engine: Engine, state: Any, result: fast.RootResult, slug: str, exact: int | None = None
) -> PositionEval:
    """A search's result (side to move's view) as a PositionEval (side 0's view)."""
    sign = 1 if engine.to_move(state) == 0 else -1
    if result.proven is not None:
        mover_chances = float(result.proven)
    else:
        assert result.score is not None
        mover_chances = chances_from_score(result.score, scale_of(slug))
    return PositionEval(
        sign * mover_chances,
        result.best,
        result.line[:LINE_LENGTH],
        None if exact is None else sign * exact,
        result.score,
        bool(result.only),  # a compiled core's answer may be numpy's bool, which JSON refuses
        tuple((str(m), float(c), int(v)) for m, c, v in result.root),
        None if result.deep is None else float(result.deep),
        None if result.shallow is None else float(result.shallow),
        result.mate if result.proven is not None else None,
    )


def _floor_of(slug: str) -> Callable[[float], float]:
    """For a best score, the score below which another move would drop ONLY_DROP or more."""
    scale = scale_of(slug)

    def floor(score: float) -> float:
        if math.isinf(score):
            return score if score < 0 else score_from_chances(1.0 - ONLY_DROP, scale)
        return score_from_chances(chances_from_score(score, scale) - ONLY_DROP, scale)

    return floor


class _Negamax:
    """A fixed-depth alpha-beta search over the engine contract (the pure-Python fallback).

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

    def _child(
        self, state: Any, move: str, depth: int, alpha: float, beta: float, ply: int
    ) -> tuple[float, list[str]]:
        """The value of playing ``move`` for the side to move of ``state``."""
        engine = self.engine
        me = engine.to_move(state)
        child = engine.play(state, move)
        cost = 0 if self.free(move) else 1
        done = engine.outcome(child)
        if done is not None:  # scored here: a finished game's side to move means nothing
            return (
                0.0 if done.winner is None else _WIN - ply - 1 if done.winner == me else ply + 1 - _WIN
            ), []
        if engine.to_move(child) == me:
            return self.search(child, depth - cost, alpha, beta, ply + 1)
        value, line = self.search(child, depth - cost, -beta, -alpha, ply + 1)
        return -value, line

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
            value, line = self._child(state, move, depth, alpha, beta, ply)
            if value > best_value:
                best_value, best_line = value, [move, *line]
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best_value, best_line

    def root(
        self, state: Any, depth: int, floor_of: Callable[[float], float]
    ) -> tuple[float, list[str], bool]:
        """(value, line, only): the best value and line, and whether every other move is at or below
        ``floor_of(value)`` (a null-window test each)."""
        value, line = self.search(state, depth, -math.inf, math.inf, 0)
        moves = self.engine.legal_moves(state)
        if len(moves) < 2 or not line:
            return value, line, False
        floor = floor_of(_mate_as_inf(value))
        if floor == math.inf:
            return value, line, False
        bound = _inf_as_mate(floor)
        for move in moves:
            if move == line[0]:
                continue
            other, _ = self._child(state, move, depth, bound, bound + 1e-6, 0)
            if other > bound:
                return value, line, False
        return value, line, True


def _mate_as_inf(value: float) -> float:
    if value >= _WIN - 1_000:
        return math.inf
    if value <= 1_000 - _WIN:
        return -math.inf
    return value


def _inf_as_mate(value: float) -> float:
    return max(1_000 - _WIN, min(_WIN - 1_000, value))


def _unbiased(deep: float, shallow: float, win: float) -> float:
    """The mean of the values at the full depth and one ply less (unless one is a proven result).

    A search that ends with the mover to move at its leaves and one that ends with the
    opponent to move are biased opposite ways (measured on Reversi: about 4 discs); the
    position before a move is searched with one parity, the position after it with the
    other, so without this every move looked like a gain of several discs and random
    clicking was judged "best" move after move.
    """
    if abs(deep) >= win or abs(shallow) >= win:
        return deep
    return (deep + shallow) / 2


def _negamax_eval(
    engine: Engine,
    state: Any,
    searcher: _Negamax,
    depth: int,
    slug: str,
    per_unit: float = 1.0,
    *,
    distance: bool = False,
) -> PositionEval:
    """The fallback's result; ``per_unit`` converts the static score to calibration units;
    ``distance``: a proof keeps its distance (``PositionEval.mate``)."""
    value, line, only = searcher.root(state, depth, lambda s: _floor_of(slug)(s / per_unit) * per_unit)
    proven = 1 if value >= _WIN - 1_000 else -1 if value <= 1_000 - _WIN else None
    deep = shallow = None
    if proven is None and depth > 1:
        shallow, _ = searcher.search(state, depth - 1, -math.inf, math.inf, 0)
        deep, value = value, _unbiased(value, shallow, _WIN - 1_000)
        if abs(shallow) >= _WIN - 1_000:
            deep = shallow = None
    result = fast.RootResult(
        None if proven is not None else value / per_unit,
        proven,
        line[0] if line else "",
        tuple(line),
        only,
        deep=None if deep is None else deep / per_unit,
        shallow=None if shallow is None else shallow / per_unit,
        mate=int(_WIN - abs(value)) if proven is not None and distance else None,
    )
    return _position(engine, state, result, slug)


# Reversi ---------------------------------------------------------------------


def _reversi_sides(state: Any, side: int) -> tuple[int, int]:
    return (state.black, state.white) if side == 0 else (state.white, state.black)


def _reversi(engine: Engine, state: Any, *, depth: int, exact: int) -> PositionEval:
    """Midgame: a principal variation search on Hard's learned evaluation; from ``exact`` empties the
    solver. ``games.ai.reversi``'s search and solver run on the compiled core when it is loaded."""
    from games.ai.reversi import WIN, EndgameSolver, _Search, evaluate_learned
    from games.engines.reversi import SQUARE_NAMES, flips, legal_mask

    me = engine.to_move(state)
    own, opp = _reversi_sides(state, me)
    moves = legal_mask(own, opp)
    passing = engine.pass_move
    assert passing is not None  # Reversi passes
    if not moves:  # a forced pass: the position is worth what the opponent's turn is
        after = evaluate(engine, engine.play(state, passing), {"depth": depth, "exact": exact})
        return PositionEval(
            after.chances,
            passing,
            (passing, *after.line)[:LINE_LENGTH],
            after.exact,
            None if after.score is None else -after.score,
        )
    squares = [sq for sq in range(64) if moves >> sq & 1]
    children = {sq: (opp ^ flips(own, opp, sq), own | flips(own, opp, sq) | (1 << sq)) for sq in squares}
    floor_of = _floor_of("reversi")
    if 64 - (own | opp).bit_count() <= exact:
        solver = EndgameSolver()
        score, sq = solver.solve(own, opp)
        best = SQUARE_NAMES[sq] if sq is not None else passing
        only = False
        if score >= 0 and len(squares) > 1:  # the only move that keeps the win (or the draw)?
            need = 1 if score > 0 else 0
            only = all(
                -solver.solve(*children[other], -need, -need + 1)[0] < need
                for other in squares
                if other != sq
            )
        line: list[str] = [best]
        probe = engine.play(state, best)
        while len(line) < LINE_LENGTH and engine.outcome(probe) is None:  # solving gets cheaper each ply
            p_own, p_opp = _reversi_sides(probe, engine.to_move(probe))
            _, p_sq = solver.solve(p_own, p_opp)
            reply = SQUARE_NAMES[p_sq] if p_sq is not None else passing
            line.append(reply)
            probe = engine.play(probe, reply)
        outcome = 0 if score == 0 else (1 if score > 0 else -1)
        return _position(
            engine, state, fast.RootResult(None, outcome, best, tuple(line), only), "reversi", score
        )

    search = _Search(evaluate_learned, math.inf)
    infinity = 10 * WIN

    def root(at: int, order: list[int]) -> list[tuple[int, int]]:
        """Every root move's value at depth ``at``: exact for the best, upper bounds for the others."""
        results: list[tuple[int, int]] = []
        alpha = -infinity
        for sq in order:
            c_own, c_opp = children[sq]
            if not results:
                value = -search.negamax(c_own, c_opp, at - 1, -infinity, infinity)
            else:
                value = -search.negamax(c_own, c_opp, at - 1, -alpha - 1, -alpha)
                if value > alpha:
                    value = -search.negamax(c_own, c_opp, at - 1, -infinity, -alpha)
            results.append((value, sq))
            alpha = max(alpha, value)
        results.sort(key=lambda item: -item[0])
        return results

    order = search._ordered(own, opp, moves, -1, 3)
    previous: list[tuple[int, int]] = []
    results: list[tuple[int, int]] = []
    for at in range(1, depth + 1):  # iterative deepening: each depth orders the next
        previous = results
        results = root(at, order)
        order = [sq for _, sq in results]
    value, sq = results[0]
    proven = 1 if value >= WIN else -1 if value <= -WIN else None
    one_less = previous[0][0] if previous else value
    estimate = None if proven is not None else _unbiased(value, one_less, WIN) / _REVERSI_UNIT
    deep = shallow = None
    if proven is None and previous and abs(one_less) < WIN:
        deep, shallow = value / _REVERSI_UNIT, one_less / _REVERSI_UNIT
    only = False
    if len(results) > 1 and proven is None:
        floor = floor_of(value / _REVERSI_UNIT) * _REVERSI_UNIT
        if floor > -infinity:
            bound = math.floor(floor)
            only = all(
                other <= bound or -search.negamax(*children[other_sq], depth - 1, -bound - 1, -bound) <= bound
                for other, other_sq in results[1:]
            )
    pv = [SQUARE_NAMES[sq]]
    probe = engine.play(state, pv[0])
    while len(pv) < LINE_LENGTH and engine.outcome(probe) is None:  # a shallower search for the line
        reply = _reversi_line_move(engine, probe, min(depth, 4))
        pv.append(reply)
        probe = engine.play(probe, reply)
    return _position(
        engine,
        state,
        fast.RootResult(estimate, proven, pv[0], tuple(pv), only, deep=deep, shallow=shallow),
        "reversi",
    )


def _reversi_line_move(engine: Engine, state: Any, depth: int) -> str:
    from games.ai.reversi import WIN, _Search, evaluate_learned
    from games.engines.reversi import SQUARE_NAMES, flips, legal_mask

    own, opp = _reversi_sides(state, engine.to_move(state))
    moves = legal_mask(own, opp)
    if not moves:
        return str(engine.pass_move)
    search = _Search(evaluate_learned, math.inf)
    best, best_value = -1, -10 * WIN - 1
    for sq in search._ordered(own, opp, moves, -1, 3):
        f = flips(own, opp, sq)
        value = -search.negamax(opp ^ f, own | f | (1 << sq), depth - 1, -10 * WIN, -best_value)
        if value > best_value:
            best, best_value = sq, value
    return SQUARE_NAMES[best]


# Ataxx -----------------------------------------------------------------------


def _ataxx(engine: Engine, state: Any, *, depth: int) -> PositionEval:
    me, opp = state.mover()
    passing = engine.pass_move
    assert passing is not None  # Ataxx passes
    if engine.legal_moves(state) == [passing]:
        after = evaluate(engine, engine.play(state, passing), {"depth": depth})
        score = None if after.score is None else -after.score
        return PositionEval(after.chances, passing, (passing, *after.line)[:LINE_LENGTH], None, score)
    result = fast.ataxx(engine, state, depth, _floor_of("ataxx"), LINE_LENGTH)
    if result is not None:
        return _position(engine, state, result, "ataxx")

    def static(s: Any) -> float:
        mine: int
        theirs: int
        mine, theirs = s.mover()
        return mine.bit_count() - theirs.bit_count()

    searcher = _Negamax(engine, static, lambda m: m == engine.pass_move)
    return _negamax_eval(engine, state, searcher, depth, "ataxx")


# Quantum TTT -----------------------------------------------------------------


def _quantum_ttt(engine: Engine, state: Any, *, depth: int) -> PositionEval:
    result = fast.quantum_ttt(engine, state, depth, _floor_of("quantum_ttt"), LINE_LENGTH)
    if result is not None:
        return _position(engine, state, result, "quantum_ttt")
    from games.ai.quantum_ttt import evaluate as static_eval

    def static(s: Any) -> float:
        return static_eval(s, engine.to_move(s))

    searcher = _Negamax(engine, static, lambda m: m.startswith("@"))
    # No table of the moves' own values (docs/decisions.md, session 11): judged by the two positions.
    return replace(
        _negamax_eval(engine, state, searcher, depth, "quantum_ttt", distance=True), deep=None, shallow=None
    )


# Monte Carlo games -----------------------------------------------------------


def _root_candidates(engine: Engine, state: Any) -> tuple[list[int], str | None, Callable[[int], str]]:
    """(moves worth searching, a move that wins on the spot or None, index -> token)."""
    if engine.slug == "ultimate_ttt":
        from games.ai.ultimate_ttt import legal_indexes, safe_moves
        from games.engines.ultimate_ttt import CELL_TOKENS

        moves = legal_indexes(state)
        for index in moves:
            after = engine.outcome(engine.play(state, CELL_TOKENS[index]))
            if after is not None and after.winner == engine.to_move(state):
                return moves, CELL_TOKENS[index], CELL_TOKENS.__getitem__
        return safe_moves(state, moves) or moves, None, CELL_TOKENS.__getitem__
    from games.ai.four_tac_toe import cell_value, free_cells, tactical_candidates
    from games.engines.four_tac_toe import CELL_TOKENS as FTT_TOKENS

    cells = tactical_candidates(state, free_cells(state))
    own, opp = (state.x, state.o) if state.side == 0 else (state.o, state.x)
    return sorted(cells, key=lambda c: -cell_value(own, opp, c)), None, FTT_TOKENS.__getitem__


Root = tuple[tuple[str, float, int], ...]


def _clipped_logit(chances: float) -> float:
    """A Monte Carlo search's winning chances (2 * mean reward - 1) as its score, the logit of the mean
    reward, clipped at ROOT_CLIP."""
    return 2.0 * math.atanh(max(-ROOT_CLIP, min(ROOT_CLIP, chances)))


def _mcts_best(engine: Engine, state: Any, iterations: int) -> tuple[float, str, bool, Root]:
    """(winning chances for the side to move, best move, only move, root table) by the computer
    player's MCTS; the root table has each visited root move's chances (2 * mean reward - 1) and visits."""
    candidates, winning, token = _root_candidates(engine, state)
    if winning is not None:
        return 1.0, winning, False, ()
    if len(candidates) == 1:
        chances, move = _after_only_move(engine, state, token(candidates[0]), iterations)
        return chances, move, False, _left_out(engine, state, ((move, _clipped_logit(chances), 0),))
    rows = fast.mcts_root(engine.slug, state, candidates, iterations, SEED)
    if rows is not None:
        best, _, mean = rows[0]
        second = fast.mcts_second_best(rows)
        only = second is not None and 2.0 * (mean - second) >= ONLY_DROP
        root = tuple((token(m), _clipped_logit(2.0 * r - 1.0), v) for m, v, r in rows if v)
        return 2.0 * mean - 1.0, token(best), only, _left_out(engine, state, root)
    from games.ai.mcts import search

    rng = Random(SEED)
    if engine.slug == "ultimate_ttt":
        from games.ai.ultimate_ttt import UTTTAdapter

        result = search(UTTTAdapter, state, rng, iterations=iterations, root_moves=candidates)
    else:
        from games.ai.four_tac_toe import EXPLORATION, WIDENING, FourTacToeAdapter

        result = search(
            FourTacToeAdapter(state),
            state,
            rng,
            iterations=iterations,
            exploration=EXPLORATION,
            widening=WIDENING,
            root_moves=candidates,
        )
    root = tuple(
        (token(m), _clipped_logit(2.0 * result.means[m] - 1.0), v)
        for m, v in sorted(result.visits.items(), key=lambda item: (-item[1], -result.means.get(item[0], 0)))
        if v
    )
    return 2.0 * result.value - 1.0, token(result.move), False, _left_out(engine, state, root)


def _left_out(engine: Engine, state: Any, root: Root) -> Root:
    """Four Tac Toe: the root table with the cells the tactical filter left out of the search.

    The filter keeps the cells with the best "my points now minus the opponent's best points
    next"; a cell it left out gives up the difference, and each point counts 2 / REWARD_SCALE
    of the logit, the search's own reward's slope in the final margin, below the search's best
    move. Not clipped: once a game is decided the searches' means are all 0 or 1, and the points
    a move gives away are all that is left to tell a move from another (as Reversi's discs).
    Ultimate TTT's filter leaves out the moves that let the opponent win at once; the position
    after such a move is a proven loss, which judges it.
    """
    if engine.slug != "four_tac_toe" or not root:
        return root
    from games.ai.four_tac_toe import REWARD_SCALE, free_cells, tactical_values
    from games.engines.four_tac_toe import CELL_TOKENS

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


def _after_only_move(engine: Engine, state: Any, move: str, iterations: int) -> tuple[float, str]:
    """A single sensible move: the position is worth what the position after it is."""
    child = engine.play(state, move)
    done = _terminal(engine, child)
    me = engine.to_move(state)
    if done is not None:
        return (done.chances if me == 0 else -done.chances), move
    value, _, _, _ = _mcts_best(engine, child, iterations)
    return (value if engine.to_move(child) == me else -value), move


def _mcts(engine: Engine, state: Any, *, iterations: int) -> PositionEval:
    # A tree search is optimistic for the side it searches for, so a position's
    # value is the mean of the mover's search here and the opponent's search
    # after the best move: the two biases cancel.
    me = engine.to_move(state)
    mover_chances, best, only, root = _mcts_best(engine, state, iterations)
    line, probe = [best], engine.play(state, best)
    done = _terminal(engine, probe)
    proven: int | None = None
    if done is not None:
        mover_chances = done.chances if me == 0 else -done.chances
        proven = round(mover_chances)
    else:
        reply_chances, _, _, _ = _mcts_best(engine, probe, iterations)
        mover_chances = (
            mover_chances + (reply_chances if engine.to_move(probe) == me else -reply_chances)
        ) / 2
    while len(line) < LINE_LENGTH and engine.outcome(probe) is None:  # a cheaper search for the line
        _, reply, _, _ = _mcts_best(engine, probe, max(20, iterations // 8))
        line.append(reply)
        probe = engine.play(probe, reply)
    # The score is the logit of the search's mean reward; the fitted scale says how far to trust it.
    # Clipped at 0.95: beyond it (97.5 % and more) the search's means are noise, and a winning
    # move must not look like a loss of score next to another winning move (judge_move's score part).
    score = None if proven is not None else _clipped_logit(mover_chances)
    return _position(
        engine, state, fast.RootResult(score, proven, best, tuple(line), only, root=root), engine.slug
    )


_EVALUATORS: dict[str, Callable[..., PositionEval]] = {
    "reversi": _reversi,
    "ataxx": _ataxx,
    "quantum_ttt": _quantum_ttt,
    "ultimate_ttt": _mcts,
    "four_tac_toe": _mcts,
}
_CORES: dict[str, str] = {
    "reversi": "_reversi_fast",
    "ataxx": "_ataxx_fast",
    "quantum_ttt": "_qttt_fast",
    "ultimate_ttt": "_uttt_fast",
    "four_tac_toe": "_ftt_fast",
}


def compiled(slug: str) -> bool:
    """Whether ``slug``'s analysis runs on its compiled core in this process (now)."""
    from games.ai._cores import load_core

    return load_core(_CORES[slug]) is not None


def budget_for(slug: str) -> dict[str, int]:
    """The fixed budget this process analyses ``slug`` at: the compiled one when its core is loaded."""
    return dict((BUDGET if compiled(slug) else PYTHON_BUDGET)[slug])


def evaluate(engine: Engine, state: Any, budget: dict[str, int] | None = None) -> PositionEval:
    """Winning chances, best move and line of ``state`` at the game's fixed budget.

    Without ``budget``: the compiled budget when the game's core is loaded, else the
    pure-Python one (``budget_for``).
    """
    done = _terminal(engine, state)
    if done is not None:
        return done
    return _EVALUATORS[engine.slug](engine, state, **(budget or budget_for(engine.slug)))


def judge_game(
    engine: Engine,
    moves: Sequence[str],
    evals: Sequence[PositionEval],
    start: Any | None = None,
    *,
    accuracy_weight: float | None = None,
) -> list[MoveJudgement]:
    """Judge every move of a game from the evaluations of its positions (one more than moves).

    ``accuracy_weight``: instead of the game's fitted one (``bench/calibrate_analysis.py`` fits it).
    """
    if len(evals) != len(moves) + 1:
        raise ValueError("need one evaluation per position: one more than the moves")
    state = engine.initial() if start is None else start
    scale, slip = scale_of(engine.slug), slip_of(engine.slug)
    weight = accuracy_weight_of(engine.slug) if accuracy_weight is None else accuracy_weight
    out = []
    for ply, move in enumerate(moves):
        side = engine.to_move(state)
        forced = len(engine.legal_moves(state)) == 1
        after = engine.play(state, move)
        again = engine.outcome(after) is None and engine.to_move(after) == side
        out.append(
            judge_move(
                ply,
                side,
                move,
                evals[ply],
                evals[ply + 1],
                forced=forced,
                phase=phase_of(engine, state),
                scale=scale,
                moves_again=again,
                slip=slip,
                accuracy_weight=weight,
            )
        )
        state = after
    return out
