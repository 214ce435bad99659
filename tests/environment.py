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

import pytest


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # A wrapper runs before every plain implementation, pytest-django's settings set-up included.
    if not os.environ.get("DATABASE_URL"):
        from config.paths import var_dir
        from launch.postgres import start_embedded_postgres

        os.environ["DATABASE_URL"] = start_embedded_postgres(var_dir(), for_tests=True)
    if not os.environ.get("REDIS_URL"):
        _start_private_redis()
    yield


def _start_private_redis() -> None:
    from launch.processes import start_embedded_redis

    folder = Path(tempfile.mkdtemp(prefix="test-redis-"))
    proc, url = start_embedded_redis(folder, persist=False)
    os.environ["REDIS_URL"] = url

    def stop() -> None:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)

    atexit.register(stop)
