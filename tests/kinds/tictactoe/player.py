"""Tic-tac-toe's computer player: a random free cell (games.ai's ``choose`` contract)."""

from __future__ import annotations

import random
from typing import Any


def choose(engine: Any, state: Any, level: str, rng: random.Random, deadline: float) -> str:
    return rng.choice(engine.legal_moves(state))
