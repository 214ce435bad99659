#!/usr/bin/env python
import os
import sys

# Commands that never open the database: no embedded PostgreSQL is started for them.
NO_DATABASE = {
    "engine",
    "perft",
    "arena",
    "compile_cores",
    "compilemessages",
    "help",
    "version",
    "--help",
    "--version",
}


def start_embedded_database() -> None:
    """Without DATABASE_URL a checkout uses its embedded PostgreSQL (config/embedded.py).

    Start it for this command, or join the one `make run` keeps; it stops with the last
    process using it.
    """
    from config.paths import var_dir
    from launch.postgres import start_embedded_postgres

    os.environ["DATABASE_URL"] = start_embedded_postgres(var_dir())


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    command = sys.argv[1] if len(sys.argv) > 1 else "help"
    if not os.environ.get("DATABASE_URL") and command not in NO_DATABASE:
        start_embedded_database()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
