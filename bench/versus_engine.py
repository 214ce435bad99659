"""Our computer player against an outside engine that speaks UAI (Ataxx) or UGI (Ultimate TTT).

    .venv/bin/python bench/versus_engine.py ultimate_ttt /path/to/uttt --time-factor 1 [--games 40]
    .venv/bin/python bench/versus_engine.py ataxx /path/to/tiktaxx --time-factor 2
    .venv/bin/python bench/versus_engine.py ataxx /path/to/tiktaxx --movetime-ms 25

Build the outside engine yourself, outside this repository (nothing here
fetches or builds one; docs/performance.md says how the issue's engines were
built). Each game starts from a random opening of 2-4 plies (seeded), played
twice with colours swapped. Our side plays ``--level`` at its default budget
(or ``--budget`` seconds); the engine is told the position as
``position fen <FEN>`` (our FEN is the same notation as the community's for
both games) and gets ``go movetime N`` per move: with ``--time-factor F``,
N is F times the time our side actually took for its last move ("equal
time" is F = 1), measured on the clock the engine stops on (``--clock``:
mcthouacbb/uttt stops on the wall clock, ``steady_clock``; tiktaxx on its
process's CPU time, ``clock()``, so on a loaded machine it needs
``--clock cpu``, or it gets more CPU than we had); with ``--movetime-ms`` a
fixed N. Both
engines are single-threaded (the issue's engines default to one thread).
Prints W-D-L from our side, and both sides' wall time per move and our CPU
time per move (time.process_time: the machine is shared).

Our Ataxx has no move-count rule, the community's (libataxx, UAI engines) a draw
after 100 plies without a clone: tiktaxx then only answers ``0000``. So an Ataxx
game whose halfmove clock reaches 100 is stopped and counted a draw, as the
engine's rules have it; any game still running after ``--max-plies`` (500) too.
Each one stopped is printed with its position.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import budget_for, choose_move, warm_up  # noqa: E402
from games.engines import ENGINES  # noqa: E402

PROTOCOL = {"ataxx": "uai", "ultimate_ttt": "ugi"}


class OutsideEngine:
    def __init__(self, path: str, protocol: str) -> None:
        self.proc = subprocess.Popen(
            [path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.send(protocol)
        self.wait_for(f"{protocol}ok")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, prefix: str) -> str:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the engine stopped")
            if line.startswith(prefix):
                return line.strip()

    def best_move(self, fen: str, movetime_ms: int) -> str:
        self.send(f"position fen {fen}")
        self.send(f"go movetime {movetime_ms}")
        return self.wait_for("bestmove").split()[1]

    def close(self) -> None:
        self.send("quit")
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def normalise(slug: str, move: str, legal: list[str]) -> str:
    if move in legal:
        return move
    lowered = move.lower()
    for candidate in legal:
        if candidate.lower() == lowered:
            return candidate
    if slug == "ataxx" and move in ("0000", "pass") and legal == ["0000"]:
        return "0000"
    raise RuntimeError(f"engine move {move!r} is not legal here: {legal}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("slug", choices=sorted(PROTOCOL))
    parser.add_argument("engine")
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--movetime-ms", type=int, help="a fixed movetime for the engine")
    given.add_argument(
        "--time-factor",
        type=float,
        help="the engine's movetime is this times the wall time our side took for its last move",
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="with --time-factor: which of our times the engine gets (the clock it stops on)",
    )
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--budget", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-plies",
        type=int,
        default=500,
        help="a game still running after this many plies counts as a draw",
    )
    args = parser.parse_args()
    game = ENGINES[args.slug]
    warm_up()
    outside = OutsideEngine(args.engine, PROTOCOL[args.slug])
    wins = draws = losses = stopped = 0
    cpu, wall, moves = 0.0, 0.0, 0
    their_wall, their_moves = 0.0, 0
    our_max = cpu_max = 0.0
    try:
        for i in range(args.games):
            rng = random.Random(args.seed + i // 2)
            our_side = i % 2
            state = game.initial()
            for _ in range(rng.randint(2, 4)):
                state = game.play(state, rng.choice(game.legal_moves(state)))
            ply = 0
            # Before our first move of a game the engine gets our budget.
            our_last: float | None = args.budget
            while (outcome := game.outcome(state)) is None and ply < args.max_plies:
                if args.slug == "ataxx" and state.halfmove >= 100:
                    break  # the community's 50-move draw (see above)
                legal = game.legal_moves(state)
                if game.to_move(state) == our_side:
                    began, began_wall = time.process_time(), time.perf_counter()
                    move = choose_move(game, state, args.level, seed=i * 1000 + ply, time_budget=args.budget)
                    our_cpu = time.process_time() - began
                    our_wall = time.perf_counter() - began_wall
                    cpu += our_cpu
                    wall += our_wall
                    our_max = max(our_max, our_wall)
                    cpu_max = max(cpu_max, our_cpu)
                    our_last = our_cpu if args.clock == "cpu" else our_wall
                    moves += 1
                else:
                    if args.time_factor is not None:
                        reference = our_last if our_last is not None else budget_for(args.slug, args.level)
                        movetime = max(1, round(1000 * args.time_factor * reference))
                    else:
                        movetime = args.movetime_ms
                    began_wall = time.perf_counter()
                    move = normalise(args.slug, outside.best_move(game.fen(state), movetime), legal)
                    their_wall += time.perf_counter() - began_wall
                    their_moves += 1
                state = game.play(state, move)
                ply += 1
            if outcome is None:
                stopped += 1
                draws += 1
                print(f"game {i + 1} stopped after {ply} plies at {game.fen(state)}", flush=True)
            elif outcome.winner is None:
                draws += 1
            elif outcome.winner == our_side:
                wins += 1
            else:
                losses += 1
            print(f"game {i + 1}: {wins}-{draws}-{losses}", flush=True)
    finally:
        outside.close()
    score = (wins + 0.5 * draws) / max(wins + draws + losses, 1)
    given = (
        f"{args.time_factor:g}x our {args.clock} time"
        if args.time_factor is not None
        else f"{args.movetime_ms} ms"
    )
    print(
        f"{args.slug} {args.level} v {Path(args.engine).name} at {given}: {wins}-{draws}-{losses}"
        f" ({100 * score:.0f} %); wall ms/move ours {1000 * wall / max(moves, 1):.0f}"
        f" (max {1000 * our_max:.0f}), theirs {1000 * their_wall / max(their_moves, 1):.0f};"
        f" our cpu {1000 * cpu / max(moves, 1):.0f} ms/move (max {1000 * cpu_max:.0f})"
        + (
            f"; {stopped} stopped (100 plies without a clone, or {args.max_plies} in all): draws"
            if stopped
            else ""
        )
    )


if __name__ == "__main__":
    main()
