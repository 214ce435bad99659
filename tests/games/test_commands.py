"""The operator's commands: perft and arena."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def run(*args: str) -> list[str]:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip().splitlines()


@pytest.mark.parametrize(
    ("slug", "depth", "count"),
    [
        ("reversi", 4, 244),
        ("ataxx", 2, 256),
        ("ultimate_ttt", 2, 720),
        ("quantum_ttt", 2, 1296),
        ("four_tac_toe", 2, 6320),
    ],
)
def test_perft_prints_the_count_on_its_last_line(slug, depth, count):
    lines = run("perft", slug, str(depth))
    assert lines[-1] == str(count)
    assert "nodes/s" in lines[0]


def test_perft_from_a_position_and_moves():
    assert run("perft", "ataxx", "1", "--fen", "7/7/7/2x1o2/7/7/7 x 0 1")[-1] == "23"
    assert run("perft", "reversi", "1", "--moves", "d3 c5")[-1] == "5"  # black after d3 c5: 5 replies


def test_perft_refuses_a_bad_position_clearly():
    with pytest.raises(CommandError, match="rank|FEN|fen|invalid|malformed"):
        run("perft", "ataxx", "1", "--fen", "not a fen")
    with pytest.raises(CommandError):
        run("perft", "reversi", "1", "--moves", "a1")


def test_arena_prints_the_score_and_the_time_per_move():
    lines = run("arena", "quantum_ttt", "easy", "random", "--games", "2", "--seed", "1")
    assert lines[0].startswith("quantum_ttt: easy v random, 2 games:")
    assert any("ms per move" in line for line in lines[1:])
