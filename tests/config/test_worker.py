"""A real Celery worker process reaches websockets through the shared channel layer."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def notify_socket(cookie: str | None = None) -> WebsocketCommunicator:
    from config.asgi import application

    headers = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, "/ws/notify/", headers=headers)


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def test_a_task_run_by_a_real_worker_reaches_a_staff_members_websocket(
    celery_worker, redis_layer, user_factory
):
    staff = await database_sync_to_async(user_factory)("operator", is_staff=True)
    ws = notify_socket(await database_sync_to_async(session_of)(staff))
    connected, _ = await ws.connect()
    assert connected
    await ws.send_json_to({"type": "worker_ping", "text": "hello from the test"})
    reply = await ws.receive_json_from(timeout=30)
    assert reply == {"type": "worker_pong", "text": "hello from the test"}
    await ws.disconnect()


async def test_an_anonymous_socket_cannot_queue_tasks(monkeypatch):
    from config import celery

    queued = []
    monkeypatch.setattr(celery.ping_channel, "delay", lambda *args: queued.append(args))
    ws = notify_socket()
    assert (await ws.connect())[0]
    await ws.send_json_to({"type": "worker_ping", "text": "flood", "id": 1})
    assert (await ws.receive_json_from())["code"] == "forbidden"
    await ws.disconnect()
    assert queued == []


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
