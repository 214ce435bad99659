"""What the processes of the site tell each other's sockets over the channel layer, as types, and how it goes.

Every message sent with ``group_send`` or ``send`` is one of the ``TypedDict``s
below, and goes through ``send_to_group`` / ``asend_to_group`` (or the
``*_channel`` pair for one channel), so a message's shape is written once and
mypy checks each sender against it. A message's ``type`` names the handler
Channels calls on each consumer that receives it: ``"game.event"`` calls
``game_event`` (the dot becomes an underscore).

These are messages between processes, not the frames a browser reads: the game
socket's frames are ``games.protocol``, documented in docs/protocol.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer

LOBBY_GROUP = "lobby"  # every open page hears that the list of open challenges changed


def user_group(user_id: int) -> str:
    """A registered player's notification sockets (/ws/notify/, accounts.consumers)."""
    return f"user.{user_id}"


def compact_json(content: Any) -> str:
    """JSON as every socket of the site sends it: no spaces."""
    return json.dumps(content, separators=(",", ":"))


# --- a game's group (games.bus.game_group): its players' and spectators' sockets ---------


class GameEvent(TypedDict):
    """A stored change of the game, with its snapshot serialised once by the sender (games.bus)."""

    type: Literal["game.event"]
    event: str  # games.protocol.EventName
    v: int
    game_json: str


class MoveEvent(TypedDict):
    """A move stored by the fast path, as a patch on the version below (games.live.events.move_event)."""

    type: Literal["game.event"]
    event: Literal["move"]
    v: int
    patch_json: str
    ack_to: str  # the mover's channel: that socket finds its ``ack`` inside
    ack: Mapping[str, Any]  # games.protocol.AckMessage
    row: dict[str, Any]  # the columns the move changed, for the processes that cache the game


class GameRatings(TypedDict):
    """The rating changes a finished game made, per side (games.protocol.RatingShift or None)."""

    type: Literal["game.ratings"]
    changes: list[Any]


class GamePresence(TypedDict):
    type: Literal["game.presence"]
    side: int | None
    online: bool
    seq: int


class GameWatchers(TypedDict):
    type: Literal["game.watchers"]
    count: int
    seq: int


class ChatLine(TypedDict):
    """A stored chat line; each socket decides for its own reader whether to send it (chat.consumers)."""

    type: Literal["chat.line"]
    line: int
    room: str
    side: int | None
    name: str
    text: str
    preset: str
    at: float
    user: int | None
    guest: str
    bot: bool  # a BOT account wrote it (issue #41): the page marks the name
    muted: bool
    hide_from: list[int]  # who blocked the author: their sockets drop it


class ChatHidden(TypedDict):
    type: Literal["chat.hidden"]
    line: int


# --- a player's notification sockets (user_group, LOBBY_GROUP, an analysis's group) ---------
# The payloads are what the page reads (config/static/js/notify.js, the tournament page, the
# analysis board), one per ``payload["type"]``; docs/protocol.md, /ws/notify/, says each.


class LobbyChanged(TypedDict):
    """The open challenges changed: the lobby pages and the header's count read them again."""

    type: Literal["lobby"]


# The functional form: "from" is a Python keyword.
Invitation = TypedDict(
    "Invitation",
    {
        "type": Literal["invitation"],
        "game_id": int,
        "game": str,  # the game's slug
        "status": str,  # games.models.Game.Status: an invitation taken or called off is dropped
        "from": str,  # who invites (their username)
        "bot": bool,  # they are a BOT account: the notice marks the name (issue #41)
    },
)


class Paired(TypedDict):
    """A quick-pairing seek found an opponent: the seeker's pages go to ``url`` (or show a notice)."""

    type: Literal["paired"]
    game_id: int
    url: str
    days_per_move: int  # 0 for a live game; a correspondence seeker is shown a notice instead
    opponent: str
    bot: bool


class YourTurn(TypedDict):
    """A correspondence game waits for the player's move."""

    type: Literal["your_turn"]
    game_id: int
    game: str  # the game's slug
    url: str
    opponent: str
    bot: bool
    deadline: int | None  # milliseconds since the epoch
    your_move: int  # how many games wait for the player now: the header's "Your move" badge


