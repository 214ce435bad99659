"""Fit each game's curve from the analysis's score to winning chances, on self-play results.

    .venv/bin/python bench/calibrate_analysis.py [--games N] [--seed S] [--epsilon E] [--jobs J] [--write] [GAME ...]

Self-play that needs no clock, so a seed gives the same games on any machine: each
side plays the analysis's own best move (``games.ai.analysis.evaluate`` at the
compiled budget), except for the first ``--opening`` plies and, after them, a share
``--epsilon`` of moves, which are drawn at random from the seeded generator (the
errors that make the results vary). Every position of every game is evaluated once;
its score (the side to move's, in the game's calibration units) and the game's final
result for that side (1 win, 0.5 draw, 0 loss) are one sample. Positions the search
proved (score None) are left out of the curve: their chances are exact already.

A game whose proofs carry their distance (Quantum TTT: ``PositionEval.mate``, the plies to
the end with best play) also gets its ``slip``, fitted on the same games: the share of plies
on which these players let a proven result go, by maximum likelihood on every proven
position (did the side to move end with the result the proof gave it, over ``mate``
plies?): P(held) = (1 - slip) ** mate. ``games.ai.analysis.slower_or_sooner`` judges a
lost (or won) position's moves by it.

The game's ``accuracy_weight`` (how hard its accuracy reads a point of winning percentage)
is fitted by ``bench/analysis_accuracy.py --fit-weight`` and kept here as it is.

The fitted constant is the logistic's ``scale``: P(win) = 1 / (1 + exp(-score / scale)),
i.e. chances = tanh(score / (2 * scale)), by maximum likelihood (golden-section search on
log(scale)). ``--write`` stores it, with how it was got, in
``games/ai/data/analysis_calibration.json``, which the analysis reads.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import analysis  # noqa: E402
from games.engines import ENGINES, get  # noqa: E402

# The fitting lives here, not in games.ai.analysis: the site never fits, it reads what --write stored.


def log_loss(samples: Sequence[tuple[float, float]], scale: float) -> float:
    """Mean log loss of the logistic ``1 / (1 + exp(-score / scale))`` on (score, result 0..1) samples."""
    total = 0.0
    for score, result in samples:
        p = 1.0 / (1.0 + math.exp(max(-60.0, min(60.0, -score / scale))))
        p = min(1 - 1e-9, max(1e-9, p))
        total -= result * math.log(p) + (1 - result) * math.log(1 - p)
    return total / len(samples)


def fit_scale(samples: Sequence[tuple[float, float]]) -> float:
    """The maximum-likelihood logistic scale for (score, result) samples.

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
    """The maximum-likelihood ``slip`` for (plies to the end, the proven result held) samples:
    P(held) = (1 - slip) ** plies. A golden-section search on slip in (0, 0.5): the loss has one
    minimum."""

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


def self_play(
    slug: str, seed: int, epsilon: float, opening: int
) -> tuple[list[tuple[float, int]], list[tuple[int, int, int]], float]:
    """One game: (score, side to move) of every unproven position, (mate, proven winner, side to move)
    of every proven one with a distance, and side 0's result (1, 0.5, 0)."""
    engine = get(slug)
    rng = Random(seed)
    state = engine.initial()
    samples: list[tuple[float, int]] = []
    proofs: list[tuple[int, int, int]] = []
    ply = 0
    while engine.outcome(state) is None:
        moves = engine.legal_moves(state)
        if ply < opening and len(moves) > 1:
            move = rng.choice(moves)
        else:
            result = analysis.evaluate(engine, state)
            if result.score is not None:
                samples.append((result.score, engine.to_move(state)))
            elif result.mate is not None and result.chances != 0:
                proofs.append((result.mate, 0 if result.chances > 0 else 1, engine.to_move(state)))
            explore = len(moves) > 1 and rng.random() < epsilon
            move = rng.choice(moves) if explore or result.best is None else result.best
        state = engine.play(state, move)
        ply += 1
    outcome = engine.outcome(state)
    assert outcome is not None
    return samples, proofs, 0.5 if outcome.winner is None else (1.0 if outcome.winner == 0 else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("slugs", nargs="*", default=list(ENGINES))
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--epsilon", type=float, default=0.15)
    parser.add_argument("--opening", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=1, help="games played at once (one process each)")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    data = json.loads(analysis.CALIBRATION_FILE.read_text())
    for slug in args.slugs:
        started = time.time()
        samples: list[tuple[float, float]] = []
        proofs: list[tuple[int, bool]] = []
        results = []
        play = functools.partial(self_play, slug, epsilon=args.epsilon, opening=args.opening)
        seeds = [args.seed * 1000 + game for game in range(args.games)]
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:  # forked: the cores stay loaded
            played = pool.map(play, seeds, chunksize=1)
        for positions, proven, result in played:
            results.append(result)
            samples += [(score, result if side == 0 else 1.0 - result) for score, side in positions]
            winner = None if result == 0.5 else (0 if result == 1.0 else 1)
            proofs += [(mate, winner == proven_winner) for mate, proven_winner, _ in proven]
        scale = fit_scale(samples)
        before = analysis.scale_of(slug)
        seconds = time.time() - started
        print(
            f"{slug:<13} games {args.games} (first player {sum(results):.1f}) positions {len(samples):>5}"
            f"  scale {scale:8.3f} (was {before:.3f})  log loss {log_loss(samples, scale):.4f}"
            f" (was {log_loss(samples, before):.4f}, coin 0.6931)  {seconds:.0f} s with {args.jobs} job(s)",
            flush=True,
        )
        slip = None
        if proofs:
            per_ply = fit_slip(proofs)
            held = sum(h for _, h in proofs)
            slip = {"per_ply": round(per_ply, 4), "proven_positions": len(proofs), "held": held}
            print(
                f"{'':<13} proven positions {len(proofs)} (held {held})  slip {per_ply:.4f} a ply", flush=True
            )
        data = json.loads(analysis.CALIBRATION_FILE.read_text())  # another run may have written meanwhile
        # a new game has no entry yet: this run adds it
        kept = {k: v for k, v in data["games"].get(slug, {}).items() if k == "accuracy_weight"}
        data["games"][slug] = {
            "scale": round(scale, 4),
            "games": args.games,
            "positions": len(samples),
            "log_loss": round(log_loss(samples, scale), 4),
            "seed": args.seed,
            "epsilon": args.epsilon,
            "opening": args.opening,
            "budget": analysis.budget_for(slug),
            "fitted": datetime.now(UTC).strftime("%Y-%m-%d"),
            **({"slip": slip} if slip else {}),
            **kept,
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
