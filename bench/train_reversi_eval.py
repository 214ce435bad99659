"""Fit Reversi Hard's pattern evaluation (games/ai/data/reversi_eval_v1.bin) from self-play.

    nice -n 19 .venv/bin/python bench/train_reversi_eval.py --games 6000 [--workers 1] [--seed 1]
    .venv/bin/pip install -e '.[train]'   # scipy, for the least-squares fit (training only)

The way Logistello and Edax were fitted, on a small scale:

1. Self-play on the compiled core: a few random opening plies (2-12, seeded per game: the
   variety), then each side plays a fixed-depth search (``--depth``; the classic evaluation by
   default, or ``--player learned`` for a pattern evaluation, ``--player-weights``). A random
   move after the opening (``--epsilon``, default none) would make the result, and so every
   earlier position's label, depend on a blunder. No clock anywhere: the same seed gives the
   same games on any machine and with any number of workers.
2. Labels: at the first position with ``--solve-empties`` empty squares or fewer the exact
   endgame solver gives the final disc difference with perfect play; every earlier position of
   the game is labelled with it (from its own side to move's point of view), and every later
   one with its own exact score (the game goes on by the solver's best moves, with a random
   move now and then, ``--endgame-epsilon``, for variety: these labels do not depend on it).
3. Fit: per phase (``--phases``, by empty squares, each fitted on its own positions and those
   within ``--overlap`` empties of it, so neighbouring phases agree at their border), damped
   least squares (scipy's ``lsqr``) on the sparse indicator features: the 46 pattern instances
   (the 8 symmetries share a table; mirror-equal configurations share a weight), both sides'
   mobility and a constant. Weights are rounded to 1/``--scale`` of a disc, as int16.

Prints the positions per phase and the fit's error on held-out games (5 %), in discs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import _reversi_tables as tables  # noqa: E402
from games.ai import reversi_eval  # noqa: E402
from games.ai.reversi_search import Search  # noqa: E402
from games.engines.reversi import flips, legal_mask  # noqa: E402

START = (0x0000000810000000, 0x0000001008000000)  # black (to move), white


def _moves(mask: int) -> list[int]:
    return [sq for sq in range(64) if mask >> sq & 1]


def play_game(args: tuple[int, int, int, float, float, int, str]) -> np.ndarray:
    """One seeded self-play game: a row (own, opp, label, own moves, opp moves) per position where
    the side to move has a move, as uint64."""
    seed, game, depth, epsilon, endgame_epsilon, solve_empties, player = args
    rng = random.Random(seed * 1_000_003 + game)
    core = reversi_eval.compiled_core()
    evaluate = reversi_eval.evaluate_learned if player == "learned" else reversi_eval.evaluate_hard
    own, opp = START
    random_plies = rng.randint(2, 12)
    ply = 0
    pending: list[tuple[int, int, int, int, int]] = []  # sign relative to the side to move at solve time
    rows: list[tuple[int, int, int, int, int]] = []
    sign = 1
    exact: int | None = None
    while True:
        moves = legal_mask(own, opp)
        if not moves:
            if not legal_mask(opp, own):
                break
            own, opp, sign = opp, own, -sign
            continue
        n_empty = 64 - (own | opp).bit_count()
        own_moves, opp_moves = moves.bit_count(), legal_mask(opp, own).bit_count()
        if n_empty <= solve_empties:
            score, best, _, _ = core.solve(own, opp, -64, 64, float("inf"))
            if exact is None:
                exact = score
                rows.extend((o, p, s * sign * score, m, n) for o, p, s, m, n in pending)
            rows.append((own, opp, score, own_moves, opp_moves))
            sq = best if rng.random() >= endgame_epsilon else rng.choice(_moves(moves))
        else:
            pending.append((own, opp, sign, own_moves, opp_moves))
            if ply < random_plies or rng.random() < epsilon:
                sq = rng.choice(_moves(moves))
            else:
                search = Search(evaluate, float("inf"))
                order = search.ordered(own, opp, moves, -1, 3)
                sq = search.root(own, opp, depth, order, None)[0][1]
        f = flips(own, opp, sq)
        own, opp = opp ^ f, own | f | (1 << sq)
        sign = -sign
        ply += 1
    if exact is None:  # the game ended before the solver's horizon: the final score labels all
        final = reversi_eval.final_score(own, opp)  # from the view of ``own`` (sign relative to it)
        rows.extend((o, p, s * sign * final, m, n) for o, p, s, m, n in pending)
    # Labels are stored offset by 64 so that the table stays unsigned.
    return np.array([(o, p, label + 64, m, n) for o, p, label, m, n in rows], dtype=np.uint64)


def use_player_weights(path: Path) -> None:
    """Self-play on ``path``'s weights (in this process), not necessarily the committed file's."""
    core = reversi_eval.compiled_core()
    core._PATTERN_ARRAY = np.array(tables.read_weights(path).tables, dtype=np.int16)


def features(rows: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """Column indices (stored-weight slots) of every position's active features: (N, 49) int32."""
    own, opp = rows[:, 0], rows[:, 1]
    own_moves, opp_moves = rows[:, 3].astype(np.int64), rows[:, 4].astype(np.int64)
    columns = []
    for offset, squares in tables.PATTERN_INSTANCES:
        index = np.zeros(own.shape[0], dtype=np.int64)
        for sq in squares:
            digit = ((own >> np.uint64(sq)) & np.uint64(1)) + 2 * ((opp >> np.uint64(sq)) & np.uint64(1))
            index = index * 3 + digit.astype(np.int64)
        columns.append(slot[offset + index])
    cap = tables.MOBILITY_CAP
    columns.append(slot[tables.MOBILITY_OWN + np.minimum(own_moves, cap)])
    columns.append(slot[tables.MOBILITY_OPP + np.minimum(opp_moves, cap)])
    columns.append(np.full(own.shape[0], slot[tables.BIAS]))
    return np.stack(columns, axis=1).astype(np.int32)


