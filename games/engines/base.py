"""The contract every game engine follows (SPEC section 2).

An engine is a stateless object; positions ("states") are immutable values that
the engine creates and reads. The same engine object serves live matches, the
computer players, replays and tests, so nothing here may know about Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Protocol, TypeGuard, runtime_checkable

Side = int  # 0 moves first, 1 second
State = Any  # each engine defines its own immutable, hashable state type


class IllegalMove(ValueError):
    """A move token that is malformed, off the board or not legal here."""


class InvalidPosition(ValueError):
    """A stored state or position text that is malformed or impossible."""


class OutcomeReason(StrEnum):
    """Why a position is over, on the board. The site's ``EndReason`` reuses these values
    (and adds its own: resignations, clocks, draws by agreement) and translates them."""

    BOARD_FULL = "board_full"
    NO_MOVES = "no_moves"
    WIPEOUT = "wipeout"
    LINE = "line"
    ALL_BOARDS_DECIDED = "all_boards_decided"
    # Ataxx's draws (SPEC 1.2): 100 plies without a clone; a position's third occurrence.
    NO_CLONES = "no_clones"
    REPETITION = "repetition"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished position ended.

    ``winner`` is 0 or 1, or None for a draw; ``reason`` says why the position is over.
    """

    winner: Side | None
    score: tuple[int, int]
    reason: OutcomeReason

    @classmethod
    def by_score(cls, score: tuple[int, int], reason: OutcomeReason) -> Outcome:
        """The side with the higher count wins; equal counts are a draw."""
        winner = None if score[0] == score[1] else (0 if score[0] > score[1] else 1)
        return cls(winner=winner, score=score, reason=reason)


@runtime_checkable
class Engine(Protocol):
    slug: ClassVar[str]
    name: ClassVar[str]
    pass_move: ClassVar[str | None]  # "pass", "0000" or None when a game never passes

    def initial(self) -> State: ...
    def to_move(self, state: State) -> Side: ...
    def legal_moves(self, state: State) -> list[str]: ...
    def play(self, state: State, move: str) -> State: ...
    def score(self, state: State) -> tuple[int, int]: ...
    def outcome(self, state: State) -> Outcome | None: ...
    def dumps(self, state: State) -> dict[str, Any]: ...
    def loads(self, data: dict[str, Any]) -> State: ...
    def fen(self, state: State) -> str: ...
    def from_fen(self, text: str) -> State: ...
    def view(self, state: State) -> dict[str, Any]: ...


def common_view(engine: Engine, state: State) -> dict[str, Any]:
    """The part of ``view`` every game shares: the stored state, whose move, the
    legal moves, the score and the outcome (None while the game runs)."""
    outcome = engine.outcome(state)
    return {
        **engine.dumps(state),
        "to_move": engine.to_move(state),
        "legal_moves": engine.legal_moves(state),
        "score": list(engine.score(state)),
        "outcome": None
        if outcome is None
        else {"winner": outcome.winner, "score": list(outcome.score), "reason": outcome.reason},
    }


def check_stored(data: object, slug: str, keys: set[str] | None = None) -> None:
    """Refuse (InvalidPosition) what ``dumps`` of game ``slug`` cannot have made: not a
    dict, another game's state or, when ``keys`` are given, other keys than those."""
    if not isinstance(data, dict):
        raise InvalidPosition(f"a {slug} state is a dict, not {type(data).__name__}")
    if data.get("game") != slug:
        raise InvalidPosition(f"not a {slug} state: game is {data.get('game')!r}")
    if keys is not None and set(data) != keys:
        raise InvalidPosition(f"a {slug} state has exactly the keys {sorted(keys)}")


def is_whole(value: object, low: int, high: int) -> TypeGuard[int]:
    """Whether ``value`` is an int (not a bool) from ``low`` to ``high``: what JSON numbers must be."""
    return type(value) is int and low <= value <= high


def stored_int(data: dict[str, Any], key: str, low: int, high: int) -> int:
    """``data[key]``, refused (InvalidPosition) unless a whole number from ``low`` to ``high``."""
    value = data.get(key)
    if not is_whole(value, low, high):
        raise InvalidPosition(f"{key} must be a whole number from {low} to {high}, got {value!r}")
    return value


def replay(engine: Engine, moves: list[str], start: State | None = None) -> State:
    """The position after playing ``moves`` from ``start`` (the initial position)."""
    state = engine.initial() if start is None else start
    for move in moves:
        state = engine.play(state, move)
    return state


def perft(engine: Engine, state: State, depth: int) -> int:
    """Leaf count of the move tree to ``depth`` plies.

    Forced passes count as plies; a finished game has no children, so it is a
    leaf only when it sits exactly at the horizon.
    """
    if depth == 0:
        return 1
    moves = engine.legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(perft(engine, engine.play(state, m), depth - 1) for m in moves)
