"""Our computer player against an outside engine: UAI (Ataxx), UGI (Ultimate TTT) or Flippy (Reversi).

    .venv/bin/python bench/versus_engine.py ultimate_ttt /path/to/uttt --time-factor 1 [--games 40]
    .venv/bin/python bench/versus_engine.py ataxx /path/to/tiktaxx --time-factor 2 --clock cpu
    .venv/bin/python bench/versus_engine.py ataxx /path/to/tiktaxx --movetime-ms 25
    .venv/bin/python bench/versus_engine.py reversi /work/ext-othello/flippy/FlippyT --equal-time [--time-factor 0.1]
    .venv/bin/python bench/versus_engine.py ultimate_ttt /path/to/uttt --equal-time --games 240 --jobs 16

``--jobs N`` plays N games at a time, each in a process of its own pinned to one core
(``sched_setaffinity``), the outside engine it starts pinned with it, so neither side's search
shares a core. It prints W-D-L, the score with its Elo difference and 95 % interval, and the
machine (cores, processor). Issue #42 asks for at least 200 games a row: at ±14 points per 40
games, fewer say little.

``--equal-time`` alone is ``--time-factor 1``. Our Hard takes its whole budget in
the midgame and little once a solver has the game, so the time of our move
just before follows the stage of the game and the totals come out equal.

Reversi's engine is Flippy (jeffreyan11/othello_engine at 645ebbe), built
with ``bench/patch_flippy.py`` so that its protocol's milliseconds are one
move's (see that file). It is started once a game, in its own directory (it
reads ``Flippy_Resources/`` from there), from the game's position
(``FlippyT black|white TAKEN BLACK``, hexadecimal bitboards, a1 = bit 0, as
ours); each turn it is told our last move (``x y ms``, ``-1 -1`` for none or
a pass) and answers its own (``-1 -1`` for a pass). Its CPU time is read from
``/proc`` (Linux), so both sides' CPU per move is printed. It stops on the
wall clock, as uttt does.

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
import math
import multiprocessing
import os
import platform
import random
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ai import budget_for, choose_move, warm_up  # noqa: E402
from games.engines import ENGINES  # noqa: E402
from games.engines.reversi import PASS, SQUARE_NAMES, ReversiState  # noqa: E402

PROTOCOL = {"ataxx": "uai", "ultimate_ttt": "ugi", "reversi": "flippy"}


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


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), 0 where there is no /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Flippy:
    """One game against Flippy (its own process, started from the game's position)."""

    def __init__(self, path: str, state: ReversiState, side: int) -> None:
        taken, black = state.black | state.white, state.black
        self.proc = subprocess.Popen(
            [str(Path(path).resolve()), "black" if side == 0 else "white", f"{taken:x}", f"{black:x}"],
            cwd=Path(path).resolve().parent,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._send("isready")
        while self._line() != "ready":
            pass
        self.started_cpu = _cpu_seconds(self.proc.pid)  # its tables are read by now
        self.cpu = 0.0

    def _send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("Flippy stopped")
        return line.strip()

    def best_move(self, our_last: str | None, movetime_ms: int) -> str:
        if our_last is None or our_last == PASS:
            x = y = -1
        else:
            sq = SQUARE_NAMES.index(our_last)
            x, y = sq % 8, sq // 8
        before = _cpu_seconds(self.proc.pid)
        self._send(f"{x} {y} {max(1, movetime_ms)}")
        mx, my = (int(v) for v in self._line().split()[:2])
        self.cpu += _cpu_seconds(self.proc.pid) - before
        return PASS if mx < 0 else SQUARE_NAMES[mx + 8 * my]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


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


@dataclass
class Tally:
    """What a set of games came to, from our side; tallies of several processes add up."""

    results: list[float] = field(default_factory=list)  # 1, 0.5 or 0 a game
    stopped: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    moves: int = 0
    their_wall: float = 0.0
    their_moves: int = 0
    our_max: float = 0.0
    cpu_max: float = 0.0
    discs: int = 0
    peer_cpu: float = 0.0
    peer_ms: int = 0

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            if name == "results":
                self.results += value
            elif name in ("our_max", "cpu_max"):
                setattr(self, name, max(getattr(self, name), value))
            else:
                setattr(self, name, getattr(self, name) + value)

    @property
    def wdl(self) -> tuple[int, int, int]:
        return self.results.count(1.0), self.results.count(0.5), self.results.count(0.0)


def elo_interval(results: list[float]) -> tuple[float, float, float]:
    """The Elo difference of a score and its 95 % interval (normal approximation over the games)."""
    n = len(results)
    mean = sum(results) / n
    spread = math.sqrt(sum((r - mean) ** 2 for r in results) / n) / math.sqrt(n)

    def elo(score: float) -> float:
        if not 0 < score < 1:  # all won or all lost: no finite difference
            return math.copysign(math.inf, score - 0.5)
        return -400 * math.log10(1 / score - 1)

    return elo(mean) + 0.0, elo(mean - 1.96 * spread), elo(mean + 1.96 * spread)  # + 0.0: no "-0"


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def play_games(args: argparse.Namespace, indices: list[int], core: int | None) -> Tally:
    """Plays the games numbered ``indices``; with ``core``, this process and the engines it starts
    (they inherit the mask) run on that core alone."""
    if core is not None:
        os.sched_setaffinity(0, {core})
    game = ENGINES[args.slug]
    warm_up()
    flippy = PROTOCOL[args.slug] == "flippy"
    outside = None if flippy else OutsideEngine(args.engine, PROTOCOL[args.slug])
    tally = Tally()
    time_factor = args.time_factor  # resolved by main(): None with --movetime-ms

    def movetime(our_last: float | None) -> int:
        if time_factor is None:
            return int(args.movetime_ms)
        # Before our first move of a game the engine gets our budget.
        reference = our_last if our_last is not None else args.budget or budget_for(args.slug, args.level)
        return max(1, round(1000 * time_factor * reference))

    try:
        for i in indices:
            rng = random.Random(args.seed + i // 2)
            our_side = i % 2
            state = game.initial()
            for _ in range(rng.randint(2, 4)):
                state = game.play(state, rng.choice(game.legal_moves(state)))
            peer = Flippy(args.engine, state, 1 - our_side) if flippy else None
            our_move: str | None = None
            our_time: float | None = None
            ply = 0
            try:
                while game.outcome(state) is None and ply < args.max_plies:
                    if args.slug == "ataxx" and state.halfmove >= 100:
                        break  # the community's 50-move draw (see above)
                    legal = game.legal_moves(state)
                    if game.to_move(state) == our_side:
                        if peer is not None and legal == [PASS]:
                            move = PASS  # not timed: the engine's next movetime follows a real move
                        else:
                            began, began_wall = time.process_time(), time.perf_counter()
                            move = choose_move(
                                game, state, args.level, seed=i * 1000 + ply, time_budget=args.budget
                            )
                            our_cpu = time.process_time() - began
                            our_wall = time.perf_counter() - began_wall
                            tally.cpu += our_cpu
                            tally.wall += our_wall
                            tally.our_max = max(tally.our_max, our_wall)
                            tally.cpu_max = max(tally.cpu_max, our_cpu)
                            our_time = our_cpu if args.clock == "cpu" else our_wall
                            tally.moves += 1
                        our_move = move
                    else:
                        ms = movetime(our_time)
                        began_wall = time.perf_counter()
                        if peer is not None:
                            # Flippy is asked on each of its turns, passes included: it learns our move.
                            move = peer.best_move(our_move, ms)
                            tally.peer_ms += ms
                            if move == PASS and legal != [PASS]:
                                # Flippy names no move when its solver finds every move loses all
                                # 64 discs (-1 0 on the wire): any move then does, so play one.
                                print(
                                    f"  Flippy named no move (all lose 64) in {game.fen(state)}", flush=True
                                )
                                move = legal[0]
                            if move not in legal:
                                raise RuntimeError(f"Flippy's {move!r} is not legal in {game.fen(state)}")
                        else:
                            assert outside is not None
                            move = normalise(args.slug, outside.best_move(game.fen(state), ms), legal)
                        tally.their_wall += time.perf_counter() - began_wall
                        tally.their_moves += 1
                    state = game.play(state, move)
                    ply += 1
            finally:
                if peer is not None:
                    tally.peer_cpu += peer.cpu
                    peer.close()
            outcome = game.outcome(state)
            if outcome is None:
                tally.stopped += 1
                result = 0.5
                print(f"game {i + 1} stopped after {ply} plies at {game.fen(state)}", flush=True)
            else:
                result = 0.5 if outcome.winner is None else 1.0 if outcome.winner == our_side else 0.0
            tally.results.append(result)
            if args.slug == "reversi":
                black, white = game.score(state)
                tally.discs += (black - white) * (1 if our_side == 0 else -1)
            word = {1.0: "win", 0.5: "draw", 0.0: "loss"}[result]
            print(
                f"game {i + 1} ({f'core {core}' if core is not None else 'one process'}): {word}",
                flush=True,
            )
    finally:
        if outside is not None:
            outside.close()
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("slug", choices=sorted(PROTOCOL))
    parser.add_argument("engine")
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--movetime-ms", type=int, help="a fixed movetime for the engine")
    given.add_argument(
        "--time-factor",
        type=float,
        help="the engine's movetime is this times the time our side took for its last move",
    )
    parser.add_argument(
        "--equal-time", action="store_true", help="--time-factor 1 (or the factor given) on wall time"
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="with --time-factor: which of our times the engine gets (the clock it stops on)",
    )
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="games played at once, each process pinned to a core of its own with its engine"
        " (at most the cores this process may use); 1: one process, not pinned",
    )
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
    time_factor = args.time_factor if args.time_factor is not None else 1.0 if args.equal_time else None
    if time_factor is None and args.movetime_ms is None:
        parser.error("give --movetime-ms, --time-factor or --equal-time")
    args.time_factor = time_factor  # what play_games reads, in this process and the spawned ones
    cores = sorted(os.sched_getaffinity(0))
    if not 1 <= args.jobs <= len(cores):
        parser.error(f"--jobs must be between 1 and the {len(cores)} cores this process may use")
    indices = list(range(args.games))
    if args.jobs == 1:
        tally = play_games(args, indices, None)
    else:
        tally = Tally()
        # Spawned, not forked: each process loads the compiled cores itself, on its own core.
        with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            shares = [indices[k :: args.jobs] for k in range(args.jobs)]
            for share_tally in pool.map(play_games, [args] * args.jobs, shares, cores[: args.jobs]):
                tally.add(share_tally)
    wins, draws, losses = tally.wdl
    played = len(tally.results)
    score = sum(tally.results) / max(played, 1)
    given = f"{time_factor:g}x our {args.clock} time" if time_factor is not None else f"{args.movetime_ms} ms"
    peer_text = ""
    if PROTOCOL[args.slug] == "flippy":
        peer_text = (
            f"; Flippy given {tally.peer_ms / max(tally.their_moves, 1):.0f} ms a move, used"
            f" {1000 * tally.peer_cpu / max(tally.their_moves, 1):.0f} ms cpu a move; disc sum {tally.discs:+d}"
        )
    print(
        f"{args.slug} {args.level} v {Path(args.engine).name} at {given}: {wins}-{draws}-{losses}"
        f" ({100 * score:.0f} %); wall ms/move ours {1000 * tally.wall / max(tally.moves, 1):.0f}"
        f" (max {1000 * tally.our_max:.0f}), theirs {1000 * tally.their_wall / max(tally.their_moves, 1):.0f};"
        f" our cpu {1000 * tally.cpu / max(tally.moves, 1):.0f} ms/move (max {1000 * tally.cpu_max:.0f})"
        + peer_text
        + (
            f"; {tally.stopped} stopped (100 plies without a clone, or {args.max_plies} in all): draws"
            if tally.stopped
            else ""
        )
    )
    if played:
        elo, low, high = elo_interval(tally.results)
        print(f"{played} games: score {100 * score:.1f} %, Elo {elo:+.0f} [{low:+.0f}, {high:+.0f}] (95 %)")
    where = (
        f"{args.jobs} games at a time, one per core (cores {cores[: args.jobs]})"
        if args.jobs > 1
        else "one game at a time"
    )
    print(f"on {os.cpu_count()} cores of {cpu_model()}; {where}")


if __name__ == "__main__":
    main()
