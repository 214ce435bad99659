"""The tournament a game was paired in, as the game page names it ("Tea-time arena, round 3").

games never imports tournaments: the tournaments app lends its reader here when it
starts (tournaments/apps.py). Until then, and on a site without it, no game has one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple


class TournamentLink(NamedTuple):
    name: str
    url: str
    round: int  # a Swiss round; 0 in an arena


def _no_tournament(game_id: int) -> TournamentLink | None:
    return None


tournament_of: Callable[[int], TournamentLink | None] = _no_tournament
