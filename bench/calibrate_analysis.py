"""Fit each game's curve from the analysis's score to winning chances, on self-play results.

    .venv/bin/python bench/calibrate_analysis.py [--games N] [--seed S] [--epsilon E] [--write] [GAME ...]

Self-play that needs no clock, so a seed gives the same games on any machine: each
side plays the analysis's own best move (``games.ai.analysis.evaluate`` at the
compiled budget), except for the first ``--opening`` plies and, after them, a share
``--epsilon`` of moves, which are drawn at random from the seeded generator (the
errors that make the results vary). Every position of every game is evaluated once;
its score (the side to move's, in the game's calibration units) and the game's final
result for that side (1 win, 0.5 draw, 0 loss) are one sample. Positions the search
proved (score None) are left out: their chances are exact already.

The fitted constant is the logistic's ``scale``: P(win) = 1 / (1 + exp(-score / scale)),
i.e. chances = tanh(score / (2 * scale)), by maximum likelihood (golden-section search on
log(scale)). ``--write`` stores it, with how it was got, in
``games/ai/data/analysis_calibration.json``, which the analysis reads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import analysis  # noqa: E402
from games.engines import ENGINES, get  # noqa: E402


def self_play(slug: str, seed: int, epsilon: float, opening: int) -> tuple[list[tuple[float, int]], float]:
    """One game: (score, side to move) of every unproven position, and side 0's result (1, 0.5, 0)."""
    engine = get(slug)
    rng = Random(seed)
    state = engine.initial()
    samples: list[tuple[float, int]] = []
    ply = 0
    while engine.outcome(state) is None:
        moves = engine.legal_moves(state)
        if ply < opening and len(moves) > 1:
            move = rng.choice(moves)
        else:
            result = analysis.evaluate(engine, state)
            if result.score is not None:
                samples.append((result.score, engine.to_move(state)))
            explore = len(moves) > 1 and rng.random() < epsilon
            move = rng.choice(moves) if explore or result.best is None else result.best
        state = engine.play(state, move)
        ply += 1
    outcome = engine.outcome(state)
    assert outcome is not None
    return samples, 0.5 if outcome.winner is None else (1.0 if outcome.winner == 0 else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("slugs", nargs="*", default=list(ENGINES))
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--epsilon", type=float, default=0.15)
    parser.add_argument("--opening", type=int, default=4)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    data = json.loads(analysis.CALIBRATION_FILE.read_text())
    for slug in args.slugs:
        started = time.process_time()
        samples: list[tuple[float, float]] = []
        results = []
        for game in range(args.games):
            positions, result = self_play(slug, args.seed * 1000 + game, args.epsilon, args.opening)
            results.append(result)
            samples += [(score, result if side == 0 else 1.0 - result) for score, side in positions]
        scale = analysis.fit_scale(samples)
        before = analysis.scale_of(slug)
        seconds = time.process_time() - started
        print(
            f"{slug:<13} games {args.games} (first player {sum(results):.1f}) positions {len(samples):>5}"
            f"  scale {scale:8.3f} (was {before:.3f})  log loss {analysis.log_loss(samples, scale):.4f}"
            f" (was {analysis.log_loss(samples, before):.4f}, coin 0.6931)  {seconds:.0f} s CPU",
            flush=True,
        )
        data = json.loads(analysis.CALIBRATION_FILE.read_text())  # another run may have written meanwhile
        data["games"][slug] = {
            "scale": round(scale, 4),
            "games": args.games,
            "positions": len(samples),
            "log_loss": round(analysis.log_loss(samples, scale), 4),
            "seed": args.seed,
            "epsilon": args.epsilon,
            "opening": args.opening,
            "budget": analysis.budget_for(slug),
            "fitted": datetime.now(UTC).strftime("%Y-%m-%d"),
        }
        if not args.write:
            continue
        data["about"] = (
            "Logistic scale per game: chances = tanh(score / (2 * scale)), fitted by maximum likelihood "
            "on self-play results: .venv/bin/python bench/calibrate_analysis.py --write "
            "(see that script and docs/analysis.md)"
        )
        analysis.CALIBRATION_FILE.write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    from games.ai import warm_up

    warm_up()
    main()
