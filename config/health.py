"""``/healthz``: is each backing service reachable from this process?"""

from __future__ import annotations

import asyncio
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from config.celery import app as celery_app
from core.messages import asend_to_channel

TIMEOUT = 3.0


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


async def _channel_round_trip() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    await asyncio.wait_for(
        asend_to_channel(channel, {"type": "health.check", "token": token}, layer=layer), TIMEOUT
    )
    reply = await asyncio.wait_for(layer.receive(channel), TIMEOUT)
    if reply.get("token") != token:
        raise RuntimeError("channel layer returned a different message")


def check_channel_layer() -> None:
    async_to_sync(_channel_round_trip)()


def check_broker() -> None:
    with celery_app.connection_for_write() as conn:
        # celery-types declares ``timeout: int | None``; kombu takes any number of seconds.
        conn.ensure_connection(max_retries=1, timeout=TIMEOUT)  # type: ignore[arg-type]


CHECKS = {"database": check_database, "channel_layer": check_channel_layer, "broker": check_broker}


@never_cache
def healthz(request):
    results: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            check()
            results[name] = "ok"
        except Exception as exc:  # any failure means "down"; say which and why
            results[name] = f"error: {type(exc).__name__}: {exc}"[:200]
    healthy = all(value == "ok" for value in results.values())
    return JsonResponse({"status": "ok" if healthy else "error", **results}, status=200 if healthy else 503)
