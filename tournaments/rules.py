"""The pure rules of tournaments: points, arena pairing, Swiss pairing, Buchholz (no Django, no database)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

WIN, DRAW, LOSS = 2, 1, 0
BYE = WIN  # a Swiss bye counts as a win (1 point shown)
FIRE_AFTER = 2  # arena: after this many wins in a row, every game counts double


class Result(StrEnum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


BASE = {Result.WIN: WIN, Result.DRAW: DRAW, Result.LOSS: LOSS}


def on_fire(streak: int) -> bool:
    return streak >= FIRE_AFTER


def arena_points(result: Result, *, streak: int) -> int:
    """A game's points for a player who had won ``streak`` games in a row before it."""
    return BASE[result] * (2 if on_fire(streak) else 1)


def next_streak(result: Result, streak: int) -> int:
    return streak + 1 if result == Result.WIN else 0


@dataclass(frozen=True)
class Candidate:
    """A free player as the pairing sees them."""

    key: int  # the participant's id
    user_id: int
    score: int
    rating: int
    last_opponent: int | None = None  # a user id
    met: frozenset[int] = field(default_factory=frozenset)  # user ids played before (Swiss)
    byes: int = 0
    whites: int = 0
    blacks: int = 0


Blocked = Callable[[int, int], bool]


def _never(a: int, b: int) -> bool:
    return False


def arena_pairs(free: Iterable[Candidate], *, blocked: Blocked = _never) -> list[tuple[Candidate, Candidate]]:
    """Pair free players: each, best first, with the closest score, then the closest rating.

    Never the opponent of their last game (either way), never two players of whom
    one blocked the other; a player nobody fits waits for the next run.
    """
    order = sorted(free, key=lambda c: (-c.score, -c.rating, c.key))
    taken: set[int] = set()
    pairs: list[tuple[Candidate, Candidate]] = []
    for i, first in enumerate(order):
        if first.key in taken:
            continue
        best: Candidate | None = None
        best_distance: tuple[int, int] | None = None
        for second in order[i + 1 :]:
            if second.key in taken or not _may_meet(first, second, blocked):
                continue
            distance = (abs(first.score - second.score), abs(first.rating - second.rating))
            if best_distance is None or distance < best_distance:
                best, best_distance = second, distance
                if distance == (0, 0):
                    break
        if best is not None:
            taken |= {first.key, best.key}
            pairs.append((first, best))
    return pairs


def _may_meet(a: Candidate, b: Candidate, blocked: Blocked) -> bool:
    if a.last_opponent == b.user_id or b.last_opponent == a.user_id:
        return False
    return not blocked(a.user_id, b.user_id)


def colours(a: Candidate, b: Candidate) -> tuple[Candidate, Candidate]:
    """(white, black): who had white less often; the higher ranked of two equals."""
    if (b.whites - b.blacks) < (a.whites - a.blacks):
        return b, a
    return a, b


def swiss_round(
    players: Iterable[Candidate], *, blocked: Blocked = _never
) -> tuple[list[tuple[Candidate, Candidate]], list[Candidate]]:
    """All pairings of a Swiss round at once, Dutch-system-like: (pairs as (white, black), byes).

    Players are ranked by score, then rating. With an odd count the lowest ranked
    player who has had no bye yet gets it. Within a score group the top half meets
    the bottom half (1st with the first of the bottom half, and so on); a player
    left over floats down to the next group. Nobody meets the same opponent twice
    unless no pairing of the round avoids it; two players of whom one blocked the
    other never meet (a player nobody can then meet gets a bye too).
    """
    ranked = sorted(players, key=lambda c: (-c.score, -c.rating, c.key))
    byes: list[Candidate] = []
    if len(ranked) % 2:
        bye = next((c for c in reversed(ranked) if c.byes == 0), ranked[-1])
        byes.append(bye)
        ranked = [c for c in ranked if c.key != bye.key]
    for allow_rematch in (False, True):
        found = _match(ranked, blocked=blocked, allow_rematch=allow_rematch, budget=[20_000])
        if found is not None:
            return [colours(a, b) for a, b in found], byes
    # Blocks leave someone without any partner: pair greedily, the rest get byes.
    pairs: list[tuple[Candidate, Candidate]] = []
    left = list(ranked)
    while left:
        first = left.pop(0)
        partner = next((c for c in left if not blocked(first.user_id, c.user_id)), None)
        if partner is None:
            byes.append(first)
            continue
        left.remove(partner)
        pairs.append(colours(first, partner))
    return pairs, byes


def _preference(first: Candidate, rest: list[Candidate]) -> list[Candidate]:
    """Dutch order for ``first`` (the top of what is left): its score group's bottom half first."""
    group = [c for c in rest if c.score == first.score]
    half = (len(group) + 1) // 2  # first is the top of S1; its partner is the top of S2
    dutch = group[half - 1 :] + group[: half - 1][::-1] if group else []
    lower = [c for c in rest if c.score != first.score]
    return dutch + lower


def _match(
    left: list[Candidate], *, blocked: Blocked, allow_rematch: bool, budget: list[int]
) -> list[tuple[Candidate, Candidate]] | None:
    if not left:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, rest = left[0], left[1:]
    for partner in _preference(first, rest):
        if blocked(first.user_id, partner.user_id):
            continue
        if not allow_rematch and partner.user_id in first.met:
            continue
        remaining = [c for c in rest if c.key != partner.key]
        found = _match(remaining, blocked=blocked, allow_rematch=allow_rematch, budget=budget)
        if found is not None:
            return [(first, partner), *found]
    return None


def buchholz(opponents: Iterable[int], scores: dict[int, int]) -> int:
    """The sum of the scores of everyone a player met (a bye adds nothing)."""
    return sum(scores.get(opponent, 0) for opponent in opponents)
