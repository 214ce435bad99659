"""URLs for tests/config/test_unavailable.py: views that meet a Redis out of reach, or a plain bug."""

from __future__ import annotations

import redis
from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import handler500  # noqa: F401  the site's own, as a URLconf module must name it


def redis_gone(request: HttpRequest) -> HttpResponse:
    try:
        raise ConnectionRefusedError(111, "Connection refused")
    except ConnectionRefusedError as exc:
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:1.") from exc


def bug(request: HttpRequest) -> HttpResponse:
    raise ZeroDivisionError("a bug, not an outage")


urlpatterns = [path("redis-gone/", redis_gone), path("bug/", bug)]
