"""Judging moves and players from the evaluations of the positions (no search here).

A move is judged against the other moves of the search of the position before it
(``same_search_loss``), else by the drop in the mover's winning chances between the two
positions (``judge_move``); a player's accuracy is lichess's (``game_accuracy``,
``summarize``). The package docstring has the whole rule.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from games.ai.analysis.base import (
    BEST_DROP,
    EXCELLENT_DROP,
    PHASES,
    SCORE_WEIGHT,
    THRESHOLDS,
    MoveJudgement,
    PlayerSummary,
    PositionEval,
    chances_from_score,
    percent,
)


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
