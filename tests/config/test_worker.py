"""A real Celery worker process reaches websockets through the shared channel layer."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest
from channels.testing import WebsocketCommunicator

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


async def test_a_task_run_by_a_real_worker_reaches_a_websocket(celery_worker, redis_layer):
    from config.asgi import application

    ws = WebsocketCommunicator(
        application, "/ws/notify/", headers=[(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    )
    connected, _ = await ws.connect()
    assert connected
    await ws.send_json_to({"type": "worker_ping", "text": "hello from the test"})
    reply = await ws.receive_json_from(timeout=30)
    assert reply == {"type": "worker_pong", "text": "hello from the test"}
    await ws.disconnect()


def test_healthz_of_a_running_daphne_sees_redis_and_the_broker(services, database_url_for_processes):
    _, port = services.start_daphne(database_url_for_processes)
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
                body = json.load(response)
                break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
    assert body == {"status": "ok", "database": "ok", "channel_layer": "ok", "broker": "ok"}
