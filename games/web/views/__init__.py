"""HTTP pages of live play, one module per page or group of pages. Thin: parse, authorise, call a
service, render. ``games/web/urls.py`` names the views from here.

* ``home``: the home page and its lobby (new game, open challenges, quick games), the rules pages;
* ``game_page``: the board page and its seats (join, take, decline, cancel, abandon);
* ``replay_pages``: the replay, its positions, the record as text;
* ``analysis_pages``: a finished game's analysis, "Play from here", the free analysis board.
"""

from __future__ import annotations

from games.web.views.analysis_pages import (
    analysis,
    analysis_board,
    analysis_board_evaluation,
    analysis_board_position,
    play_from_here,
)
from games.web.views.game_page import abandon, cancel, decline, join, play, take_challenge
from games.web.views.home import home, lobby, new_game, quick_cancel, quick_seek, rules
from games.web.views.replay_pages import record, replay, replay_positions

__all__ = [
    "abandon",
    "analysis",
    "analysis_board",
    "analysis_board_evaluation",
    "analysis_board_position",
    "cancel",
    "decline",
    "home",
    "join",
    "lobby",
    "new_game",
    "play",
    "play_from_here",
    "quick_cancel",
    "quick_seek",
    "record",
    "replay",
    "replay_positions",
    "rules",
    "take_challenge",
]
