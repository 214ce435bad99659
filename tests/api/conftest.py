from __future__ import annotations

import pytest
from django.test import Client

from api import tokens


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    # Pages render {% static %}; the manifest storage would need a collectstatic first.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def token_for(db):
    """A token's secret for ``user`` with ``scopes`` (made by the service the settings page calls)."""

    def make(user, *scopes: str) -> str:
        return tokens.create_token(user=user, name="test", scopes=scopes or ("read",)).secret

    return make


@pytest.fixture
def api(db):
    """A client that sends a Bearer token when given one."""

    class Api:
        def __init__(self) -> None:
            self.client = Client()

        def get(self, path: str, token: str | None = None, **kwargs):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            return self.client.get(path, headers=headers, **kwargs)

    return Api()
