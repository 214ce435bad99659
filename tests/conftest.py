from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator

import pytest
from channels.layers import channel_layers
from django.core.cache import cache

from config.celery import app as celery_app
from tests.mail import Inbox, smtp_server
from tests.move_paths import PATHS, MovePath, watch
from tests.processes import EXTERNAL_SITE, Services, test_database_url, use_broker

# pytest keeps each test module's assertion-rewritten bytecode in __pycache__, but writes none
# where PYTHONDONTWRITEBYTECODE is set (the machines this project is tested on set it): every pytest
# process then rewrote all 490 test modules again, 4 of the 8 CPU-seconds its collection took, in
# each of the suite's processes (issue #39). This process only: the servers the tests start read
# what `make setup` compiled.
sys.dont_write_bytecode = False


@pytest.fixture(scope="session", autouse=True)
def _compiled_computer_players():
    """Load the numba search cores once, before any test is timed (compiles them on a fresh machine)."""
    from games.ai import warm_up

    warm_up()


@pytest.fixture(autouse=True)
def _eager_celery_for_unit_tests(request):
    """Unit tests run tasks in-process; tests marked `services` use a real worker."""
    if request.node.get_closest_marker("services"):
        yield
        return
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


@pytest.fixture(autouse=True)
def _stop_the_daphne_processes_a_test_started():
    """A test's own daphne processes stop when it ends; a module's or the session's stay.

    Autouse fixtures of a test are set up after the module- and session-scoped
    ones it uses, so the count taken here leaves those alone.
    """
    from tests.processes import DAPHNES, stop_daphnes_started_after

    started = len(DAPHNES)
    yield
    stop_daphnes_started_after(started)


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in English: a page request leaves its language active in the thread."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.activate("en")


@pytest.fixture(autouse=True)
def _no_presence_heartbeat_in_the_test_process(monkeypatch):
    """In-process sockets start no presence heartbeat (with REDIS_URL every socket would).

    Each test runs on an event loop of its own, and a heartbeat task still running
    when its loop closes was seen to hang that loop's teardown for good (its Redis
    connection awaits a loop that is gone). Daphne runs one loop for its whole life;
    the daphne processes the tests start keep their heartbeats
    (tests/faults/test_presence.py), and tests/games/test_presence.py calls
    ``presence.beat()`` itself.
    """
    from games.live import presence

    monkeypatch.setattr(presence, "ensure_heartbeat", lambda: None)


@pytest.fixture(autouse=True)
def _fresh_cache_and_layers():
    from core.cache import forget_async_clients
    from games.live import fastpath, spectators
    from games.store.connections import close_connections

    cache.clear()
    channel_layers.backends.clear()
    fastpath.cache.clear()
    spectators._local.clear()  # a socket a test left open must not count in the next test's game
    yield
    channel_layers.backends.clear()
    fastpath.cache.clear()
    close_connections()  # else the test database cannot be dropped at the end
    forget_async_clients()


if EXTERNAL_SITE:

    @pytest.fixture(scope="session")
    def django_db_setup():
        """The running site's own database: no test database is created (pytest_configure checked it)."""
        yield

else:

    @pytest.fixture(scope="session")
    def django_db_setup(django_db_setup, django_db_blocker):
        """pytest-django's test database, whose last sessions are ended before it is dropped.

        database_sync_to_async's threads keep a connection each (CONN_MAX_AGE, below), which only
        their own thread may close: PostgreSQL refused to drop the database ("being accessed by
        other users", 14-42 sessions) and left it behind, with a warning, at the end of every run."""
        yield
        from django.db import connection

        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        connection.close()


@pytest.fixture(scope="session")
def services(django_db_setup):
    # Depends on the test database so its processes stop before the database is dropped.
    running = Services()
    yield running
    running.stop()


@pytest.fixture
def redis_layer(services, settings):
    """The production channel layer (Redis PubSub) for this test, embedded Redis if none is given."""
    from config.settings import _default_channel_prefix

    url = services.ensure_redis()
    prefix = os.environ.get("CHANNEL_PREFIX") or _default_channel_prefix(
        url
    )  # as the processes started compute it
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.ProcessChannelLayer",
            "CONFIG": {"hosts": [url], "prefix": prefix},
        }
    }
    channel_layers.backends.clear()
    return url


@pytest.fixture(scope="session")
def database_url_for_processes(django_db_setup, django_db_blocker):
    from django.db import connection

    with django_db_blocker.unblock():
        return test_database_url(connection.settings_dict)


@pytest.fixture(scope="session")
def worker_broker(services):
    """This process sends tasks to the broker the worker processes listen on."""
    if EXTERNAL_SITE:  # the site's own workers, on the broker this process already uses
        yield celery_app.conf.broker_url
        return
    url = services.ensure_redis()
    broker = services.broker_url or url
    previous = celery_app.conf.broker_url
    use_broker(broker)
    yield broker
    use_broker(previous)


@pytest.fixture
def celery_worker(services, worker_broker, database_url_for_processes):
    """A real `celery worker` process on the embedded (or CI's) broker, started once and kept."""
    if EXTERNAL_SITE:  # the running site's own workers
        services.wait_for_worker()
        return services
    services.ensure_worker(database_url_for_processes)
    return services