def fit(
    cols: np.ndarray, labels: np.ndarray, n_stored: int, damp: float, iterations: int, min_count: int
) -> np.ndarray:
    """Damped least squares; a weight seen in fewer than ``min_count`` positions stays 0 (its
    fitted value would be mostly noise, and zeros keep the file small)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.linalg import lsqr

    counts = np.bincount(cols.ravel(), minlength=n_stored)
    cols = np.where(counts[cols] < min_count, n_stored, cols)  # the rare ones share a dropped column
    n, k = cols.shape
    matrix = csr_matrix(
        (np.ones(n * k), cols.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n_stored + 1), dtype=np.float64
    )
    result = lsqr(matrix, labels, damp=damp, iter_lim=iterations)
    weights: np.ndarray = result[0][:n_stored]
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--depth", type=int, default=4, help="self-play search depth")
    parser.add_argument(
        "--epsilon",
        type=float,
        default=0.0,
        help="chance of a random move after the opening, before the solver",
    )
    parser.add_argument(
        "--endgame-epsilon",
        type=float,
        default=0.1,
        help="chance of a random move once solved (no label depends on it)",
    )
    parser.add_argument("--solve-empties", type=int, default=16)
    parser.add_argument("--player", choices=["classic", "learned"], default="classic")
    parser.add_argument(
        "--player-weights",
        type=Path,
        default=tables.WEIGHTS_PATH,
        help="with --player learned: the weights the self-play uses (an earlier run's file)",
    )
    parser.add_argument("--phases", type=int, default=6)
    parser.add_argument("--overlap", type=int, default=2)
    parser.add_argument("--damp", type=float, default=2.0)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--min-count", type=int, default=4)
    parser.add_argument("--scale", type=int, default=32, help="weight units per disc")
    parser.add_argument("--out", type=Path, default=tables.WEIGHTS_PATH)
    args = parser.parse_args()
    if reversi_eval.compiled_core() is None:
        sys.exit("the compiled core is needed (numba missing or GAMES_AI_PURE_PYTHON set)")

    started = time.perf_counter()
    cpu = time.process_time()
    jobs = [
        (args.seed, game, args.depth, args.epsilon, args.endgame_epsilon, args.solve_empties, args.player)
        for game in range(args.games)
    ]
    rows_by_game: list[np.ndarray] = []
    if args.player == "learned":
        use_player_weights(args.player_weights)
    if args.workers > 1:
        initializer = use_player_weights if args.player == "learned" else None
        with multiprocessing.Pool(args.workers, initializer, (args.player_weights,)) as pool:
            for i, rows in enumerate(pool.imap(play_game, jobs, chunksize=16)):
                rows_by_game.append(rows)
                if (i + 1) % 2000 == 0:
                    print(f"{i + 1} games, {time.perf_counter() - started:.0f} s", flush=True)
    else:
        for i, job in enumerate(jobs):
            rows_by_game.append(play_game(job))
            if (i + 1) % 2000 == 0:
                print(f"{i + 1} games, {time.perf_counter() - started:.0f} s", flush=True)
    played = time.perf_counter() - started
    # The workers' CPU time too (they have ended): what the run cost the machine.
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers_cpu = children.ru_utime + children.ru_stime
    play_cpu = time.process_time() - cpu + workers_cpu
    held_out = np.array([random.Random(args.seed + g).random() < 0.05 for g in range(args.games)])
    test_rows = np.concatenate([np.full(len(rows), held_out[g]) for g, rows in enumerate(rows_by_game)])
    data = np.concatenate(rows_by_game)
    del rows_by_game
    labels = data[:, 2].astype(np.float64) - 64
    occupied = data[:, 0] | data[:, 1]
    n_empty = 64 - np.array([int(x).bit_count() for x in occupied])
    print(
        f"{args.games} games, {len(labels)} positions in {played:.0f} s ({play_cpu:.0f} s CPU)",
        flush=True,
    )

    slot_of, n_stored = tables.compact_layout()
    slot = np.asarray(slot_of, dtype=np.int64)
    phase = np.array([tables.phase_of(int(e), args.phases) for e in range(61)])[n_empty]
    stored = []
    for p in range(args.phases):
        in_phase = phase == p
        empties = np.unique(n_empty[in_phase])
        near = (n_empty >= empties.min() - args.overlap) & (n_empty <= empties.max() + args.overlap)
        train = near & ~test_rows
        weights = fit(
            features(data[train], slot), labels[train], n_stored, args.damp, args.iterations, args.min_count
        )
        rounded = np.clip(np.rint(weights * args.scale), -32767, 32767).astype(np.int16)
        stored.append(rounded.tolist())
        errors = {}
        for name, rows in (("train", in_phase & ~test_rows), ("held-out", in_phase & test_rows)):
            predicted = rounded[features(data[rows], slot)].sum(axis=1) / args.scale
            errors[name] = float(np.sqrt(np.mean((predicted - labels[rows]) ** 2)))
        print(
            f"phase {p} (empties {int(empties.min())}-{int(empties.max())}):"
            f" {int(train.sum())} positions, {int(np.count_nonzero(rounded))} non-zero weights,"
            f" error train {errors['train']:.1f} held-out {errors['held-out']:.1f} discs"
            f" (labels' spread {float(np.std(labels[in_phase & test_rows])):.1f})",
            flush=True,
        )
    tables.write_weights(args.out, stored, args.scale)
    print(
        f"wrote {args.out} ({args.out.stat().st_size // 1024} KB) after {time.perf_counter() - started:.0f} s"
        f" ({workers_cpu + time.process_time() - cpu:.0f} s CPU in all)"
    )


if __name__ == "__main__":
    main()
