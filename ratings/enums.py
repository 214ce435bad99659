"""The ratings' vocabularies: what the code compares, stored and shown as these strings."""

from __future__ import annotations

from enum import StrEnum


class UnratedReason(StrEnum):
    """Why a finished game left ratings unchanged (``Game.unrated_reason``; "" there when it was rated)."""

    ABORTED = "aborted"
    COMPUTER = "computer"
    CASUAL = "casual"  # the players chose a casual game
    GUEST = "guest"
    DRAW = "draw"
    FARMING = "farming"
    SAME_PLAYER = "same_player"
    NO_PLAYER = "no_player"


class Applied(StrEnum):
    """What ``services.apply_ratings_for_game`` did."""

    RATED = "rated"
    UNRATED = "unrated"
    ALREADY_APPLIED = "already_applied"
    NOT_OVER = "not_over"
    MISSING = "missing"


class Result(StrEnum):
    """A game's result from one player's side (history pages, their filter and CSS classes)."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"
    ABORTED = "aborted"
