from __future__ import annotations

import pytest
from django.db import OperationalError

from config.celery import app as celery_app
from tests.processes import use_broker

pytestmark = pytest.mark.django_db


def test_healthz_reports_every_service_up(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok", "broker": "ok"}


def test_healthz_is_503_when_the_broker_is_unreachable(client):
    previous = celery_app.conf.broker_url
    use_broker("redis://127.0.0.1:1/0")
    try:
        response = client.get("/healthz")
    finally:
        use_broker(previous)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["broker"].startswith("error")
    assert body["database"] == "ok"


def test_healthz_is_503_when_the_database_is_unreachable(client, monkeypatch):
    from django.db import connection

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "error: OperationalError: connection refused"
