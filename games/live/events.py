"""What a game tells its sockets, and the functions that send it.

Every event carries the game's ``v`` (version). Most carry the full snapshot, so
a client that missed an event simply renders the newer one. A move stored by the
fast path (``games.live.fastpath``) carries a patch on the version below instead; a
client that does not hold exactly that version asks for the state, so it can
never show a stale position either. Clients ignore events whose ``v`` is not
newer than what they show. The protocol is described in docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Literal, Protocol, cast

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

from accounts.groups import LOBBY_GROUP
from config.websocket import compact_json
from games.hooks import changes_of
from games.live.protocol import (
    AckMessage,
    EndReasonName,
    EventName,
    GameStatusName,
    MovePatch,
    MovePatchFields,
    Player,
    RatingShift,
    Result,
    Snapshot,
)
from games.models import Game

logger = logging.getLogger(__name__)


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


def stream_group(user_id: int) -> str:
    """A player's API event streams (api/streams.py): woken when one of their challenges or games changes."""
    return f"stream.{user_id}"


def wake_streams(*user_ids: int | None) -> None:
    """Tell these players' event streams to read their challenges and games again (they hold no state of ours)."""
    layer = get_channel_layer()
    for user_id in {uid for uid in user_ids if uid}:
        async_to_sync(layer.group_send)(stream_group(user_id), {"type": "stream.wake"})


def _player(game: Game, side: int) -> Player | None:
    if not game.side_is_taken(side):
        return None
    kind: Literal["user", "guest", "computer"]
    if game.ai_of(side):
        kind = "computer"
    elif game.user_id_of(side):
        kind = "user"
    else:
        kind = "guest"
    # A guest's stored name ("Guest 4821"): each page shows it in its own language.
    name = (game.guest0_name if side == 0 else game.guest1_name) if kind == "guest" else game.side_name(side)
    # "bot": a BOT account (issue #41), marked BOT wherever its name shows.
    bot = kind == "user" and bool(getattr(game.user_of(side), "is_bot", False))
    return {"name": name, "kind": kind, "level": game.ai_of(side) or None, "bot": bot}


def players(game: Game) -> list[Player | None]:
    """Who plays each side (reads the registered players' names)."""
    return [_player(game, 0), _player(game, 1)]


def snapshot(game: Game, *, known_players: list[Player | None] | None = None) -> Snapshot:
    """Everything a board page needs to draw the game, for any viewer.

    ``known_players``: the players as read before, by a caller that must not
    query the database (the fast path runs in the event loop).
    """
    result: Result | None = None
    if game.is_over:
        # The columns hold the model's choices, which are exactly the protocol's names.
        reason = cast(EndReasonName, game.end_reason)
        result = {"winner": game.winner, "reason": reason, "score": [game.score0, game.score1]}
    live = _changed_by_moves(game)
    return {
        "id": game.pk,
        "game": game.game,
        "name": game.engine.name,
        "kind": game.kind,
        "status": live["status"],
        "v": game.version,
        "ply": live["ply"],
        "moves": list(game.tokens),
        "last_move": live["last_move"],
        "players": players(game) if known_players is None else known_players,
        "position": live["position"],
        "clock": live["clock"],
        "draw_offer": live["draw_offer"],
        "draw_wait": live["draw_wait"],
        "takeback": live["takeback"],
        "takeback_wait": live["takeback_wait"],
        "result": result,
        "rated": game.rated,
        "casual": game.casual,
        "can_redo": live["can_redo"],
        "rematch_offer": game.rematch_offer_side,
        "rematch_url": f"/play/{game.rematch_id}/" if game.rematch_id else None,
        # Read through games.hooks, which the ratings app fills (games never imports ratings); only
        # for a game that is over, so the fast path's snapshots of running games read nothing.
        "rating_changes": changes_of(game) if game.is_over else [None, None],
    }


def move_patch(game: Game, added: list[str]) -> MovePatch:
    """What a move changed in the snapshot one version below: its tokens (with forced passes) and the fields they change.

    Sent instead of the whole snapshot by the fast path (``games.live.fastpath``): a
    client that holds exactly the version below applies it, any other asks for
    the state (docs/protocol.md).
    """
    return {**_changed_by_moves(game), "added": added}


def _changed_by_moves(game: Game) -> MovePatchFields:
    engine = game.engine
    state = game.engine_state()
    now = timezone.now()
    running = None
    first_move_ms = None
    if game.status == Game.Status.ACTIVE and game.time_control:
        if game.clocks_started:
            running = engine.to_move(state)
        else:
            first_move_ms = max(0, game.turn_left_ms(now=now))
    return {
        "status": cast(GameStatusName, game.status),
        "ply": game.ply,
        "last_move": game.tokens[-1] if game.tokens else None,
        "position": engine.view(state),
        "clock": {
            "timed": bool(game.time_control),
            "initial_ms": game.time_control * 1000,
            "increment_ms": game.increment * 1000,
            "days_per_move": game.days_per_move,
            "ms": [max(0, game.remaining_ms(0, now=now)), max(0, game.remaining_ms(1, now=now))],
            "running": running,
            # Before each side has moved no clock runs; the side to move has this long to make its first move.
            "first_move_ms": first_move_ms,
            "at": int(time.time() * 1000),
        },
        "draw_offer": game.draw_offer_side,
        "draw_wait": [game.plies_until_draw_offer(0), game.plies_until_draw_offer(1)],
        "takeback": game.takeback_side,
        "takeback_wait": [game.plies_until_takeback(0), game.plies_until_takeback(1)],
        "can_redo": bool(game.redo_moves),
    }


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