class AnalysisProgress(TypedDict):
    """A post-game analysis' progress, to the pages watching it (games.services.analysis)."""

    type: Literal["analysis"]
    game: int  # the game's id
    status: str  # games.models.Analysis.Status
    done: int
    total: int


class Unread(TypedDict):
    """The player's count of unread messages changed (read, deleted, blocked)."""

    type: Literal["unread"]
    unread: int


# The functional form: "from" is a Python keyword.
NewMessage = TypedDict(
    "NewMessage",
    {
        "type": Literal["message"],
        "from": str,  # the sender's username
        "id": int,  # the message's id
        "unread": int,  # the player's count of unread messages, this one included
    },
)


class TournamentGame(TypedDict):
    """A tournament paired the player: their pages go to ``url`` (also sent by the tournament's socket)."""

    type: Literal["tournament_game"]
    tournament: int
    game_id: int
    url: str


NotifyPayload = (
    LobbyChanged | Invitation | Paired | YourTurn | AnalysisProgress | Unread | NewMessage | TournamentGame
)


class Notify(TypedDict):
    """Sent on as it is to the page, which reads ``payload["type"]`` (docs/protocol.md, /ws/notify/)."""

    type: Literal["notify"]
    payload: NotifyPayload


def notify(payload: NotifyPayload) -> Notify:
    """The channel-layer message that carries ``payload`` to the notification sockets of a group."""
    return {"type": "notify", "payload": payload}


# --- other groups ---------------------------------------------------------------------------


class AuthRevoked(TypedDict):
    """The user's sessions ended (all of them, or ``session``): their sockets close (core.websocket)."""

    type: Literal["auth.revoked"]
    session: str | None


class StreamWake(TypedDict):
    """A player's API event streams read their challenges and games again (api.streams)."""

    type: Literal["stream.wake"]


class StreamRevoked(TypedDict):
    """The API token a stream opened with was revoked: the stream ends (api.tokens)."""

    type: Literal["stream.revoked"]


class TournamentUpdate(TypedDict):
    """A tournament's standings, serialised once by the sender (tournaments.live)."""

    type: Literal["tournament.update"]
    text: str


GroupMessage = (
    GameEvent
    | MoveEvent
    | GameRatings
    | GamePresence
    | GameWatchers
    | ChatLine
    | ChatHidden
    | Notify
    | AuthRevoked
    | StreamWake
    | StreamRevoked
    | TournamentUpdate
)

# --- one channel ------------------------------------------------------------------------------


class WorkerPong(TypedDict):
    """A worker's answer to a socket's ``worker_ping`` (config.celery.ping_channel)."""

    type: Literal["worker.pong"]
    text: str


class HealthCheck(TypedDict):
    """The health check's round trip through the layer (config.health)."""

    type: Literal["health.check"]
    token: str


ChannelMessage = WorkerPong | HealthCheck


def send_to_group(group: str, message: GroupMessage) -> None:
    """Send ``message`` to every socket in ``group``, from synchronous code (a service after commit, a task).

    Without a channel layer configured nothing is sent. A layer that refuses
    (Redis out of reach) raises: each caller knows whether its message may be
    lost (the stored state is read again by the pages) or must be retried.
    """
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


async def asend_to_group(group: str, message: GroupMessage, *, layer: BaseChannelLayer | None = None) -> None:
    """``send_to_group`` from the event loop; ``layer``: a socket's own layer (its group joins were made on it)."""
    layer = layer or get_channel_layer()
    if layer is not None:
        await layer.group_send(group, message)


def send_to_channel(channel: str, message: ChannelMessage) -> None:
    """Send ``message`` to one channel (one socket or one waiting reader), from synchronous code."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.send)(channel, message)


async def asend_to_channel(
    channel: str, message: ChannelMessage, *, layer: BaseChannelLayer | None = None
) -> None:
    """``send_to_channel`` from the event loop."""
    layer = layer or get_channel_layer()
    if layer is not None:
        await layer.send(channel, message)
