"""Measure ProbCut's deviations for Hard's Othello search (``PROBCUT_SIGMA`` in games/ai/_reversi_fast_mid.py).

    .venv/bin/python bench/reversi_probcut_fit.py [--games 60] [--max-depth 10] [--seed 0] [--jobs N]

Plays ``--games`` games of Medium against itself from random 2-4-ply openings and keeps every
position with 12 to 56 empties. Each position is searched by the compiled core on the learned
evaluation, every move to the full depth (no ProbCut), at each depth d from 3 to ``--max-depth``
and at ProbCut's shallow depth for d. For each stage of the game (60-41, 40-21, 20-0 empties) and
depth it prints the number of positions, the mean of v(d) - v(shallow) and its root mean square
(in the evaluation's unit, 1/32 disc), and at the end the table to paste as PROBCUT_SIGMA.
Positions whose value at either depth is a proven result are left out.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai._reversi_fast_mid import PROBCUT_SHALLOW, PROBCUT_STAGES  # noqa: E402
from games.ai.reversi import search_move  # noqa: E402
from games.ai.reversi_eval import WIN, compiled_core  # noqa: E402
from games.engines.reversi import flips, legal_mask  # noqa: E402

LEARNED = 2  # the compiled core's number for evaluate_learned


def sample_positions(games: int, rng: random.Random) -> list[tuple[int, int]]:
    """(side to move, other side) bitboards from Medium's self-play, 12 to 56 empties."""
    positions = []
    for _ in range(games):
        own, opp = 0x0000000810000000, 0x0000001008000000
        plies = 0
        opening = rng.randint(2, 4)
        while True:
            moves = legal_mask(own, opp)
            if not moves:
                if not legal_mask(opp, own):
                    break
                own, opp = opp, own
                continue
            n_empty = 64 - (own | opp).bit_count()
            if 12 <= n_empty <= 56 and plies >= opening:
                positions.append((own, opp))
            if plies < opening:
                squares = [sq for sq in range(64) if moves >> sq & 1]
                sq = rng.choice(squares)
            else:
                sq = search_move(own, opp, "medium", rng, time.perf_counter() + 1.0)
            f = flips(own, opp, sq)
            own, opp = opp ^ f, own | f | (1 << sq)
            plies += 1
    return positions


def value(core, own: int, opp: int, depth: int) -> int:  # type: ignore[no-untyped-def]
    search = core.MidSearch(LEARNED, math.inf)
    score = search.value(own, opp, depth, -10 * WIN, 10 * WIN)
    assert score is not None
    return score


def depth_values(position: tuple[int, int], max_depth: int) -> list[int]:
    """The position's values at depths 0 to ``max_depth`` (index = depth)."""
    core = compiled_core()
    own, opp = position
    return [value(core, own, opp, depth) for depth in range(max_depth + 1)]


def main(games: int, max_depth: int, seed: int, jobs: int) -> int:
    core = compiled_core()
    if core is None:
        print("the compiled core is not available (numba)", file=sys.stderr)
        return 1
    stages = PROBCUT_STAGES
    rng = random.Random(seed)
    positions = sample_positions(games, rng)
    print(f"{len(positions)} positions from {games} games of Medium (seed {seed})")
    diffs: dict[tuple[int, int], list[int]] = {}
    started = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        searched = list(pool.map(depth_values, positions, [max_depth] * len(positions), chunksize=8))
    for (own, opp), values in zip(positions, searched, strict=True):
        n_empty = 64 - (own | opp).bit_count()
        stage = min((60 - n_empty) * stages // 60, stages - 1)
        for depth in range(3, max_depth + 1):
            deep, shallow = values[depth], values[int(PROBCUT_SHALLOW[depth])]
            if abs(deep) >= WIN or abs(shallow) >= WIN:
                continue
            diffs.setdefault((stage, depth), []).append(deep - shallow)
    print(f"searched in {time.perf_counter() - started:.0f} s")
    print("stage (empties)  depth shallow     n   mean    rms")
    table = []
    for stage in range(stages):
        row = []
        for depth in range(3, max_depth + 1):
            found = diffs.get((stage, depth), [])
            if not found:
                row.append(0.0)
                continue
            mean = sum(found) / len(found)
            rms = math.sqrt(sum(d * d for d in found) / len(found))
            row.append(rms)
            empties = f"{60 - 20 * stage}-{0 if stage == stages - 1 else 41 - 20 * stage}"
            print(
                f"{stage} ({empties:>5})      {depth:5} {int(PROBCUT_SHALLOW[depth]):7} {len(found):5} {mean:6.1f} {rms:6.1f}"
            )
        table.append(row)
    print("PROBCUT_SIGMA rows (depth 3 upward):")
    for row in table:
        print("    [" + ", ".join(f"{x:.0f}.0" for x in row) + "],")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--max-depth", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes searching positions")
    args = parser.parse_args()
    sys.exit(main(args.games, args.max_depth, args.seed, args.jobs))
