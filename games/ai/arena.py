"""Computer-versus-computer matches, for the ``arena`` command and the strength benchmark."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from games.ai import choose_move
from games.engines.base import Engine


@dataclass
class MatchResult:
    wins: int = 0  # from level A's point of view
    draws: int = 0
    losses: int = 0
    move_times: dict[str, list[float]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """A's share of the points, 0..1 (a draw is half a point)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def timing(self, level: str) -> tuple[float, float]:
        """Average and maximum seconds per move of ``level``."""
        times = self.move_times.get(level) or [0.0]
        return sum(times) / len(times), max(times)


def play_game(
    engine: Engine, levels: tuple[str, str], *, seed: int, times: dict[str, list[float]] | None = None
) -> int | None:
    """Play one game, ``levels[0]`` as side 0; returns the winning side or None."""
    state = engine.initial()
    ply = 0
    while (outcome := engine.outcome(state)) is None:
        level = levels[engine.to_move(state)]
        started = time.perf_counter()
        move = choose_move(engine, state, level, seed=seed * 1000 + ply)
        if times is not None:
            times.setdefault(level, []).append(time.perf_counter() - started)
        state = engine.play(state, move)
        ply += 1
    return outcome.winner


def play_match(engine: Engine, level_a: str, level_b: str, *, games: int, seed: int = 0) -> MatchResult:
    """``games`` games between two levels, colours alternating, A first as side 0."""
    result = MatchResult()
    for i in range(games):
        a_side = i % 2
        levels = (level_a, level_b) if a_side == 0 else (level_b, level_a)
        # When both levels are the same, keep their timings apart by side.
        winner = play_game(engine, levels, seed=seed + i, times=result.move_times)
        if winner is None:
            result.draws += 1
        elif winner == a_side:
            result.wins += 1
        else:
            result.losses += 1
    return result
