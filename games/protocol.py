"""Every message of the game websocket, as types: the code's side of docs/protocol.md.

``tests/games/test_protocol.py`` reads the document's tables and fails when a
code, event, end reason or snapshot field is here and not there, or the reverse.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from games.hooks import RatingShift

# --- client -> server -------------------------------------------------------------

CommandType = Literal[
    "move",
    "sync",
    "resign",
    "exit",
    "abort",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "propose_takeback",
    "accept_takeback",
    "decline_takeback",
    "undo",
    "redo",
    "new_game",
    "rematch",
    "accept_rematch",
    "decline_rematch",
    "cancel_rematch",
    "ping",
]


class MoveCommand(TypedDict):
    type: Literal["move"]
    move: str
    ply: int
    id: str | int


# --- server -> client -------------------------------------------------------------

EventName = Literal[
    "start",
    "move",
    "end",
    "draw_offer",
    "draw_declined",
    "draw_lapsed",
    "undo",
    "redo",
    "rematch_offer",
    "rematch_declined",
    "rematch_cancelled",
    "rematch_lapsed",
    "rematch_started",
    "takeback_request",
    "takeback_declined",
    "takeback",
]

# The codes an ``error`` message can carry: every services.Code, and the socket's own.
ErrorCode = Literal[
    # the socket itself (core/websocket.py, games/live/consumers.py)
    "malformed",
    "binary",
    "unknown_type",
    "server_error",
    "timeout",
    # games.services.Code
    "not_found",
    "no_identity",
    "spectator",
    "not_started",
    "game_over",
    "not_your_turn",
    "stale",
    "illegal",
    "bad_level",
    "bad_time",
    "bad_kind",
    "login_required",
    "bad_invitee",
    "invitation_refused",
    "not_open",
    "not_invited",
    "too_late",
    "no_draws",
    "offer_pending",
    "too_soon",
    "no_offer",
    "no_undo",
    "no_takeback",
    "takeback_pending",
    "low_time",
    "nothing_to_undo",
    "nothing_to_redo",
    "no_rematch",
    "no_abandon",
    "bad_position",
    "position_over",
    "too_many_games",
    "rate_limited",
    "bot_account",
]

EndReasonName = Literal[
    "board_full",
    "no_moves",
    "wipeout",
    "line",
    "all_boards_decided",
    "no_clones",
    "repetition",  # from the engines
    "resign",
    "exit",
    "timeout",
    "draw_agreed",
    "aborted",
    "abandoned",
    "declined",
    "cancelled",
    "expired",
]


GameStatusName = Literal["waiting", "active", "finished", "aborted"]  # Game.Status


class Player(TypedDict):
    name: str
    kind: Literal["user", "guest", "computer"]
    level: str | None
    bot: bool  # a BOT account (issue #41): pages mark its name BOT


class Clock(TypedDict):
    timed: bool
    initial_ms: int
    increment_ms: int  # added to the mover's clock after each of its moves (Fischer)
    days_per_move: int  # a correspondence game: each move may take this many days (0 = live)
    ms: list[int]
    running: int | None  # null before each side has moved: the clocks start then (docs/decisions.md)
    first_move_ms: int | None  # before the clocks start: what the side to move has left for its first move
    at: int


class Result(TypedDict):
    winner: int | None
    reason: EndReasonName
    score: list[int]


class Snapshot(TypedDict):
    """Everything a board page needs to draw a game (games.live.bus.snapshot)."""

    id: int
    game: str
    name: str
    kind: str
    status: GameStatusName
    v: int
    ply: int
    moves: list[str]
    last_move: str | None
    players: list[Player | None]
    position: dict[str, Any]
    clock: Clock
    draw_offer: int | None
    draw_wait: list[int]
    takeback: int | None  # the side asking to take back, or None
    takeback_wait: list[int]  # per side: plies to wait before asking again
    result: Result | None
    rated: bool  # the result counted for ratings (set once ratings applied it)
    casual: bool  # chosen at set-up: the game changes no rating
    can_redo: bool
    rematch_offer: int | None
    rematch_url: str | None
    rating_changes: list[RatingShift | None]  # per side, once ratings applied the finished game


class MovePatchFields(TypedDict):
    """The snapshot's fields a move changes."""

    status: GameStatusName
    ply: int
    last_move: str | None
    position: dict[str, Any]
    clock: Clock
    draw_offer: int | None
    draw_wait: list[int]
    takeback: int | None
    takeback_wait: list[int]
    can_redo: bool


class MovePatch(MovePatchFields):
    """A move event's ``patch``: apply to the snapshot of version ``base`` (docs/protocol.md)."""

    added: list[str]  # the tokens the move added to ``moves``: the move, then any forced passes


class StateMessage(TypedDict, total=False):
    type: Literal["state"]
    v: int
    you: int | None
    online: list[bool]
    presence_seq: int
    game: Snapshot
    id: Any  # the ``id`` of the ``sync`` it answers


class EventMessage(TypedDict):
    type: Literal["event"]
    event: EventName
    v: int
    you: int | None
    game: Snapshot


class MoveEventMessage(TypedDict, total=False):
    """A move as a patch (the fast path): ``patch`` applies to the snapshot of version ``base``."""

    type: Literal["event"]
    event: Literal["move"]
    v: int
    you: int | None
    base: int
    patch: MovePatch
    ack: AckMessage  # only on the mover's own socket


class AckMessage(TypedDict):
    type: Literal["ack"]
    id: Any
    ply: int
    v: int
    duplicate: bool


class ErrorMessage(TypedDict, total=False):
    type: Literal["error"]
    code: ErrorCode
    message: str
    id: str | int


class PresenceMessage(TypedDict):
    type: Literal["presence"]
    side: int
    online: bool
    seq: int


class RedirectMessage(TypedDict):
    type: Literal["redirect"]
    url: str
