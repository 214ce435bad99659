"""Post-game computer analysis: evaluate every position, judge every move.

Pure (no Django), on the engines and the computer players' public pieces only.

One scale for all five games: **winning chances** from -1 (the second player
wins) to +1 (the first player wins), 0 for even. Each game's search gives a
score from the point of view of the side to move; ``chances_from_score`` maps
it onto that scale with a logistic curve whose constant per game was fitted
on self-play results (``games/ai/data/analysis_calibration.json``, written by
``bench/calibrate_analysis.py``); a proven result is exactly -1, 0 or +1.

The budget per position is fixed, never a clock, so the same game always gets
the same analysis. On the compiled cores (``BUDGET``, each game's module below):

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

The package, along the hooks:

* ``base``: the constants, the calibration the analysis reads, ``PositionEval``,
  ``MoveJudgement``, ``PlayerSummary``, the curve, and ``AnalysisHooks``;
* ``judging``: judging moves and players from the evaluations (no search);
* ``search``: what every search shares, and the pure-Python alpha-beta fallback;
* ``mcts``: the Monte Carlo games' search (``MonteCarlo``, ``monte_carlo``);
* one module per game (``reversi``, ``ataxx``, ``quantum_ttt``, ``ultimate_ttt``,
  ``four_tac_toe``), each making that game's ``HOOKS``; only they read the game's
  state (its bitboards, its classical squares), the rest uses the engine contract;
* ``entry``: the entry points, which look a game's hooks up by its engine's slug.

Nothing here lists the games. A game's hooks are registered (``register``, into ``HOOKS``)
by its kind: ``games.kinds.register`` registers the hooks its ``analysis_hooks`` module makes,
so a game kept outside this package (the sixth game of tests/kinds/) is analysed like the
five. Without the site's registry (the benchmarks, pure tests), ``hooks_of`` finds a game of
this package by its module's name, ``games/ai/analysis/<slug>.py``.

A game's hooks (``AnalysisHooks``, a frozen dataclass) are all the generic code asks of it:

* ``slug``: the engine's slug, also the game's key in the calibration file
  (``calibration()[slug]``: its curve's ``scale``, and its ``slip`` and
  ``accuracy_weight`` where fitted);
* ``core``: the compiled core's module in ``games.ai`` (``compiled``), None without one;
* ``budget``, ``python_budget``: the fixed budget per position on the core and in pure Python;
* ``evaluate(engine, state, **budget)``: an unfinished position's ``PositionEval``;
* ``phase(state)``: "opening", "middle" or "end" (``PHASES``);
* ``final_exact(outcome)``: a finished game's ``PositionEval.exact`` (None but for Reversi);
* ``calibration``: the game's own calibration entry, for a game the file does not hold.

The fitting itself (the curve's scale, the slip) is not here: it is run by hand, by
``bench/calibrate_analysis.py``, which writes the calibration file the analysis reads.
"""

from __future__ import annotations

from games.ai.analysis.base import (
    BEST_DROP,
    CALIBRATION_FILE,
    EXCELLENT_DROP,
    HOOKS,
    KINDS,
    LABELS,
    LINE_LENGTH,
    ONLY_DROP,
    PHASES,
    ROOT_CLIP,
    SCORE_WEIGHT,
    SEED,
    THRESHOLDS,
    AnalysisHooks,
    MoveJudgement,
    PlayerSummary,
    PositionEval,
    accuracy_weight_of,
    calibrated,
    calibration,
    chances_from_score,
    hooks_of,
    percent,
    register,
    scale_of,
    score_from_chances,
    slip_of,
    unregister,
)
from games.ai.analysis.entry import (
    BUDGET,
    PYTHON_BUDGET,
    budget_for,
    compiled,
    evaluate,
    judge_game,
    phase_of,
)
from games.ai.analysis.judging import (
    classify,
    game_accuracy,
    judge_move,
    label,
    move_accuracy,
    same_search_loss,
    slower_or_sooner,
    summarize,
)

__all__ = [
    "BEST_DROP",
    "BUDGET",
    "CALIBRATION_FILE",
    "EXCELLENT_DROP",
    "HOOKS",
    "KINDS",
    "LABELS",
    "LINE_LENGTH",
    "ONLY_DROP",
    "PHASES",
    "PYTHON_BUDGET",
    "ROOT_CLIP",
    "SCORE_WEIGHT",
    "SEED",
    "THRESHOLDS",
    "AnalysisHooks",
    "MoveJudgement",
    "PlayerSummary",
    "PositionEval",
    "accuracy_weight_of",
    "budget_for",
    "calibrated",
    "calibration",
    "chances_from_score",
    "classify",
    "compiled",
    "evaluate",
    "game_accuracy",
    "hooks_of",
    "judge_game",
    "judge_move",
    "label",
    "move_accuracy",
    "percent",
    "phase_of",
    "register",
    "same_search_loss",
    "scale_of",
    "score_from_chances",
    "slip_of",
    "slower_or_sooner",
    "summarize",
    "unregister",
]
