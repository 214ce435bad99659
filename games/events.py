"""What a game tells its sockets, and the one function that sends it.

Every event carries the game's ``v`` (version) and the full snapshot, so a client
that missed an event simply renders the newer one: it can never show a stale
position, and it never has to apply a diff. Clients ignore events whose ``v``
is not newer than what they show. The protocol is described in docs/protocol.md.
"""

from __future__ import annotations

import time
from typing import Literal, cast

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

from accounts.consumers import LOBBY_GROUP
from config.websocket import compact_json
from games.models import Game
from games.protocol import EndReasonName, EventName, GameStatusName, Player, Result, Snapshot


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


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
    return {"name": name, "kind": kind, "level": game.ai_of(side) or None}


def players(game: Game) -> list[Player | None]:
    """Who plays each side (reads the registered players' names)."""
    return [_player(game, 0), _player(game, 1)]


def snapshot(game: Game, *, known_players: list[Player | None] | None = None) -> Snapshot:
    """Everything a board page needs to draw the game, for any viewer.

    ``known_players``: the players as read before, by a caller that must not
    query the database (the fast path runs in the event loop).
    """
    engine = game.engine
    state = game.engine_state()
    now = timezone.now()
    position = engine.view(state)
    running = None
    if game.status == Game.Status.ACTIVE and game.time_control:
        running = engine.to_move(state)
    result: Result | None = None
    if game.is_over:
        # The columns hold the model's choices, which are exactly the protocol's names.
        reason = cast(EndReasonName, game.end_reason)
        result = {"winner": game.winner, "reason": reason, "score": [game.score0, game.score1]}
    return {
        "id": game.pk,
        "game": game.game,
        "name": engine.name,
        "kind": game.kind,
        "status": cast(GameStatusName, game.status),
        "v": game.version,
        "ply": game.ply,
        "moves": list(game.tokens),
        "last_move": game.tokens[-1] if game.tokens else None,
        "players": players(game) if known_players is None else known_players,
        "position": position,
        "clock": {
            "timed": bool(game.time_control),
            "initial_ms": game.time_control * 1000,
            "ms": [max(0, game.remaining_ms(0, now=now)), max(0, game.remaining_ms(1, now=now))],
            "running": running,
            "at": int(time.time() * 1000),
        },
        "draw_offer": game.draw_offer_side,
        "draw_wait": [game.plies_until_draw_offer(0), game.plies_until_draw_offer(1)],
        "result": result,
        "rated": game.rated,
        "can_redo": bool(game.redo_moves),
    }


def send_game_event(game_id: int, event: EventName, payload: Snapshot) -> None:
    """Broadcast a committed change to the game's sockets (players and spectators).

    The snapshot travels as JSON text, serialised once here: each socket only
    wraps it (see ``GameConsumer.game_event``), however many spectators watch.
    """
    async_to_sync(broadcast_game_event)(game_id, event, payload)


async def broadcast_game_event(game_id: int, event: EventName, payload: Snapshot) -> None:
    """``send_game_event`` from the event loop (the fast path's way, without a thread)."""
    await get_channel_layer().group_send(
        game_group(game_id),
        {"type": "game.event", "event": event, "v": payload["v"], "game_json": compact_json(payload)},
    )


def send_lobby_event(game_id: int) -> None:
    """Tell lobby pages to refresh, and an invited player about their invitation."""
    from accounts.consumers import user_group

    layer = get_channel_layer()
    async_to_sync(layer.group_send)(LOBBY_GROUP, {"type": "notify", "payload": {"type": "lobby"}})
    game = Game.objects.filter(pk=game_id).select_related("created_by").first()
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
