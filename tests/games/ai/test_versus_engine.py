"""bench/versus_engine.py: an operator plays a few hundred games against an outside engine, one
game per core, and reads the score with its interval and the machine it ran on (issue #42)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "bench" / "versus_engine.py"


def load_match():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("versus_engine", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def games(wins: int, draws: int, losses: int) -> list[float]:
    return [1.0] * wins + [0.5] * draws + [0.0] * losses


def test_the_interval_is_the_one_the_issue_printed_for_its_othello_and_ultimate_rows():
    match = load_match()

    assert [round(x) for x in match.elo_interval(games(144, 11, 70))] == [119, 74, 168]
    assert [round(x) for x in match.elo_interval(games(43, 33, 42))] == [3, -51, 57]


def test_a_clean_sweep_has_no_finite_elo():
    match = load_match()

    elo, low, high = match.elo_interval(games(4, 0, 0))

    assert elo == low == high == float("inf")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_two_games_at_once_each_on_its_own_core_with_its_engine(tmp_path):
    # The outside engine here is the site's own computer player behind its UGI front (Easy):
    # what is checked is the match runner, not the strength.
    engine = tmp_path / "engine"
    engine.write_text(f"#!/bin/sh\nexec {sys.executable} -m games.ai.ugi ultimate_ttt --level easy\n")
    engine.chmod(0o755)

    result = subprocess.run(
        [sys.executable, str(SCRIPT), "ultimate_ttt", str(engine), "--movetime-ms", "10"]
        + ["--level", "easy", "--games", "4", "--jobs", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )

    out = result.stdout
    cores_by_game = dict(re.findall(r"^game (\d+) \(core (\d+)\): (?:win|draw|loss)$", out, re.M))
    assert sorted(cores_by_game) == ["1", "2", "3", "4"]
    assert len(set(cores_by_game.values())) == 2  # two cores, two games on each
    assert re.search(r"^4 games: score [\d.]+ %, Elo \S+ \[\S+, \S+\] \(95 %\)$", out, re.M)
    assert re.search(r"^on \d+ cores of .+; 2 games at a time, one per core", out, re.M)


def test_the_match_table_plays_each_engine_named_and_prints_a_row_for_it(tmp_path):
    engine = tmp_path / "engine"
    engine.write_text(f"#!/bin/sh\nexec {sys.executable} -m games.ai.ugi ultimate_ttt --level easy\n")
    engine.chmod(0o755)

    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "match_table.py"), "--ultimate-ttt", str(engine)]
        + ["--level", "easy", "--games", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )

    rows = re.findall(
        r"^\| ultimate_ttt \| engine \| equal wall time \| 2 \| (\d+)-(\d+)-(\d+) \|", result.stdout, re.M
    )
    assert len(rows) == 1 and sum(int(n) for n in rows[0]) == 2
    assert "reversi |" not in result.stdout and "ataxx |" not in result.stdout  # no engine named, no match
    assert re.search(
        r"^easy at its default budget; on \d+ cores of .+; 1 game\(s\) at a time$", result.stdout, re.M
    )


def test_the_match_table_needs_an_engine():
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "match_table.py")], cwd=REPO, capture_output=True, text=True
    )

    assert result.returncode == 2 and "name at least one engine" in result.stderr
