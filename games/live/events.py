"""What only the live sockets send: a move stored by the fast path, its ``ack``, and the retries.

A move stored by the fast path (``games.live.fastpath``) is announced as a patch
on the version below instead of a whole snapshot; a client that does not hold
exactly that version asks for the state, so it can never show a stale position.
Every other change is announced by the services through ``games.bus``, after
commit. The protocol is described in docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from core.messages import MoveEvent, asend_to_group, compact_json
from games.bus import game_group
from games.protocol import AckMessage, MovePatch

logger = logging.getLogger(__name__)


class Stored(Protocol):
    """Where a move was stored: ``services.MoveResult`` (events cannot import the services)."""

    @property
    def ply(self) -> int: ...
    @property
    def version(self) -> int: ...
    @property
    def duplicate(self) -> bool: ...


def ack(reply_id: Any, result: Stored) -> AckMessage:
    """The mover's ``ack`` of a stored (or resent) move: one shape, whichever path stored it."""
    return {
        "type": "ack",
        "id": reply_id,
        "ply": result.ply,
        "v": result.version,
        "duplicate": result.duplicate,
    }


def move_event(
    version: int, patch: MovePatch, *, ack_to: str, ack: AckMessage, row: dict[str, Any]
) -> MoveEvent:
    """A move as a patch on the version below; the socket ``ack_to`` (the mover's) finds its ``ack`` inside.

    ``row``: the columns the move changed (``games.live.row_changes``), for the
    processes that cache the game; never sent to a socket. The event is what the
    game's group carries to ``GameConsumer.game_event``, which the mover's socket
    also calls itself when the broadcast failed (``fastpath.Played``).
    """
    return {
        "type": "game.event",
        "event": "move",
        "v": version,
        "patch_json": compact_json(patch),
        "ack_to": ack_to,
        "ack": ack,
        "row": row,
    }


async def broadcast_event(game_id: int, event: MoveEvent) -> None:
    """Send an event made by ``move_event`` to the game's sockets (players and spectators)."""
    await asend_to_group(game_group(game_id), event)


# A refused move broadcast (Redis out of reach) is tried again in the background: the move is
# stored. A Redis restart takes about a second, but a Redis restarted by its supervisor, or this
# process cut off from it, can take longer; and while Redis is away from this process alone, the
# other processes' sockets (which never lost their subscription, so are not sent the state:
# config/channel_layer.py) hear of the move only from this retry. Past a minute, the boards that
# missed every try still catch up by their ping.
ANNOUNCE_RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0, *(4.0,) * 14)
_retries: set[asyncio.Task[None]] = set()


def announce_later(game_id: int, event: MoveEvent) -> None:
    """Broadcast ``event`` again a few times, from this event loop, until Redis takes it."""
    task = asyncio.get_running_loop().create_task(_broadcast_again(game_id, event))
    _retries.add(task)
    task.add_done_callback(_retries.discard)


async def _broadcast_again(game_id: int, event: MoveEvent) -> None:
    """Try a refused broadcast again a few times; an event older than what a board shows is ignored there."""
    for pause in ANNOUNCE_RETRY_SECONDS:
        await asyncio.sleep(pause)
        try:
            await broadcast_event(game_id, event)
        except Exception as exc:  # still out of reach: wait longer
            last = exc
        else:
            logger.info("move of game %s v%s announced on a retry", game_id, event["v"])
            return
    logger.warning(
        "move of game %s v%s never announced (%r): the boards catch up by their ping",
        game_id,
        event["v"],
        last,
    )
