"""The settings module: embedded defaults, real services, production checks.

What ``manage.py check`` says runs in a fresh process per environment (Django reads its
settings once per process). What the settings module makes of an environment is read here,
by running the module again under that environment: the same code ``manage.py`` imports,
without a Python start and a Django setup per question (issue #39).
"""

from __future__ import annotations

import json
import os
import runpy
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from config import settings as site_settings
from launch.processes import BASE_DIR

# What the tests' own environment sets (their database, Redis, broker): left out, as on a plain checkout.
SITE_VARIABLES = ("DJANGO_", "DATABASE_URL", "REDIS_URL", "CELERY_")


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(SITE_VARIABLES)}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_under(var_dir: Path, **env: str) -> dict[str, Any]:
    """The names config/settings.py defines when imported with ``env`` on a plain checkout's environment.

    ``var_dir`` is DJANGO_VAR_DIR unless ``env`` says otherwise: the module keeps its secret key there.
    """
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith(SITE_VARIABLES):
                patch.delenv(name)
        patch.setenv("DJANGO_VAR_DIR", str(var_dir))
        for name, value in env.items():
            patch.setenv(name, value)
        # run_path, not run_module: config.settings is imported already (this process runs on it).
        return runpy.run_path(site_settings.__file__, run_name="config._settings_under_test")


def test_bad_boolean_and_integer_variables_are_refused_with_their_name(monkeypatch):
    monkeypatch.setenv("DJANGO_DEBUG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="DJANGO_DEBUG"):
        site_settings.env_bool("DJANGO_DEBUG", default=False)
    monkeypatch.setenv("DJANGO_CONN_MAX_AGE", "ten")
    with pytest.raises(ImproperlyConfigured, match="DJANGO_CONN_MAX_AGE"):
        site_settings.env_int("DJANGO_CONN_MAX_AGE", 600)
    monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", "a.example, b.example")
    assert site_settings.env_list("DJANGO_ALLOWED_HOSTS", []) == ["a.example", "b.example"]


def test_check_passes_on_embedded_defaults():
    result = run_manage("check")
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_check_passes_with_real_service_urls_and_picks_them_up():
    # One process: the check, then what its settings hold (Django reads them once per process).
    result = run_manage(
        "shell",
        "--no-imports",
        "-c",
        "import json; from django.conf import settings as s; from django.core.management import call_command; "
        "call_command('check'); d = s.DATABASES['default']; print(json.dumps([d['ENGINE'], "
        "s.CHANNEL_LAYERS['default']['BACKEND'], s.CELERY_BROKER_URL, d['CONN_MAX_AGE'], "
        "d['OPTIONS']['pool']['max_size']]))",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
        REDIS_URL="redis://127.0.0.1:6379/0",
        DJANGO_DB_POOL_SIZE="12",
    )
    assert result.returncode == 0, result.stderr
    said, _, shown = result.stdout.strip().rpartition("\n")
    assert "no issues" in said, result.stdout
    assert json.loads(shown) == [
        "django.db.backends.postgresql",
        "config.channel_layer.ProcessChannelLayer",
        "redis://127.0.0.1:6379/0",
        0,  # PostgreSQL connections come from the pool, not kept per thread
        12,
    ], result.stderr


def test_rabbitmq_can_be_the_broker_while_redis_carries_the_channel_layer(tmp_path):
    read = settings_under(
        tmp_path,
        REDIS_URL="redis://127.0.0.1:6379/0",
        CELERY_BROKER_URL="amqp://guest:guest@127.0.0.1:5672//",
    )
    assert read["CELERY_BROKER_URL"] == "amqp://guest:guest@127.0.0.1:5672//"
    assert read["CHANNEL_LAYERS"]["default"]["CONFIG"]["hosts"] == ["redis://127.0.0.1:6379/0"]


def test_without_database_url_the_site_uses_the_checkouts_embedded_postgresql(tmp_path):
    # One database everywhere: a fresh checkout runs production's PostgreSQL, not another engine.
    database = settings_under(tmp_path, DATABASE_URL="")["DATABASES"]["default"]
    assert [database["ENGINE"], database["HOST"], database["NAME"]] == [
        "django.db.backends.postgresql",
        str(tmp_path.resolve() / "pg"),
        "fiveboards",
    ]


def test_a_database_url_that_is_not_postgresql_is_refused_with_a_clear_error(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL must be a PostgreSQL URL"):
        settings_under(tmp_path, DATABASE_URL="sqlite:///db.sqlite3")


def test_deploy_check_is_clean_with_production_variables():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="games.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_deploy_check_complains_when_https_is_switched_off():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_HTTPS="0",
    )
    assert result.returncode != 0
    assert "SECURE_SSL_REDIRECT" in result.stdout + result.stderr


def test_the_redis_cache_reuses_one_client_across_requests(settings):
    from django.core.cache.backends.redis import RedisCache

    from core.cache import SharedRedisCache

    first = SharedRedisCache("redis://127.0.0.1:1/0", {})
    second = SharedRedisCache("redis://127.0.0.1:1/0", {})
    assert first._cache is second._cache
    assert (
        RedisCache("redis://127.0.0.1:1/0", {})._cache is not RedisCache("redis://127.0.0.1:1/0", {})._cache
    )
    # and one redis.Redis around its pool, where Django builds one for every call
    assert first._cache.get_client() is second._cache.get_client(write=True)
