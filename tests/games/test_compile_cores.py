"""An operator fills numba's cache ahead of a release: ``manage.py compile_cores`` (docs/deploy.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

BASE_DIR = Path(__file__).resolve().parents[2]
# Fresh processes compiling the cores into empty caches: started with the suite's first files.
pytestmark = pytest.mark.heavy


def compile_cores(cache: Path, *games: str) -> subprocess.CompletedProcess:
    """The command as the release step runs it: a fresh process, its own NUMBA_CACHE_DIR."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("GAMES_AI_PURE_PYTHON", None)
    return subprocess.run(
        [sys.executable, "manage.py", "compile_cores", *games],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_release_step_fills_an_empty_cache_and_prints_the_seconds_per_game(tmp_path):
    pytest.importorskip("numba")
    cache = tmp_path / "numba-cache"  # a state directory's first release
    done = compile_cores(cache, "ultimate_ttt")  # the quickest to compile
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"numba cache: {cache}"
    assert lines[1].split()[0] == "ultimate_ttt" and lines[1].endswith(" s")
    assert list(cache.rglob("*.nbi")), "nothing was written to the cache"


def test_a_cache_directory_that_cannot_be_written_is_refused_by_name(tmp_path):
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state directory should be")
    done = compile_cores(blocker / "numba-cache")
    assert done.returncode == 1
    assert f"NUMBA_CACHE_DIR={blocker / 'numba-cache'} cannot be written by this user" in done.stderr
    assert blocker.read_text() == "a file where the state directory should be"


def test_an_unknown_game_is_refused_before_anything_is_compiled():
    with pytest.raises(CommandError, match="no compiled core for chess; choose from reversi, ataxx"):
        call_command("compile_cores", "chess")
