"""What the Play API says about challenges and games: the JSON of its streams and answers (docs/api.md).

lichess's shapes where they fit, with this site's sides: side 0 moves first, and
``wtime``/``btime`` (``winc``/``binc``, ``wdraw``/``bdraw``...) are side 0's and side 1's
whatever the game calls its colours. Everything is read from the database, so a
stream that reconnects says the same as one that never dropped.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from accounts.models import User
from games.kinds import side_colour
from games.models import Game, clock_speed, time_control_label
from ratings.elo import shown
from ratings.models import Rating

SIDE_NAMES = ("first", "second")


def player_json(user: User | None, game: Game) -> dict[str, Any] | None:
    """A registered player as the Play API shows them: name, "BOT" title, rating in this game's pool."""
    if user is None:
        return None
    row = Rating.objects.filter(user=user, game=game.game, correspondence=bool(game.days_per_move)).first()
    return {
        "name": user.username,
        "title": "BOT" if user.is_bot else None,
        "rating": shown(row.value) if row is not None else None,
        "provisional": row is None or row.rated_games < 10,
    }


def time_control_json(game: Game) -> dict[str, Any]:
    if game.days_per_move:
        kind = "correspondence"
    elif game.time_control:
        kind = "clock"
    else:
        kind = "unlimited"
    return {
        "type": kind,
        "limit": game.time_control if kind == "clock" else 0,  # seconds each
        "increment": game.increment,  # seconds a move
        "daysPerMove": game.days_per_move,
        "label": time_control_label(game.time_control, game.increment, game.days_per_move),
        "speed": clock_speed(game.time_control, game.increment, game.days_per_move),
    }


def challenge_json(game: Game, user_id: int) -> dict[str, Any]:
    """A waiting direct challenge, as its challenger or the challenged one (``user_id``) sees it."""
    challenger_side = 0 if game.side_is_taken(0) else 1
    return {
        "id": game.pk,
        "url": game.get_absolute_url(),
        "status": "created",
        "game": game.game,
        "rated": not game.casual,
        "timeControl": time_control_json(game),
        "challenger": player_json(game.created_by, game),
        "destUser": player_json(game.invited_user, game),
        # The challenger's seat: side 0 moves first; "colour" is the game's own word for it.
        "challengerSide": challenger_side,
        "colour": side_colour(game.game, challenger_side),
        "direction": "out" if game.created_by_id == user_id else "in",
    }


def open_challenges(user_id: int) -> dict[int, dict[str, Any]]:
    games = Game.objects.filter(status=Game.Status.WAITING, kind=Game.Kind.DIRECT).filter(
        Q(invited_user_id=user_id) | Q(created_by_id=user_id)
    )
    return {
        game.pk: challenge_json(game, user_id)
        for game in games.select_related("created_by", "invited_user").order_by("pk")
    }


def game_summary(game: Game, user_id: int) -> dict[str, Any]:
    """A game of the player's (gameStart, gameFinish): which, their side, the opponent, whose turn."""
    side = 0 if game.user_id_of(0) == user_id else 1
    over = game.is_over
    return {
        "id": game.pk,
        "url": game.get_absolute_url(),
        "game": game.game,
        "rated": not game.casual,
        "timeControl": time_control_json(game),
        "side": side,
        "colour": side_colour(game.game, side),
        "opponent": player_json(game.user_of(1 - side), game) or {"name": game.side_name(1 - side)},
        "isMyTurn": not over and game.status == Game.Status.ACTIVE and game.to_move == side,
        "status": status_name(game),
        "winner": game.winner if over else None,
    }


def active_games(user_id: int) -> dict[int, dict[str, Any]]:
    games = Game.objects.filter(status=Game.Status.ACTIVE).filter(Q(user0_id=user_id) | Q(user1_id=user_id))
    return {
        game.pk: game_summary(game, user_id) for game in games.select_related("user0", "user1").order_by("pk")
    }


def fates(game_ids: list[int], user_id: int) -> dict[int, dict[str, Any]]:
    """Where challenges and games that left the lists went: started, declined, called off, finished."""
    games = Game.objects.filter(pk__in=game_ids).select_related(
        "user0", "user1", "created_by", "invited_user"
    )
    return {game.pk: {"game": game, "summary": game_summary(game, user_id)} for game in games}


def status_name(game: Game) -> str:
    """lichess's "started" while the game runs; once over, why it ended (the site's end reasons)."""
    if game.status == Game.Status.WAITING:
        return "created"
    if game.status == Game.Status.ACTIVE:
        return "started"
    return game.end_reason or game.status


def game_state(game: Game) -> dict[str, Any]:
    """``gameState``: the moves so far, the clocks now, the status, the offers, whose turn and the legal moves."""
    engine = game.engine
    state = game.engine_state()
    over = game.is_over
    view = engine.view(state)
    return {
        "type": "gameState",
        "moves": " ".join(game.tokens),
        "ply": game.ply,
        "v": game.version,
        "wtime": max(0, game.remaining_ms(0)),
        "btime": max(0, game.remaining_ms(1)),
        "winc": game.increment * 1000,
        "binc": game.increment * 1000,
        "status": status_name(game),
        "winner": game.winner if over else None,
        "toMove": None if over else engine.to_move(state),
        "legalMoves": [] if over else list(view.get("legal_moves", [])),
        "wdraw": game.draw_offer_side == 0,
        "bdraw": game.draw_offer_side == 1,
        "wtakeback": game.takeback_side == 0,
        "btakeback": game.takeback_side == 1,
    }


def game_full(game: Game, side: int) -> dict[str, Any]:
    """``gameFull``: the game's fixed facts, the caller's side, and its state now."""
    return {
        "type": "gameFull",
        "id": game.pk,
        "url": game.get_absolute_url(),
        "game": game.game,
        "rated": not game.casual,
        "timeControl": time_control_json(game),
        "clock": (
            {"initial": game.time_control * 1000, "increment": game.increment * 1000}
            if game.time_control and not game.days_per_move
            else None
        ),
        "initialFen": game.start_fen or engine_start_fen(game),
        "players": [
            player_json(game.user_of(side_), game) or {"name": game.side_name(side_), "title": None}
            for side_ in (0, 1)
        ],
        "colours": [side_colour(game.game, 0), side_colour(game.game, 1)],
        "you": side,
        "createdAt": int(game.created_at.timestamp() * 1000),
        "state": game_state(game),
    }


def engine_start_fen(game: Game) -> str:
    return game.engine.fen(game.start_state())


def chat_line(event: dict[str, Any]) -> dict[str, Any]:
    """A chat line of the game's group (chat.services.line_event) as lichess's ``chatLine``."""
    return {
        "type": "chatLine",
        "room": "player" if event["room"] == "players" else "spectator",
        "username": event["name"],
        "text": event["text"] or event["preset"],
        "preset": event["preset"] or None,
    }
