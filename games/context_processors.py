"""What the navigation shows of a player's games on every page."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from games.store.selectors import your_move_count


def your_move(request: HttpRequest) -> dict[str, Any]:
    """The count of games waiting for the player's move, beside "Play" in the header."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"your_move_count": 0}
    return {"your_move_count": your_move_count(user)}
