"""The daily housekeeping an operator relies on: expired sessions are deleted."""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module

import pytest
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.tasks import clear_expired_sessions
from config.celery import app as celery_app


def _guest_session(engine: str, *, expired: bool) -> str:
    store = import_module(f"django.contrib.sessions.backends.{engine}").SessionStore()
    store["guest"] = {"key": "k", "name": "Guest 1234"}
    store.create()
    if expired:  # as two weeks after the guest's last visit
        Session.objects.filter(pk=store.session_key).update(expire_date=timezone.now() - timedelta(minutes=1))
    return store.session_key


@pytest.mark.parametrize("engine", ["db", "cached_db"])
@pytest.mark.django_db
def test_the_task_deletes_expired_sessions_and_keeps_live_ones(settings, engine):
    settings.SESSION_ENGINE = f"django.contrib.sessions.backends.{engine}"
    expired = _guest_session(engine, expired=True)
    live = _guest_session(engine, expired=False)

    clear_expired_sessions.delay()

    assert list(Session.objects.values_list("pk", flat=True)) == [live]
    assert expired != live
    store = import_module(settings.SESSION_ENGINE).SessionStore(live)
    assert store["guest"]["name"] == "Guest 1234"  # the live guest still plays


def test_the_beat_runs_it_daily():
    entry = celery_app.conf.beat_schedule["accounts-clear-expired-sessions"]
    assert entry["task"] == clear_expired_sessions.name
    assert entry["schedule"] == 24 * 3600
