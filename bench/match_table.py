"""Issue #42's match table in one command: our Hard against each outside engine at equal time.

    .venv/bin/python bench/match_table.py --games 200 --jobs 16 \\
        --reversi /work/ext-othello/flippy/FlippyT \\
        --ultimate-ttt /work/ext-uttt/uttt/build/uttt \\
        --ataxx /work/ext-uttt/tiktaxx/bin/tiktaxx

Each engine given is played by ``bench/versus_engine.py`` as the issue measures it: ``--equal-time``,
on the wall clock for Flippy and uttt (they stop on it), on the CPU clock for tiktaxx (it stops on
its process's CPU time). Every match's own lines go by as they come; at the end one Markdown row per
game: the engine, games, W-D-L from our side, score and Elo with its 95 % interval, then the
machine. Build the engines outside the repository (bench/README.md, docs/performance.md).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "versus_engine.py"

# slug -> (the option naming its engine, the clock the engine stops on)
GAMES = {
    "reversi": ("--reversi", "wall"),
    "ultimate_ttt": ("--ultimate-ttt", "wall"),
    "ataxx": ("--ataxx", "cpu"),
}

SUMMARY = re.compile(r"^\S+ \S+ v (?P<engine>\S+) at .*?: (?P<wdl>\d+-\d+-\d+) ", re.M)
SCORE = re.compile(r"^(?P<games>\d+) games: score (?P<score>[\d.]+ %), Elo (?P<elo>.+?) \(95 %\)$", re.M)
MACHINE = re.compile(r"^on (?P<machine>\d+ cores of [^;]+);", re.M)


def play(slug: str, engine: str, args: argparse.Namespace) -> dict[str, str]:
    """Runs one match, echoing its output, and returns its summary's fields."""
    clock = GAMES[slug][1]
    command = [sys.executable, str(SCRIPT), slug, engine, "--equal-time", "--clock", clock]
    command += ["--games", str(args.games), "--jobs", str(args.jobs), "--level", args.level]
    command += ["--seed", str(args.seed)]
    print("$ " + " ".join(command), flush=True)
    lines = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)
            lines.append(line)
    out = "".join(lines)
    if process.returncode != 0:
        raise SystemExit(f"{slug}: versus_engine.py exited with {process.returncode}")
    found: dict[str, str] = {"game": slug, "clock": clock}
    for pattern in (SUMMARY, SCORE, MACHINE):
        match = pattern.search(out)
        if match is None:
            raise SystemExit(f"{slug}: no {pattern.pattern!r} in versus_engine.py's output")
        found.update(match.groupdict())
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for slug, (option, _clock) in GAMES.items():
        parser.add_argument(option, dest=slug, metavar="PATH", help=f"the {slug} engine's executable")
    parser.add_argument(
        "--games", type=int, default=200, help="games per engine (the issue asks for 200 or more)"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="games at once, one per core (versus_engine.py --jobs)"
    )
    parser.add_argument("--level", default="hard")
    parser.add_argument("--seed", type=int, default=0, help="the random openings")
    args = parser.parse_args()
    engines = [(slug, getattr(args, slug)) for slug in GAMES if getattr(args, slug)]
    if not engines:
        parser.error("name at least one engine: " + ", ".join(option for option, _ in GAMES.values()))
    rows = [play(slug, engine, args) for slug, engine in engines]
    print()
    print("| game | engine | clock | games | W-D-L (ours) | score | Elo [95 %] |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['game']} | {row['engine']} | equal {row['clock']} time | {row['games']} | {row['wdl']}"
            f" | {row['score']} | {row['elo']} |"
        )
    machines = sorted({row["machine"] for row in rows})
    print(f"\n{args.level} at its default budget; on {', '.join(machines)}; {args.jobs} game(s) at a time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
