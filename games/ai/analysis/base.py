"""The analysis's shared vocabulary: its constants, the calibration it reads, the values it
returns (``PositionEval``, ``MoveJudgement``, ``PlayerSummary``), the winning-chances curve, the
shape of one game's hooks (``AnalysisHooks``; the package docstring says what each holds) and the
games' hooks by slug (``register``, ``hooks_of``).
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from games.engines.base import Outcome, State

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

# The calibration lives with the computer players' other data (games/ai/data/, the wheel's package
# data): bench/calibrate_analysis.py writes it, the analysis only reads it.
CALIBRATION_FILE = Path(__file__).resolve().parents[1] / "data" / "analysis_calibration.json"
WIN = 1_000_000  # a won game within the horizon (minus its distance in plies)

# A root table: (move, the side to move's score after it, visits) per move (PositionEval.root).
Root = tuple[tuple[str, float, int], ...]


@cache
def calibration() -> dict[str, dict[str, Any]]:
    """The fitted curve constants per game, with how they were got (bench/calibrate_analysis.py)."""
    data: dict[str, dict[str, Any]] = json.loads(CALIBRATION_FILE.read_text())["games"]
    return data


def calibrated(slug: str) -> Mapping[str, Any]:
    """The game's calibration: its entry in the calibration file, fitted by bench/calibrate_analysis.py,
    else the constants its hooks carry (``AnalysisHooks.calibration``: a game not fitted here)."""
    fitted = calibration().get(slug)
    if fitted is not None:
        return fitted
    own = hooks_of(slug).calibration
    if own is None:
        raise KeyError(f"no calibration for {slug!r}: run bench/calibrate_analysis.py {slug} --write")
    return own


def scale_of(slug: str) -> float:
    """Score units per unit of the logistic: chances = tanh(score / (2 * scale))."""
    return float(calibrated(slug)["scale"])


def slip_of(slug: str) -> float | None:
    """The share of plies on which the calibration's players let a proven result go (fitted on the
    same self-play as the curve), for a game whose proofs carry their distance (``PositionEval.mate``)."""
    slip = calibrated(slug).get("slip")
    return None if slip is None else float(slip["per_ply"])


def accuracy_weight_of(slug: str) -> float:
    """How many points of lichess's per-move accuracy formula a point of winning percentage lost counts
    for in this game (1 unless fitted otherwise: docs/analysis.md, "Accuracy")."""
    weight = calibrated(slug).get("accuracy_weight")
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


# An evaluator: (engine, state, **budget) -> the position's evaluation; the budget's keys are the
# game's own (``depth``, ``exact``, ``iterations``).
Evaluator = Callable[..., PositionEval]


def _no_exact(outcome: Outcome) -> int | None:
    return None


@dataclass(frozen=True)
class AnalysisHooks:
    """What the generic analysis asks of one game (the package docstring lists them)."""

    slug: str  # the engine's slug; also the game's key in the calibration file
    budget: Mapping[str, int]  # the fixed budget per position on the compiled core
    python_budget: Mapping[str, int]  # the same, for the pure-Python fallback
    evaluate: Evaluator  # one unfinished position's evaluation at a budget
    phase: Callable[[State], str]  # the phase (one of PHASES) in which the side to move moves
    # The compiled core's module in games.ai (``games.ai._cores.load_core``); None: the game has
    # none, and ``budget`` is never used (its analysis always runs at ``python_budget``).
    core: str | None = None
    final_exact: Callable[[Outcome], int | None] = _no_exact  # a finished game's ``PositionEval.exact``
    # The game's calibration entry (``scale``, and ``slip``, ``accuracy_weight`` where fitted) for a
    # game the calibration file does not hold: a game kept outside the site (tests/kinds/), or a
    # new one before bench/calibrate_analysis.py fits it. The file's entry wins where both exist.
    calibration: Mapping[str, Any] | None = None


# ---------------------------------------------------------------------------
# The games' hooks, by slug: each game registers its own (``register``); games.kinds registers
# every kind's hooks, named by its ``analysis_hooks``, when the kind is registered.

HOOKS: dict[str, AnalysisHooks] = {}


def register(hooks: AnalysisHooks) -> AnalysisHooks:
    """Make ``hooks`` the analysis of the game ``hooks.slug``.

    Registering other hooks under a slug already taken is a mistake (two modules claiming one
    game); the same hooks again is not (a kind registered a second time).
    """
    existing = HOOKS.get(hooks.slug)
    if existing is not None and existing is not hooks:
        raise ValueError(f"the analysis of {hooks.slug!r} is already registered")
    HOOKS[hooks.slug] = hooks
    return hooks


def unregister(slug: str) -> None:
    """Take a game's analysis off again (a test's own game, at its end)."""
    HOOKS.pop(slug, None)


def hooks_of(slug: str) -> AnalysisHooks:
    """The registered hooks of ``slug``; KeyError for a game without analysis.

    A game of this package (``games/ai/analysis/<slug>.py``, making its ``HOOKS``) is registered
    on first ask when nothing registered it: pure code (the benchmarks, the AI's tests) analyses
    the five games without the site's registry, as ``games.ai.player_module`` finds their players.
    """
    hooks = HOOKS.get(slug)
    if hooks is not None:
        return hooks
    name = f"games.ai.analysis.{slug}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name != name:
            raise  # the game's module is there but imports something missing: not "no such game"
        raise KeyError(slug) from None
    own = getattr(module, "HOOKS", None)
    if not isinstance(own, AnalysisHooks) or own.slug != slug:
        raise KeyError(slug)  # a module of the package that is not a game's (base, search, ...)
    return register(own)


# ---------------------------------------------------------------------------
# The winning-chances curve


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
