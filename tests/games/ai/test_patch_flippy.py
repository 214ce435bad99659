"""bench/patch_flippy.py: an operator turns a Flippy checkout's game clock into a per-move time, once."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def load_patcher():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("patch_flippy", REPO / "bench" / "patch_flippy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def checkout_with(tmp_path: Path, lines: list[str]) -> Path:
    """A stand-in for Flippy's player.cpp: the lines the patch looks for, with filler between."""
    (tmp_path / "player.cpp").write_text("\n// filler\n".join(lines) + "\n")
    return tmp_path


def test_the_whole_game_clock_becomes_this_move_s_time_and_a_second_run_changes_nothing(tmp_path):
    patcher = load_patcher()
    checkout = checkout_with(tmp_path, [old for old, _ in patcher.EDITS])

    assert patcher.patch(checkout) is True
    patched = (checkout / "player.cpp").read_text()
    assert "msLeft / 4" not in patched and "msLeft / 6" not in patched
    assert "timeLimit = moveMs;" in patched
    assert patched.count("getTimeElapsed(moveStart)") == 2  # the solve's leftovers go to what follows

    assert patcher.patch(checkout) is False
    assert (checkout / "player.cpp").read_text() == patched


def test_a_checkout_of_another_commit_is_refused_and_left_as_it_was(tmp_path):
    patcher = load_patcher()
    lines = [old for old, _ in patcher.EDITS][:-1]  # a Flippy without the WLD solve's share
    checkout = checkout_with(tmp_path, lines)
    before = (checkout / "player.cpp").read_text()

    with pytest.raises(SystemExit, match="not commit 645ebbe"):
        patcher.patch(checkout)
    assert (checkout / "player.cpp").read_text() == before
