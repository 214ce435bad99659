"""Check the Othello opening book's moves with Hard's own search.

    .venv/bin/python bench/reversi_book_check.py [--depth 10] [--margin 2.0]

For every move of every line of games/ai/data/reversi_openings.txt (each position once), every
legal move of the position is scored by Hard's search (``evaluate_learned``, principal variation
search to ``--depth`` plies, an exact score for every move), and the book move's loss against the
best is printed in discs, with what the game report (``games.ai.analysis``, at its fixed budget)
would say of the move: its accuracy and its label. Moves that lose more than ``--margin`` discs,
or that the report calls an error, are printed again at the end as ``avoid:`` lines, in the book
file's form, for a person to judge against published theory and paste into the file (the file's
avoid lines are what Hard obeys; this script changes nothing).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import warm_up  # noqa: E402
from games.ai.analysis import PositionEval, evaluate, judge_game  # noqa: E402
from games.ai.reversi_book import book_text  # noqa: E402
from games.ai.reversi_eval import WIN, compiled_core, evaluate_learned  # noqa: E402
from games.ai.reversi_search import Search  # noqa: E402
from games.engines.reversi import SQUARE_NAMES, ReversiEngine, legal_mask  # noqa: E402

UNITS_PER_DISC = 32  # evaluate_learned counts in 1/32 of a disc


def main(depth: int, margin: float) -> int:
    warm_up()
    print(f"search: {'compiled (numba)' if compiled_core() is not None else 'pure Python'}, depth {depth}")
    engine = ReversiEngine()
    text = book_text()
    avoided = set(text.avoided)
    seen: set[tuple[str, ...]] = set()
    flagged: list[tuple[tuple[str, ...], float, str]] = []
    started = time.perf_counter()
    evaluations: dict[tuple[str, ...], PositionEval] = {}
    for opening in text.openings:
        state, states = engine.initial(), [engine.initial()]
        for move in opening.moves:
            state = engine.play(state, move)
            states.append(state)
        evals = []
        for ply, position in enumerate(states):
            prefix = opening.moves[:ply]
            if prefix not in evaluations:
                evaluations[prefix] = evaluate(engine, position)
            evals.append(evaluations[prefix])
        judged = judge_game(engine, list(opening.moves), evals)
        for ply, move in enumerate(opening.moves):
            prefix = opening.moves[: ply + 1]
            if prefix in seen:
                continue
            seen.add(prefix)
            position = states[ply]
            own, opp = (
                (position.black, position.white) if position.side == 0 else (position.white, position.black)
            )
            search = Search(evaluate_learned, float("inf"))
            order = search.ordered(own, opp, legal_mask(own, opp), -1, 3)
            results = search.root(own, opp, depth, order, 20 * WIN)
            scores = {SQUARE_NAMES[sq]: score for score, sq in results}
            loss = (results[0][0] - scores[move]) / UNITS_PER_DISC
            best = SQUARE_NAMES[results[0][1]]
            report = judged[ply]
            mark = " (avoided)" if prefix in avoided else ""
            print(
                f"{' '.join(prefix):<56} loss {loss:5.2f} (best {best})"
                f"  report {report.accuracy:5.1f} % {report.kind or report.label}{mark}"
            )
            if loss > margin or report.kind is not None:
                flagged.append((prefix, loss, report.kind or ""))
    print(f"{len(seen)} book moves in {time.perf_counter() - started:.1f} s")
    print(f"\nmoves more than {margin} discs below the best at depth {depth}, or errors in the report:")
    for prefix, loss, kind in flagged:
        said = f"; the report: {kind}" if kind else ""
        print(f"avoid: {' '.join(prefix)}  {loss:.1f} discs below the best at depth {depth}{said}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--margin", type=float, default=2.0, help="discs")
    args = parser.parse_args()
    sys.exit(main(args.depth, args.margin))
