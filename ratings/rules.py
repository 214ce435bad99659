"""The rating rules that both the ratings task and the pages state."""

from __future__ import annotations

from datetime import timedelta

# Against rating farming: only this many decisive games between the same two
# players in the same game, within the window, change ratings.
FARMING_LIMIT = 3
FARMING_WINDOW = timedelta(hours=24)
