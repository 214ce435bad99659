"""A worker restarted on a warm cache starts no compiler: the cache says it is complete.

The compiling child of a worker (games/ai/preload.py) costs a second or two of CPU even
when it only finds every core in the cache; ``compile_cores`` stamps a cache it has
filled for every game, and a worker that finds the stamp sets every game ready at once.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from games import ai
from games.ai import precompile, preload

pytestmark = pytest.mark.skipif(not preload.cores_available(), reason="numba is not installed")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache directory of the test's own (the stamp's; numba itself keeps loading the session's)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))
    return tmp_path / "numba-cache"


@pytest.fixture
def started(monkeypatch) -> list[list[str]]:
    """The commands a worker's compiler would start (recorded, not run)."""
    commands: list[list[str]] = []
    real_popen = subprocess.Popen

    def popen(command, **options):
        commands.append(command)
        return real_popen(["true"], stdout=subprocess.PIPE, text=True)

    monkeypatch.setattr(preload.subprocess, "Popen", popen)
    return commands


def test_a_worker_on_a_cache_compiled_for_every_game_starts_no_compiler_and_is_ready_at_once(cache, started):
    precompile.compile_cores()
    assert precompile.cache_is_complete()

    compiler = preload._Compiler()
    compiler.start()
    assert started == []
    assert all(event.is_set() for event in compiler.on_disk.values())
    assert all(compiler.wait_for(slug) for slug in ai.compiled_games())


def test_a_cache_holding_some_games_only_still_gets_its_compiler(cache, started):
    precompile.compile_cores(("ultimate_ttt",))
    assert not precompile.cache_is_complete()

    preload._Compiler().start()
    assert len(started) == 1 and "games.ai.precompile" in started[0]


def test_a_core_source_touched_or_edited_needs_the_compiler_again(cache, tmp_path, monkeypatch):
    """numba checks each entry against its source file's time and size: so does the stamp."""
    copies = tmp_path / "sources"
    copies.mkdir()
    for source in ai.core_sources():
        shutil.copy2(source, copies / source.name)
    monkeypatch.setattr(precompile, "core_sources", lambda: sorted(copies.glob("_*.py")))
    precompile.compile_cores()
    assert precompile.cache_is_complete()

    touched = copies / "_bits.py"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 1_000_000_000))
    assert not precompile.cache_is_complete()

    precompile.compile_cores()  # stamps again, for the sources as they are now, and only that
    assert precompile.cache_is_complete()
    assert len(list(cache.glob(f"{precompile.STAMP_PREFIX}*"))) == 1
