"""The first minute after a release: a worker on a fresh copy of the code, numba's cache EMPTY.

    .venv/bin/python bench/first_minute.py
    .venv/bin/python bench/first_minute.py --keep      # keep the directory (worker log, database)

What a new release directory meets: numba's cache is keyed by each source file's
path, so nothing compiled before counts (the worst case: the release step's
``manage.py compile_cores`` did not run). The script copies this checkout's files
(tracked and new, as they are on disk) into a temporary directory, migrates a
embedded PostgreSQL there, starts an embedded Redis and, from the copy, one worker
with embedded beat as ``make run`` does (two pool processes, every queue), with
``DJANGO_VAR_DIR`` in the copy: an empty ``var/numba-cache``. Then it prints

- how soon the worker answered its first ping;
- a clock that runs out 1 s after the worker started (its last move made just
  before the start, so its flag task waits in the broker): seconds from the
  clock's zero to the game stored as lost on time (target: within 2 s);
- the first computer reply in each game at Hard, the player moving right after
  that ping: seconds from the player's move being stored to the reply being
  stored (target: 2 s; pure Python while the cores compile), and whether that
  game's core was loaded by then;
- when the compiler had each core on disk and the pool had loaded it (from the
  worker's log), and a second reply per game once all five are loaded.

Moves are made through the services in this process (what daphne's database
thread calls: ``games.services.play_move``); the web process compiles nothing,
so no daphne is started. Timed assertions stay out of the tests: this prints.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAMES = ("reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe")
CLOCK_RUNS_OUT_AFTER = 1.0  # seconds after the worker's start


def copy_checkout(target: Path, ref: str | None) -> None:
    """This checkout's tracked and untracked-but-not-ignored files, as they are on disk (or ``ref``'s)."""
    if ref is not None:
        target.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
        return
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (entry.decode() for entry in listed)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def wait_until(condition, timeout: float, what: str, step: float = 0.01) -> float:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what}: not within {timeout} s")
        time.sleep(step)
    return time.monotonic()


def log_times(log: Path, started_wall: float) -> dict[str, dict[str, float]]:
    """Seconds after the worker's start at which each core was on disk and loaded, from its log."""
    found: dict[str, dict[str, float]] = {}
    pattern = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): INFO/[^\]]+\] (.*)$")
    for line in log.read_text().splitlines():
        match = pattern.match(line)
        if not match:
            continue
        stamp = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp() - started_wall
        text = match.group(2)
        for slug in GAMES:
            if text.startswith(f"compiled core of {slug} on disk"):
                found.setdefault(slug, {})["on_disk"] = stamp
            elif text.startswith(f"the computer player of {slug} searches compiled"):
                found.setdefault(slug, {})["loaded"] = stamp
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory and print its path")
    parser.add_argument("--load-timeout", type=float, default=600, help="seconds to wait for the cores (600)")
    parser.add_argument(
        "--ref",
        help="measure this commit's code instead (e.g. one from before the cores loaded in the background: "
        "its worker compiles before it consumes, and the part after the first replies is skipped)",
    )
    args = parser.parse_args()
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))

    base = Path(tempfile.mkdtemp(prefix="first-minute-"))
    code, var = base / "release", base / "release" / "var"
    copy_checkout(code, args.ref)
    var.mkdir(parents=True)

    from launch.postgres import start_embedded_postgres
    from launch.processes import celery_worker_command, start_embedded_redis

    redis_proc, redis_url = start_embedded_redis(base / "redis", persist=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "GAMES_AI_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_VAR_DIR=str(var),  # so numba's cache defaults to the copy's empty var/numba-cache
        DATABASE_URL=start_embedded_postgres(var),
        REDIS_URL=redis_url,
        DJANGO_HTTPS="0",
        PYTHONUNBUFFERED="1",
    )
    if args.ref is not None:  # older code may not default NUMBA_CACHE_DIR: the same empty directory
        env["NUMBA_CACHE_DIR"] = str(var / "numba-cache")
    worker = None
    try:
        where = subprocess.run(
            [
                sys.executable,
                "-c",
                "import games.ai, os; print(games.ai.__file__, os.environ['NUMBA_CACHE_DIR'])",
            ],
            cwd=code,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        assert where[0].startswith(str(code)), f"the copy imports the checkout's code: {where[0]}"
        print(f"code: {code} (a new release directory); numba cache: {where[1]} (empty)")
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=code, env=env, check=True
        )

        os.environ.update(env)  # this process: the same database and broker
        os.environ.pop("NUMBA_CACHE_DIR", None)
        import django

        django.setup()
        from django.contrib.auth import get_user_model

        from accounts.identity import Identity
        from config.celery import app
        from games import engines
        from games import services as play
        from games.models import Game

        users = get_user_model().objects
        me = Identity(user=users.create_user("alice", password="x"), guest=None)
        bob = Identity(user=users.create_user("bob", password="x"), guest=None)

        # The clock game: alice moved just before the release; bob has ~1 s left after the worker starts.
        clock_game = play.create_human_game(
            identity=me, game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=1
        )
        play.join_game(game_id=clock_game.pk, identity=bob, token=clock_game.invite_token)
        Game.objects.filter(pk=clock_game.pk).update(clock1_ms=int((CLOCK_RUNS_OUT_AFTER + 0.15) * 1000))
        computer_games = {
            slug: play.create_computer_game(identity=me, game=slug, level="hard", side=0, minutes=5).pk
            for slug in GAMES
        }

        play.play_move(game_id=clock_game.pk, identity=me, token="d3", ply=0, client_id="c0")
        runs_out = Game.objects.get(pk=clock_game.pk).flag_at.timestamp()

        schedule = base / "beat-schedule"
        command = celery_worker_command(beat=True)  # as make run starts it
        command[command.index("--beat") + 2] = str(schedule)
        log = base / "worker.log"
        started_wall, started = time.time(), time.monotonic()
        worker = subprocess.Popen(
            command, cwd=code, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
        )
        print(f"clock runs out {runs_out - started_wall:.2f} s after the worker's start")
        wait_until(lambda: bool(app.control.ping(timeout=0.2, limit=1)), 120, "the worker answering", step=0)
        print(f"worker answered a ping {time.monotonic() - started:.2f} s after its start")

        def replies(label: str, ply: int) -> None:
            for slug, game_id in computer_games.items():
                engine = engines.get(slug)
                game = Game.objects.get(pk=game_id)
                token = engine.legal_moves(game.engine_state())[0]
                play.play_move(game_id=game_id, identity=me, token=token, ply=ply, client_id=f"{slug}{ply}")
                moved = time.time()
                wait_until(lambda g=game_id: Game.objects.get(pk=g).ply > ply + 1, 60, f"{slug}'s reply")
                replied = Game.objects.get(pk=game_id).moves.order_by("-ply").first().created_at.timestamp()
                loaded = log_times(log, started_wall).get(slug, {}).get("loaded")
                searched = (
                    "compiled" if loaded is not None and loaded < moved - started_wall else "pure Python"
                )
                if args.ref is not None:
                    searched = f"{args.ref}'s search"
                print(
                    f"  {slug:<13} {label}: reply {replied - moved:5.2f} s after the move "
                    f"({searched}; move made {moved - started_wall:5.1f} s after the worker's start)"
                )

        print("first replies at Hard:")
        replies("first", 0)
        wait_until(
            lambda: Game.objects.get(pk=clock_game.pk).status != Game.Status.ACTIVE, 60, "the flag", step=0.05
        )
        flagged = Game.objects.get(pk=clock_game.pk)
        print(
            f"clock: flagged {flagged.finished_at.timestamp() - runs_out:.2f} s after it ran out "
            f"({flagged.end_reason}, {flagged.finished_at.timestamp() - started_wall:.2f} s after the worker's start)"
        )
        if args.ref is not None and "searches compiled" not in log.read_text():
            print(f"{args.ref}: its worker does not load the cores in the background; stopping here")
            return
        wait_until(
            lambda: len([t for t in log_times(log, started_wall).values() if "loaded" in t]) == len(GAMES),
            args.load_timeout,
            "every core loaded",
            step=0.5,
        )
        print("cores (seconds after the worker's start):")
        for slug, times in log_times(log, started_wall).items():
            print(
                f"  {slug:<13} on disk {times.get('on_disk', 0):5.1f} s, loaded by the pool {times['loaded']:5.1f} s"
            )
        print("second replies at Hard, every core loaded:")
        replies("second", 2)
        print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    finally:
        if worker is not None and worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        if args.keep:
            print(f"kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