def send_game_event(game_id: int, event: EventName, payload: Snapshot) -> None:
    """Broadcast a committed change to the game's sockets (players and spectators).

    The snapshot travels as JSON text, serialised once here: each socket only
    wraps it (see ``GameConsumer.game_event``), however many spectators watch.
    """
    async_to_sync(broadcast_game_event)(game_id, event, payload)


async def broadcast_game_event(game_id: int, event: EventName, payload: Snapshot) -> None:
    """``send_game_event`` from the event loop (without a thread)."""
    await get_channel_layer().group_send(
        game_group(game_id),
        {"type": "game.event", "event": event, "v": payload["v"], "game_json": compact_json(payload)},
    )


def move_event(
    version: int, patch: MovePatch, *, ack_to: str, ack: AckMessage, row: dict[str, Any]
) -> dict[str, Any]:
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


async def broadcast_event(game_id: int, event: dict[str, Any]) -> None:
    """Send an event made by ``move_event`` to the game's sockets (players and spectators)."""
    await get_channel_layer().group_send(game_group(game_id), event)


def send_rating_changes(game_id: int, changes: list[RatingShift | None]) -> None:
    """The rating changes a finished game made, per side, to its open pages: applied after the end, by a task.

    Not a game event: the game itself did not change (its version stays), so
    it goes as its own message, ``ratings`` (docs/protocol.md). A page that
    opens later finds the changes in the snapshot.
    """
    async_to_sync(get_channel_layer().group_send)(
        game_group(game_id), {"type": "game.ratings", "changes": changes}
    )


def send_lobby_event(game_id: int) -> None:
    """Tell lobby pages to refresh, and an invited player about their invitation."""
    from accounts.groups import user_group

    layer = get_channel_layer()
    async_to_sync(layer.group_send)(LOBBY_GROUP, {"type": "notify", "payload": {"type": "lobby"}})
    game = Game.objects.filter(pk=game_id).select_related("created_by").first()
    if game is not None:
        # The challenger's and the challenged's programs hear of a challenge made, taken or called off.
        wake_streams(game.created_by_id, game.invited_user_id, game.user0_id, game.user1_id)
    if game is not None and game.kind == Game.Kind.DIRECT and game.invited_user_id:
        async_to_sync(layer.group_send)(
            user_group(game.invited_user_id),
            {
                "type": "notify",
                "payload": {
                    "type": "invitation",
                    "game_id": game.pk,
                    "game": game.game,
                    "status": game.status,
                    "from": game.created_by.username if game.created_by else "",
                },
            },
        )


def send_paired(user_id: int, game_id: int, *, days_per_move: int = 0, opponent: str = "") -> None:
    """Tell a quick-pairing seeker's open pages (the /ws/notify/ socket) where their game is.

    The home page goes there; a correspondence seeker may be on any page (their seek outlives it),
    and is shown a notice naming the opponent.
    """
    from accounts.groups import user_group

    payload = {
        "type": "paired",
        "game_id": game_id,
        "url": f"/play/{game_id}/",
        "days_per_move": days_per_move,
        "opponent": opponent,
    }
    async_to_sync(get_channel_layer().group_send)(user_group(user_id), {"type": "notify", "payload": payload})


def send_your_turn(user_id: int, game_id: int) -> None:
    """Tell a player's open pages (the /ws/notify/ socket) that a correspondence game waits for their move.

    Sent after the move committed; carries the deadline and the new count of
    games waiting for the player, for the header's "Your move" badge.
    """
    from accounts.groups import user_group
    from games.store.selectors import your_move_count

    game = Game.objects.filter(pk=game_id).select_related("user0", "user1").first()
    if game is None or game.status != Game.Status.ACTIVE:
        return
    side = game.to_move
    if game.user_id_of(side) != user_id:
        return  # the turn moved on again before this was sent
    deadline = game.deadline()
    payload = {
        "type": "your_turn",
        "game_id": game.pk,
        "game": game.game,
        "url": game.get_absolute_url(),
        "opponent": game.side_name(1 - side),
        "deadline": int(deadline.timestamp() * 1000) if deadline else None,
        "your_move": your_move_count(game.user_of(side)),
    }
    async_to_sync(get_channel_layer().group_send)(user_group(user_id), {"type": "notify", "payload": payload})


# A refused move broadcast (Redis out of reach) is tried again in the background: the move is
# stored. A Redis restart takes about a second, but a Redis restarted by its supervisor, or this
# process cut off from it, can take longer; and while Redis is away from this process alone, the
# other processes' sockets (which never lost their subscription, so are not sent the state:
# config/channel_layer.py) hear of the move only from this retry. Past a minute, the boards that
# missed every try still catch up by their ping.
ANNOUNCE_RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0, *(4.0,) * 14)
_retries: set[asyncio.Task[None]] = set()


def announce_later(game_id: int, event: dict[str, Any]) -> None:
    """Broadcast ``event`` again a few times, from this event loop, until Redis takes it."""
    task = asyncio.get_running_loop().create_task(_broadcast_again(game_id, event))
    _retries.add(task)
    task.add_done_callback(_retries.discard)


async def _broadcast_again(game_id: int, event: dict[str, Any]) -> None:
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
