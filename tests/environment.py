"""The services a test run needs, started before Django reads its settings.

Loaded first (``-p tests.environment`` in pyproject.toml's addopts): with no
``DATABASE_URL`` it starts the checkout's embedded PostgreSQL, and with no
``REDIS_URL`` a private Redis, and puts both in the environment. So the README's
test command runs the configuration production runs (PostgreSQL's fast move path,
the Redis channel layer, cache and broker), and the processes the tests start
inherit the same services. CI's later stages set both to the machine's servers.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # A wrapper runs before every plain implementation, pytest-django's settings set-up included.
    if not os.environ.get("DATABASE_URL"):
        from config.paths import var_dir
        from launch.postgres import start_embedded_postgres

        os.environ["DATABASE_URL"] = start_embedded_postgres(var_dir(), for_tests=True)
    if not os.environ.get("REDIS_URL") or os.environ.get(_PRIVATE_REDIS):
        _start_private_redis()
    elif os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ["REDIS_URL"] = _database_of_this_worker(os.environ["REDIS_URL"])
    yield


# Set when the Redis in REDIS_URL is one this file started: a parallel worker (pytest-xdist,
# which inherits the environment of the process that started it) starts one of its own.
_PRIVATE_REDIS = "TESTS_PRIVATE_REDIS"


def _database_of_this_worker(redis_url: str) -> str:
    """The machine's Redis (CI), numbered database ``base + 1 + n`` for parallel worker gw<n>.

    Each worker has a test database of its own (pytest-django suffixes its name), so its
    games' ids repeat another worker's: the channel groups, the cache and the Celery queues
    must not meet. The channel layer's prefix follows the database (config/settings.py).
    """
    parts = urlsplit(redis_url)
    base = int(parts.path.strip("/") or 0)
    worker = int(os.environ["PYTEST_XDIST_WORKER"].removeprefix("gw"))
    return urlunsplit(parts._replace(path=f"/{base + 1 + worker}"))


def _start_private_redis() -> None:
    from launch.processes import start_embedded_redis

    folder = Path(tempfile.mkdtemp(prefix="test-redis-"))
    proc, url = start_embedded_redis(folder, persist=False)
    os.environ["REDIS_URL"] = url
    os.environ[_PRIVATE_REDIS] = "1"

    def stop() -> None:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)

    atexit.register(stop)
