from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Uploaded avatars go to a throwaway directory, never var/media."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def client_for(db):
    """A logged-in test client for ``user`` (CSRF checks on when asked)."""

    def make(user, *, enforce_csrf_checks: bool = False) -> Client:
        client = Client(enforce_csrf_checks=enforce_csrf_checks)
        client.force_login(user)
        return client

    return make


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    # Pages render {% static %}; the manifest storage would need a collectstatic first.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
