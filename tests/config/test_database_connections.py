"""A daphne process gives its PostgreSQL connections back (the pool in config/settings.py).

daphne runs every HTTP request in a thread of its own. With connections kept
per thread, each finished request's connection stayed open until the garbage
collector found it: a busy process held dozens, and CI ran out of connections.
"""

from __future__ import annotations

import time
import urllib.request

import pytest
from django.db import connection

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

REQUESTS = 60


def connections_to_this_database() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


def test_a_daphne_process_holds_no_more_connections_than_its_pool_after_many_requests(
    services, database_url_for_processes, settings
):
    before = connections_to_this_database()
    _, port = services.start_daphne(database_url_for_processes)
    for _ in range(REQUESTS):  # each one a thread of its own in daphne, and a database query
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lobby.json", timeout=30) as response:
            assert response.status == 200
    time.sleep(0.5)  # connections given back are closed or idle; none is still being opened

    held = connections_to_this_database() - before

    pool = settings.DB_POOL_SIZE
    assert held <= pool, f"{held} connections held after {REQUESTS} requests (pool of {pool})"
