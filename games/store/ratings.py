"""Players' ratings as games reads them (quick pairing, the lobby).

games never imports ratings: the ratings app lends its readers here when it
starts (ratings/apps.py). Until then, and on a site without it, everyone is 1500.
"""

from __future__ import annotations

from collections.abc import Callable


def _provisional_rating(user: object, game: str) -> int:
    return 1500


# A player's rating in a game (ratings.selectors.rating_value once the ratings app is ready).
rating_of: Callable[[object, str], int] = _provisional_rating
