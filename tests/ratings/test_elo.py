"""Elo arithmetic against worked examples (exact logistic formula, no 400-point cap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratings.elo import DRAW, LOSS, WIN, expected_score, k_factor, rating_change, shown


@pytest.mark.parametrize(
    ("rating", "opponent", "expected"),
    [
        (1500, 1500, 0.5),
        (1500, 1900, 0.0909),  # 1 / 11
        (1900, 1500, 0.9091),
        (2000, 1800, 0.7597),
        # Wikipedia's "Elo rating system" worked example: a 1613 player against five opponents.
        (1613, 1609, 0.506),
        (1613, 1477, 0.686),
        (1613, 1388, 0.785),
        (1613, 1586, 0.539),
        (1613, 1720, 0.351),
    ],
)
def test_expected_score_matches_reference_values(rating, opponent, expected):
    assert expected_score(rating, opponent) == pytest.approx(expected, abs=5e-4)


def test_expected_scores_of_both_players_add_up_to_one():
    assert expected_score(1732.4, 1488.1) + expected_score(1488.1, 1732.4) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("rating", "opponent", "score", "k", "change"),
    [
        (1500, 1500, WIN, 40, +20.0),  # equal players, K=40: winner 1520 ...
        (1500, 1500, LOSS, 40, -20.0),  # ... loser 1480
        (1500, 1500, DRAW, 40, 0.0),
        (1500, 1900, WIN, 40, +36.36),  # lila's EloTest says +37 from FIDE's rounded table (0.92)
        (1900, 1500, LOSS, 40, -36.36),
        (1900, 1500, WIN, 40, +3.64),
        (2000, 1800, WIN, 20, +4.81),
        (2000, 1800, LOSS, 20, -15.19),
        (2400, 2400, WIN, 10, +5.0),
        (2450, 2200, LOSS, 10, -8.08),
    ],
)
def test_rating_change_matches_worked_examples(rating, opponent, score, k, change):
    assert rating_change(rating=rating, opponent=opponent, score=score, k=k) == pytest.approx(
        change, abs=0.005
    )


def test_wikipedia_five_game_example_ends_at_1601():
    opponents = [1609, 1477, 1388, 1586, 1720]
    expected = sum(expected_score(1613, o) for o in opponents)
    assert round(1613 + 32 * (2.5 - expected)) == 1601


@pytest.mark.parametrize(
    ("games_played", "rating", "peak", "k"),
    [
        (0, 1500, 1500, 60),  # provisional: the first 10 rated games use 60
        (9, 1800, 1800, 60),
        (10, 1700, 1700, 40),  # from the 11th game on, FIDE's schedule
        (29, 1700, 1700, 40),  # the 30th rated game still uses 40
        (30, 1700, 1700, 20),  # from the 31st on: 20
        (200, 2399.9, 2399.9, 20),
        (200, 2400, 2400, 10),  # reached 2400: 10
        (200, 2350, 2412, 10),  # ... and it stays 10 after dropping below
        (12, 2400, 2400, 10),  # 2400 wins over the new-player rule
    ],
)
def test_k_is_provisional_then_follows_fides_schedule(games_played, rating, peak, k):
    assert k_factor(games_played=games_played, rating=rating, peak=peak) == k


@pytest.mark.parametrize(
    ("value", "shown_value"),
    [(1520.0, 1520), (1520.4999, 1520), (1520.5, 1521), (1479.5, 1480), (1479.49, 1479)],
)
def test_ratings_are_shown_rounded_half_up(value, shown_value):
    assert shown(value) == shown_value


def test_elo_module_imports_nothing_from_django():
    import subprocess
    import sys

    code = "import sys, ratings.elo; print(any(m.startswith('django') for m in sys.modules))"
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert out.stdout.strip() == "False"
