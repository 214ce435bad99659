"""The Watch page: the games in play, the TV, and their live feed (games/live/watch.py)."""

from __future__ import annotations

from typing import Any

from django.shortcuts import render
from django.utils.translation import gettext as _

from accounts.guests import display_name
from accounts.services.blocks import related_by_blocks
from games.kinds import KINDS, game_name
from games.live import spectators
from games.live.watch import payload, shown_ids
from games.models import AI_LEVEL_CHOICES
from games.store import watchlist

LEVELS = dict(AI_LEVEL_CHOICES)


def _shown_name(player: dict[str, Any]) -> str:
    """A seat's name for people, in the page's language (the feed carries what the page's script turns into it)."""
    if player["kind"] == "computer":
        return _("Computer (%(level)s)") % {"level": LEVELS.get(player["level"], player["level"])}
    if player["kind"] == "guest":
        return display_name(player["name"])
    return player["name"]


def watch(request):
    """Open to everybody, guests and visitors included; watching makes no session."""
    blocked = related_by_blocks(request.user)
    games = watchlist.games_in_play()
    counts = spectators.counts_now(sorted(shown_ids(games, blocked)))
    feed = payload(watchlist.with_spectators(games, counts), blocked)
    rows = [
        {
            **row,
            "name": game_name(row["game"]),
            "players": [{**player, "shown": _shown_name(player)} for player in row["players"]],
        }
        for row in feed["games"]
    ]
    kinds = [(slug, game_name(slug)) for slug in KINDS]
    return render(
        request,
        "games/watch.html",
        {"feed": feed, "rows": rows, "kinds": kinds, "game_names": dict(kinds)},
    )
