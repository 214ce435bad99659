"""Elo arithmetic, FIDE style. Pure functions: no Django, no storage.

We use the logistic formula exactly, ``E = 1 / (1 + 10 ** ((Rb - Ra) / 400))``,
not FIDE's rounded lookup table and not its 400-point cap, so a 1500 player who
beats a 1900 player with K = 40 gains 40 * (1 - 1/11) = +36.36 (FIDE's table would
say 0.92 * 40 = +36.8). Ratings are kept exact; only the pages round them.
"""

from __future__ import annotations

import math

INITIAL_RATING = 1500.0
# FIDE's K schedule: 40 until a player has completed 30 rated games, 20 after,
# 10 for good once the player has reached 2400.
K_NEW_PLAYER = 40
K_REGULAR = 20
K_MASTER = 10
NEW_PLAYER_GAMES = 30
MASTER_RATING = 2400.0
# Provisional ratings (issue #26): for a player's first 10 rated games in a game
# K is 60, so a new player reaches their level quickly; pages show "?" beside
# such a rating. FIDE's schedule above applies from the 11th game on.
K_PROVISIONAL = 60
PROVISIONAL_GAMES = 10

WIN = 1.0
DRAW = 0.5
LOSS = 0.0


def expected_score(rating: float, opponent: float) -> float:
    """The score ``rating`` is expected to make against ``opponent`` (0..1)."""
    # math.pow, not **: typeshed types float ** float as Any (a negative base gives a complex).
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def k_factor(*, games_played: int, rating: float, peak: float) -> int:
    """K for a player who has completed ``games_played`` rated games before this one.

    The 2400 rule wins over the new-player rule: once reached (``peak``), K stays 10
    even if the rating drops below 2400 again.
    """
    if max(rating, peak) >= MASTER_RATING:
        return K_MASTER
    if is_provisional(games_played):
        return K_PROVISIONAL
    if games_played < NEW_PLAYER_GAMES:
        return K_NEW_PLAYER
    return K_REGULAR


def is_provisional(games_played: int) -> bool:
    """A rating from fewer than ``PROVISIONAL_GAMES`` rated games: shown with "?", moved with a larger K."""
    return games_played < PROVISIONAL_GAMES


def rating_change(*, rating: float, opponent: float, score: float, k: float) -> float:
    """How much ``rating`` moves after scoring ``score`` (1 win, 0.5 draw, 0 loss)."""
    return k * (score - expected_score(rating, opponent))


def shown(value: float) -> int:
    """The rating as pages show it: rounded half up (1520.5 -> 1521).

    Rankings compare shown values, so two players who see the same number share a place.
    """
    return math.floor(value + 0.5)
