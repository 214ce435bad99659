"""Where numba keeps the compiled computer players: outside the code, where the service user writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.ai import core_sources_digest
from launch import deploy

BASE_DIR = Path(__file__).resolve().parents[2]

# What numba itself will use: it reads NUMBA_CACHE_DIR once, when first imported, after games.ai.
SHOW = "import games.ai\nfrom numba.core import config\nprint(config.CACHE_DIR)\n"


def cache_dir_numba_uses(**env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "DJANGO_VAR_DIR")}
    environ.pop("GAMES_AI_PURE_PYTHON", None)
    done = subprocess.run(
        [sys.executable, "-c", SHOW], cwd=BASE_DIR, env={**environ, **env}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_checkout_caches_its_cores_in_its_var_directory_one_folder_per_version_of_their_sources():
    pytest.importorskip("numba")
    assert cache_dir_numba_uses() == str(BASE_DIR / "var" / "numba-cache" / core_sources_digest())


def test_a_site_caches_them_under_its_var_directory_and_an_explicit_setting_wins(tmp_path):
    pytest.importorskip("numba")
    assert cache_dir_numba_uses(DJANGO_VAR_DIR=str(tmp_path)) == str(
        tmp_path / "numba-cache" / core_sources_digest()
    )
    chosen = tmp_path / "elsewhere"
    assert cache_dir_numba_uses(DJANGO_VAR_DIR=str(tmp_path), NUMBA_CACHE_DIR=str(chosen)) == str(chosen)


@pytest.mark.parametrize("unit", deploy.WORKER_UNITS)
def test_the_worker_units_keep_the_cache_in_their_state_directory(unit):
    """It survives a new release directory, and the service user can write it despite ProtectHome=yes."""
    lines = (deploy.UNITS_DIR / f"{unit}.service").read_text().splitlines()
    assert "Environment=NUMBA_CACHE_DIR=%S/fiveboards/numba-cache" in lines
    assert "StateDirectory=fiveboards" in lines and "ProtectHome=yes" in lines