@pytest.fixture
def inbox(settings) -> Iterator[Inbox]:
    """A real SMTP server that receives the site's mail (tests/mail.py)."""
    handler = Inbox()
    with smtp_server(handler, settings):
        yield handler


@pytest.fixture
def user_factory(db, django_user_model):
    counter = iter(range(1, 10_000))

    def make(username: str | None = None, password: str = "secret-pass", **fields):
        name = username or f"player{next(counter)}"
        return django_user_model.objects.create_user(username=name, password=password, **fields)

    return make


# The players of the tests' stories, the same everywhere (a test that needs another
# password or a guest overrides them in its own module).
@pytest.fixture
def alice(user_factory):
    return user_factory("alice")


@pytest.fixture
def bob(user_factory):
    return user_factory("bob")


@pytest.fixture
def carol(user_factory):
    return user_factory("carol")


def pytest_addoption(parser):
    parser.addoption(
        "--perf",
        action="store_true",
        help="also run the tests marked perf: wall-clock and CPU-time checks (make perf)",
    )


def pytest_collection_modifyitems(config, items):
    # The heavy files first: `make test`'s processes take one file at a time in this order
    # (pytest-xdist, --dist loadfile), and a long file taken last leaves one process running it
    # alone while the others have finished (the axe sweep did: over two minutes at the end).
    # Then those with processes of their own, and the in-process unit tests, files of a few
    # seconds, fill the end.
    items.sort(
        key=lambda item: (
            item.get_closest_marker("heavy") is None,
            item.get_closest_marker("services") is None,
        )
    )
    # What talks to real workers through the broker: CI runs these again on RabbitMQ (.ci/run).
    for item in items:
        if "worker_broker" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.broker)
    # Timed checks flake on a busy machine, so the suite leaves them out; `make perf`
    # runs them on a quiet one, as the benchmarks do.
    if config.getoption("--perf"):
        return
    skip = pytest.mark.skip(reason="a timed check: run with --perf (make perf) on a quiet machine")
    for item in items:
        if "perf" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    from django.conf import settings
    from django.test import TransactionTestCase

    TransactionTestCase._fixture_teardown = _flush_again_after_a_deadlock(
        TransactionTestCase._fixture_teardown
    )

    # Real hashers cost ~0.3 s per user; tests create hundreds.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Channels' test communicator turns off the connection clean-up of
    # database_sync_to_async (channels.testing.application), so with a pool every
    # thread a test starts would keep its connection and drain the pool. This
    # process keeps one per thread instead, as Django does without a pool; the
    # daphne and worker processes the tests start use the pool.
    database = settings.DATABASES["default"]
    if database.get("OPTIONS", {}).pop("pool", None):
        database["CONN_MAX_AGE"] = 600
    if EXTERNAL_SITE:
        # Tests write to the site's database and empty it after each test: only a throwaway one.
        name = settings.DATABASES["default"]["NAME"]
        if os.environ.get("SITE_TEST_DATABASE") != name:
            raise pytest.UsageError(
                f"SITE_URL is set, so the tests would write to and empty the site's database {name!r}. "
                f"Set SITE_TEST_DATABASE={name} to confirm it is a throwaway database "
                "(python -m launch --deploy-check does)."
            )


def _flush_again_after_a_deadlock(fixture_teardown):
    """TransactionTestCase's teardown (the flush), tried again when PostgreSQL breaks a deadlock with it.

    The flush's TRUNCATE locks the tables one by one, while the site's own processes (daphne, the
    workers) may still be finishing a request or a task of the test that just ended, holding one
    table and waiting for another: PostgreSQL then cancels one of the two, sometimes the flush.
    The next test would find the last one's rows (seen as a duplicate user in a browser test).
    """
    from django.core.management.base import CommandError
    from django.db import OperationalError

    def teardown(self) -> None:
        for attempt in range(1, 5):
            try:
                return fixture_teardown(self)
            except CommandError as error:
                cause = error.__cause__
                if attempt == 4 or not isinstance(cause, OperationalError) or "deadlock" not in str(cause):
                    raise
                time.sleep(0.2 * attempt)

    return teardown


def _wait_for_idle_worker(timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline and quiet < 2:
        inspector = celery_app.control.inspect(timeout=0.5)
        busy = [
            task
            for found in ((inspector.active() or {}), (inspector.reserved() or {}))
            for tasks in found.values()
            for task in tasks
        ]
        quiet = 0 if busy else quiet + 1


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    # A game that ended in a test queues work (ratings) for the real worker. Let
    # it finish before the test's tables are emptied: on PostgreSQL a TRUNCATE
    # racing that task's row locks deadlocks.
    if "celery_worker" in getattr(item, "fixturenames", ()):
        _wait_for_idle_worker()
    yield


@pytest.fixture(params=PATHS)
def move_path(request, settings) -> Iterator[MovePath]:
    """The test runs once on each move path, ``[fast]`` and ``[locked]`` (tests/move_paths.py)."""
    yield from watch(MovePath(request.param), settings)
