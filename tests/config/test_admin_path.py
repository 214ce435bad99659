"""The admin is served where DJANGO_ADMIN_PATH says, and not at /admin/ then (issue #38)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from http import HTTPStatus

import pytest
from django.urls import clear_url_caches

import config.urls

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_at(settings):
    def move(path: str) -> None:
        settings.ADMIN_PATH = path
        importlib.reload(config.urls)
        clear_url_caches()

    yield move
    settings.ADMIN_PATH = "admin/"
    importlib.reload(config.urls)
    clear_url_caches()


def test_the_admin_moves_to_the_configured_path(admin_at, client, user_factory):
    admin_at("desk-7f3k/")
    staff = user_factory("root", is_staff=True, is_superuser=True)
    client.force_login(staff)
    assert client.get("/desk-7f3k/accounts/user/").status_code == HTTPStatus.OK
    assert client.get("/admin/").status_code == HTTPStatus.NOT_FOUND
    assert client.get("/admin/accounts/user/").status_code == HTTPStatus.NOT_FOUND


@pytest.mark.parametrize("value", ["/", "desk 1/", "desk/<x>/"])
def test_a_bad_admin_path_stops_the_site_at_start_with_its_name(value):
    env = {**os.environ, "DJANGO_ADMIN_PATH": value, "DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and "DJANGO_ADMIN_PATH must be a plain URL path" in result.stderr
