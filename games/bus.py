"""What a stored change of a game tells the site: the snapshot, and the functions that announce it.

Below the services and the live sockets (services -> bus <- live): a use case
stores its change, then ``announce`` sends the new snapshot to the game's
sockets once the transaction commits, so nobody ever sees a state that could
still roll back. The notices of the lobby and of a player's notification socket
(a pairing, a correspondence turn) go from here too. Every message goes through
``core.messages``; the live sockets (``games.live``) add only what is theirs: a
move stored by the fast path, sent as a patch.

Every event carries the game's ``v`` (version) and the full snapshot, so a
client that missed an event simply renders the newer one. Clients ignore events
whose ``v`` is not newer than what they show (docs/protocol.md).
"""

from __future__ import annotations

import time
from typing import Literal, cast

from django.db import transaction
from django.utils import timezone

from core.messages import (
    LOBBY_GROUP,
    Invitation,
    LobbyChanged,
    Paired,
    YourTurn,
    compact_json,
    notify,
    send_to_group,
    user_group,
)
from games.hooks import changes_of
from games.models import Game
from games.protocol import (
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
from games.store.selectors import your_move_count


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


def stream_group(user_id: int) -> str:
    """A player's API event streams (api/streams.py): woken when one of their challenges or games changes."""
    return f"stream.{user_id}"


def wake_streams(*user_ids: int | None) -> None:
    """Tell these players' event streams to read their challenges and games again (they hold no state of ours)."""
    for user_id in {uid for uid in user_ids if uid}:
        send_to_group(stream_group(user_id), {"type": "stream.wake"})


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


def send_game_event(game_id: int, event: EventName, payload: Snapshot) -> None:
    """Broadcast a committed change to the game's sockets (players and spectators).

    The snapshot travels as JSON text, serialised once here: each socket only
    wraps it (see ``GameConsumer.game_event``), however many spectators watch.
    """
    send_to_group(
        game_group(game_id),
        {"type": "game.event", "event": event, "v": payload["v"], "game_json": compact_json(payload)},
    )


def send_rating_changes(game_id: int, changes: list[RatingShift | None]) -> None:
    """The rating changes a finished game made, per side, to its open pages: applied after the end, by a task.

    Not a game event: the game itself did not change (its version stays), so
    it goes as its own message, ``ratings`` (docs/protocol.md). A page that
    opens later finds the changes in the snapshot.
    """
    send_to_group(game_group(game_id), {"type": "game.ratings", "changes": changes})


def send_lobby_event(game_id: int) -> None:
    """Tell lobby pages to refresh, and an invited player about their invitation."""
    lobby: LobbyChanged = {"type": "lobby"}
    send_to_group(LOBBY_GROUP, notify(lobby))
    game = Game.objects.filter(pk=game_id).select_related("created_by").first()
    if game is not None:
        # The challenger's and the challenged's programs hear of a challenge made, taken or called off.
        wake_streams(game.created_by_id, game.invited_user_id, game.user0_id, game.user1_id)
    if game is not None and game.kind == Game.Kind.DIRECT and game.invited_user_id:
        invitation: Invitation = {
            "type": "invitation",
            "game_id": game.pk,
            "game": game.game,
            "status": game.status,
            "from": game.created_by.username if game.created_by else "",
            # The home page's notice marks a BOT sender, as every name (issue #41).
            "bot": bool(game.created_by and game.created_by.is_bot),
        }
        send_to_group(user_group(game.invited_user_id), notify(invitation))


def send_paired(
    user_id: int, game_id: int, *, days_per_move: int = 0, opponent: str = "", bot: bool = False
) -> None:
    """Tell a quick-pairing seeker's open pages (the /ws/notify/ socket) where their game is.

    The home page goes there; a correspondence seeker may be on any page (their seek outlives it),
    and is shown a notice naming the opponent (``bot``: a BOT account, marked as every name, issue #41).
    """
    paired: Paired = {
        "type": "paired",
        "game_id": game_id,
        "url": f"/play/{game_id}/",
        "days_per_move": days_per_move,
        "opponent": opponent,
        "bot": bot,
    }
    send_to_group(user_group(user_id), notify(paired))


def send_your_turn(user_id: int, game_id: int) -> None:
    """Tell a player's open pages (the /ws/notify/ socket) that a correspondence game waits for their move.

    Sent after the move committed; carries the deadline and the new count of
    games waiting for the player, for the header's "Your move" badge.
    """
    game = Game.objects.filter(pk=game_id).select_related("user0", "user1").first()
    if game is None or game.status != Game.Status.ACTIVE:
        return
    side = game.to_move
    if game.user_id_of(side) != user_id:
        return  # the turn moved on again before this was sent
    deadline = game.deadline()
    opponent_user = game.user_of(1 - side)
    your_turn: YourTurn = {
        "type": "your_turn",
        "game_id": game.pk,
        "game": game.game,
        "url": game.get_absolute_url(),
        "opponent": game.side_name(1 - side),
        # The notice marks a BOT opponent's name, as everywhere (issue #41).
        "bot": bool(opponent_user and opponent_user.is_bot),
        "deadline": int(deadline.timestamp() * 1000) if deadline else None,
        "your_move": your_move_count(game.user_of(side)),
    }
    send_to_group(user_group(user_id), notify(your_turn))


def announce(game: Game, event: EventName) -> None:
    """Once the transaction commits, the game's sockets (players and spectators) hear ``event`` with its snapshot.

    The snapshot is read now, inside the transaction, from the row as stored.
    robust: the change is committed whatever the channel layer says; a board
    that missed the event catches up by its ping (docs/protocol.md).
    """
    payload = snapshot(game)
    game_id = game.pk
    transaction.on_commit(lambda: send_game_event(game_id, event, payload), robust=True)


def announce_lobby(game_id: int) -> None:
    """Once the transaction commits, the lobby pages refresh and an invited player hears of the invitation."""
    transaction.on_commit(lambda: send_lobby_event(game_id), robust=True)
