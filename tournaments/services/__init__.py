"""Every change to a tournament, one module per use case (docs/decisions.md, "Tournaments")."""

from tournaments.services.base import Code, TournamentError
from tournaments.services.entries import create, join, leave, pause, resume
from tournaments.services.lifecycle import advance, after_game, attend, start_if_due, sweep
from tournaments.services.pairing import pair_arena
from tournaments.services.scoring import score_game

__all__ = [
    "Code",
    "TournamentError",
    "advance",
    "after_game",
    "attend",
    "create",
    "join",
    "leave",
    "pair_arena",
    "pause",
    "resume",
    "score_game",
    "start_if_due",
    "sweep",
]
