"""A core split across files never loads stale machine code from the default numba cache.

numba checks a cached function against its own source file only: when ``_reversi_fast_end``
calls into ``_reversi_fast_shallow`` and only the latter changes, numba would load the old
machine code for the former. So the default cache directory is named by a digest of every
core source, and ``python -m games.ai.precompile`` clears the directories of older digests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import games.ai
from games.ai import precompile


@pytest.fixture
def copied_sources(tmp_path, monkeypatch) -> Path:
    """The cores' sources copied into a folder of their own, which the digest then reads."""
    folder = tmp_path / "sources"
    folder.mkdir()
    copies = []
    for source in games.ai.core_sources():
        copy = folder / source.name
        copy.write_bytes(source.read_bytes())
        copies.append(copy)
    monkeypatch.setattr(games.ai, "core_sources", lambda: copies)
    monkeypatch.setenv("DJANGO_VAR_DIR", str(tmp_path / "var"))
    return folder


def test_an_edit_to_any_one_core_file_moves_the_default_cache_to_a_fresh_directory(copied_sources, tmp_path):
    before = games.ai.default_numba_cache_dir()
    assert before == games.ai.default_numba_cache_dir(), "the same sources must find the same cache"
    assert before.parent == tmp_path / "var" / "numba-cache"

    # A file whose functions other files' compiled code calls: numba alone would not notice.
    shared = copied_sources / "_bits.py"
    shared.write_text(shared.read_text() + "\n# an edit\n")
    after = games.ai.default_numba_cache_dir()

    assert after != before and after.parent == before.parent
    assert len(after.name) == games.ai.DIGEST_LENGTH


def test_every_part_of_a_split_core_counts():
    names = {path.name for path in games.ai.core_sources()}
    assert {"_reversi_fast.py", "_reversi_fast_end.py", "_reversi_fast_shallow.py", "_bits.py"} <= names
    assert "__init__.py" not in names


def test_precompile_clears_older_digests_beside_the_default_cache_only(tmp_path, monkeypatch):
    monkeypatch.setenv("DJANGO_VAR_DIR", str(tmp_path))
    current = games.ai.default_numba_cache_dir()
    older = current.parent / "0123456789ab"
    by_path = (
        current.parent / "ai_e81b9ade65be3f71288b49b88929d605c28e1ea0"
    )  # numba's own, NUMBA_CACHE_DIR set by hand
    for folder in (current, older, by_path):
        folder.mkdir(parents=True)
        (folder / "index.nbi").write_text("machine code")

    # A directory set by hand (the worker units', a test's) is somebody else's: nothing is removed.
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))
    assert precompile.remove_other_versions() == []
    assert older.exists()

    # With the default, the older digest goes; the current one and numba's own layout stay.
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(current))
    assert precompile.remove_other_versions() == [older]
    assert not older.exists() and current.exists() and by_path.exists()
