"""Solve the FFO endgame positions exactly and compare with the published answers.

    .venv/bin/python bench/reversi_endgame.py [path/to/file.obf]   # default tests/data/fforum-1-19.obf
    .venv/bin/python bench/reversi_endgame.py tests/data/fforum-40-59.obf   # FForum 40-59 (issue #42)
    GAMES_AI_PURE_PYTHON=1 .venv/bin/python bench/reversi_endgame.py   # the pure-Python solver

The solver runs on the compiled core when numba is available (loaded, or
compiled the first time, before the clock starts) and on the pure-Python code
otherwise; the header line says which.

Each line of the file is a position (64 squares, side to move) followed by every
legal move with its exact final disc difference, best first. The solver must
find the published best score, and its move must be one of the moves that
reach it (several may tie). Prints one line per position and the total time
(wall clock and CPU time, which differ when the machine is busy); exits with
status 1 on any mismatch.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ai import warm_up  # noqa: E402
from games.ai.reversi_endgame import EndgameSolver  # noqa: E402
from games.ai.reversi_eval import compiled_core  # noqa: E402
from games.engines.reversi import SQUARE_NAMES, ReversiEngine  # noqa: E402

DEFAULT_FILE = Path(__file__).resolve().parents[1] / "tests" / "data" / "fforum-1-19.obf"


def parse_line(line: str) -> tuple[str, dict[str, int]]:
    """Position text and the published score of every move."""
    position, _, answers = line.partition(";")
    scores = {}
    for pair in answers.split(";"):
        pair = pair.strip()
        if pair:
            move, score = pair.split(":")
            scores[move.lower()] = int(score)
    return position.strip(), scores


def main(path: Path) -> int:
    engine = ReversiEngine()
    warm_up()
    print(f"solver: {'compiled (numba)' if compiled_core() is not None else 'pure Python'}")
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    total_time = total_cpu = 0.0
    total_nodes = 0
    failures = 0
    print(
        f"{'#':>3} {'empties':>7} {'time s':>8} {'cpu s':>7} {'nodes':>9} {'score':>6} {'move':>5}  published"
    )
    # FForum numbers its positions across files: fforum-40-59.obf starts at 40.
    first = re.match(r"fforum-(\d+)-", path.name)
    for number, line in enumerate(lines, start=int(first.group(1)) if first else 1):
        text, published = parse_line(line)
        state = engine.from_fen(text)
        own, opp = (state.black, state.white) if state.side == 0 else (state.white, state.black)
        empties = 64 - (own | opp).bit_count()
        solver = EndgameSolver()
        started, cpu_started = time.perf_counter(), time.process_time()
        score, sq = solver.solve(own, opp)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        total_time += elapsed
        total_cpu += cpu
        total_nodes += solver.nodes
        move = SQUARE_NAMES[sq] if sq is not None else "pass"
        best = max(published.values())
        ok = score == best and published.get(move) == best
        failures += not ok
        best_moves = ",".join(m for m, s in published.items() if s == best)
        print(
            f"{number:>3} {empties:>7} {elapsed:>8.2f} {cpu:>7.2f} {solver.nodes:>9} {score:>+6} {move:>5}  "
            f"{best_moves}:{best:+}  {'ok' if ok else 'MISMATCH'}"
        )
    print(
        f"total {total_time:.2f} s ({total_cpu:.2f} s cpu), {total_nodes} nodes ({total_nodes / total_cpu:,.0f} nodes per cpu second), {failures} mismatches"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_FILE))
