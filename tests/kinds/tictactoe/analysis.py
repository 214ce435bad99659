"""Tic-tac-toe's post-game analysis hooks (``games.ai.analysis.AnalysisHooks``): the whole game
solved, so every position's evaluation is proven (a win, a draw or a loss with best play) and
carries its distance to the end.

The kind (``kind()`` in this package) names this module as its ``analysis_hooks``:
``games.kinds.register`` registers ``HOOKS`` with the analysis, and the site's analysis
task then analyses a finished game of tic-tac-toe as it does the five. The calibration file
does not know the game, so its constants travel here (``calibration``).
"""

from __future__ import annotations

from functools import cache

from games.ai.analysis import LINE_LENGTH, AnalysisHooks, PositionEval
from tests.kinds.tictactoe.engine import Board, TicTacToeEngine

ENGINE = TicTacToeEngine()


@cache
def solve(state: Board) -> tuple[int, int, tuple[str, ...]]:
    """(result, plies to the end, best line) for the side to move of ``state``: +1 a win, 0 a draw,
    -1 a loss, the winner hurrying and the loser holding out."""
    outcome = ENGINE.outcome(state)
    if outcome is not None:  # the side to move did not make the last line: it lost, or a draw
        return (0 if outcome.winner is None else -1), 0, ()
    best: tuple[int, int, tuple[str, ...]] | None = None
    for move in ENGINE.legal_moves(state):
        result, plies, line = solve(ENGINE.play(state, move))
        mine = (-result, plies + 1, (move, *line))
        if best is None or _better(mine, best):
            best = mine
    assert best is not None  # an unfinished position has a free cell
    return best


def _better(a: tuple[int, int, tuple[str, ...]], b: tuple[int, int, tuple[str, ...]]) -> bool:
    """A better result; at the same result, a win sooner or a loss (or draw) later."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1] if a[0] > 0 else a[1] > b[1]


def evaluate(engine: TicTacToeEngine, state: Board, *, depth: int) -> PositionEval:
    """The solved value of an unfinished position (``depth``: nine plies, the whole game)."""
    result, plies, line = solve(state)
    sign = 1 if engine.to_move(state) == 0 else -1
    # "only move": every other move gives up the result (a mistake or worse on the -1..+1 scale).
    others = [solve(engine.play(state, move))[0] for move in engine.legal_moves(state) if move != line[0]]
    only = bool(others) and all(-other < result for other in others)
    return PositionEval(float(sign * result), line[0], line[:LINE_LENGTH], only=only, mate=plies)


def phase(state: Board) -> str:
    """Opening for the first two marks, endgame from the sixth."""
    marks = 9 - state.cells.count("-")
    return "opening" if marks < 2 else "end" if marks >= 5 else "middle"


HOOKS = AnalysisHooks(
    slug=TicTacToeEngine.slug,
    budget={"depth": 9},
    python_budget={"depth": 9},
    evaluate=evaluate,
    phase=phase,
    # Proven results only: the curve's scale is never read but for the shape of the data.
    calibration={"scale": 1.0},
)
