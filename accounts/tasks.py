"""Celery tasks of accounts: housekeeping the beat runs."""

from __future__ import annotations

from importlib import import_module

from celery import shared_task
from django.conf import settings


@shared_task(name="accounts.clear_expired_sessions")
def clear_expired_sessions() -> None:
    """Delete expired sessions, as ``manage.py clearsessions`` does: Django never deletes them itself.

    The engine's own ``clear_expired`` (db and cached_db both delete the database
    rows; a cached copy expires in the cache at the same moment by itself).
    """
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
