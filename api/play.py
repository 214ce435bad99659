"""The Play API (lichess's shape): challenges, the event stream, game streams and commands (docs/api.md).

Every command goes through ``games.services`` as the game socket's does (the
command envelope: the row lock, the clock checked first, the same refusals), so a
program's move is a move like any other. A refusal is a 4xx JSON answer with the
services' ``code`` and sentence, and changes nothing.

Two families of game endpoints, as lichess's: ``/api/board/...`` for a person's own
games played from a program (token scope ``board:play``, not a BOT account) and
``/api/bot/...`` for BOT accounts (scope ``bot:play``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from django.http import HttpRequest, StreamingHttpResponse
from ninja import Form, Router, Schema
from pydantic import Field

from accounts.identity import Identity
from api import streams
from api.auth import ApiError, Caller, TokenAuth
from api.models import Scope
from api.schemas import ErrorOut
from chat import services as chat
from games import services
from games.engines import ENGINES
from games.models import Game
from games.services import Code, GameError

GameSlug = StrEnum("GameSlug", {slug: slug for slug in ENGINES})  # type: ignore[misc]


class Account(StrEnum):
    BOT = "bot"
    BOARD = "board"


class PlayAuth(TokenAuth):
    """A token with one of ``scopes``, whose player is (``Account.BOT``) or is not (``Account.BOARD``) a BOT."""

    def __init__(self, *scopes: str, account: Account | None = None) -> None:
        super().__init__(*scopes)
        self.account = account

    def check(self, caller: Caller) -> Caller:
        user = caller.user
        assert user is not None
        if self.account is Account.BOT and not user.is_bot:
            raise ApiError(
                403,
                "The bot endpoints are for BOT accounts: upgrade the account first "
                "(POST /api/bot/account/upgrade), or use the board endpoints.",
            )
        if self.account is Account.BOARD and user.is_bot:
            raise ApiError(403, "A BOT account plays through the bot endpoints (/api/bot/...).")
        return caller


class PlayErrorOut(ErrorOut):
    code: str | None = None  # why a command was refused (the game socket's codes, docs/protocol.md)


class OkOut(Schema):
    ok: bool


def _errors(*codes: int) -> dict[int, Any]:
    return {code: PlayErrorOut for code in codes}


COMMON = _errors(400, 401, 403, 404, 429)
STATUS_OF = {
    Code.NOT_FOUND: 404,
    Code.SPECTATOR: 404,  # not one of the caller's games: as if there were none
    Code.RATE_LIMITED: 429,
}


def _identity(request: HttpRequest) -> Identity:
    caller: Caller = request.auth  # type: ignore[attr-defined]
    return Identity(user=caller.user, guest=None)


def _refused(error: GameError) -> ApiError:
    status = STATUS_OF.get(error.code, 400)
    headers = {"Retry-After": "60"} if status == 429 else None
    return ApiError(status, str(error.message), headers=headers, code=str(error.code))


def _game_id(game_id: int) -> int:
    return game_id if 0 < game_id < 2**63 else 0


# --- challenges and the event stream --------------------------------------------------------------

challenge_auth = PlayAuth(Scope.CHALLENGE, Scope.BOARD_PLAY, Scope.BOT_PLAY)
router = Router(tags=["play"])


class ChallengeOut(Schema):
    id: int
    url: str
    status: str
    game: str
    rated: bool
    timeControl: dict[str, Any]
    challenger: dict[str, Any] | None
    destUser: dict[str, Any] | None
    challengerSide: int
    colour: str
    direction: Literal["in", "out"]


class ChallengeForm(Schema):
    game: GameSlug
    rated: bool = False
    clock_limit: int = Field(0, ge=0, le=3600, alias="clock.limit", description="seconds each, whole minutes")
    clock_increment: int = Field(0, ge=0, le=60, alias="clock.increment", description="seconds added a move")
    days: int = Field(0, ge=0, le=14, description="days per move: a correspondence game (no clock)")
    colour: Literal["random", "first", "second"] = Field(
        "random", description="the challenger's side: first moves first"
    )


@router.post(
    "/challenge/{username}",
    auth=challenge_auth,
    response={200: ChallengeOut, **COMMON},
    summary="Challenge a player (or a bot)",
)
def create_challenge(request: HttpRequest, username: str, form: Form[ChallengeForm]) -> dict[str, Any]:
    """A direct challenge: the player's event stream (and their pages) hear of it; it waits for an answer."""
    from accounts.services.profiles import find_player
    from api import playstate

    identity = _identity(request)
    assert identity.user is not None
    invited = find_player(username) if 0 < len(username) <= 150 and "\x00" not in username else None
    if invited is None:
        raise ApiError(404, f"There is no player called {username[:40]!r}.")
    if not form.days and not form.clock_limit:
        raise ApiError(400, "Give clock.limit (seconds) and clock.increment, or days (per move).")
    if form.clock_limit % 60:
        raise ApiError(400, "clock.limit: whole minutes (a multiple of 60 seconds).", code=Code.BAD_TIME)
    side = {"first": 0, "second": 1}.get(form.colour)
    try:
        game = services.create_human_game(
            identity=identity,
            game=str(form.game),
            kind=Game.Kind.DIRECT,
            side=side,
            minutes=form.clock_limit // 60,
            increment=form.clock_increment,
            invited_user=invited,
            casual=not form.rated,
            days_per_move=form.days,
        )
    except GameError as error:  # the invitations' limit among them: 429 (GAMES_INVITATIONS_PER_MINUTE)
        raise _refused(error) from None
    game = Game.objects.select_related("created_by", "invited_user").get(pk=game.pk)
    return playstate.challenge_json(game, identity.user.pk)


@router.post(
    "/challenge/{challenge_id}/accept",
    auth=challenge_auth,
    response={200: OkOut, **COMMON},
    summary="Accept a challenge",
)
def accept_challenge(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    """The game starts: both event streams get ``gameStart``."""
    identity = _identity(request)
    game = Game.objects.filter(pk=_game_id(challenge_id), kind=Game.Kind.DIRECT).first()
    if game is None or identity.user is None or game.invited_user_id != identity.user.pk:
        raise ApiError(404, "There is no challenge to you with this id.", code=Code.NOT_INVITED)
    try:
        services.join_game(game_id=game.pk, identity=identity)
    except GameError as error:
        raise _refused(error) from None
    return {"ok": True}


@router.post(
    "/challenge/{challenge_id}/decline",
    auth=challenge_auth,
    response={200: OkOut, **COMMON},
    summary="Decline a challenge",
)
def decline_challenge(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    """The challenger's event stream gets ``challengeDeclined``."""
    try:
        services.decline_invitation(game_id=_game_id(challenge_id), identity=_identity(request))
    except GameError as error:
        raise _refused(error) from None
    return {"ok": True}


@router.post(
    "/challenge/{challenge_id}/cancel",
    auth=challenge_auth,
    response={200: OkOut, **COMMON},
    summary="Cancel one's own challenge",
)
def cancel_challenge(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    """The challenged player's event stream gets ``challengeCanceled``."""
    identity = _identity(request)
    game = Game.objects.filter(pk=_game_id(challenge_id), kind=Game.Kind.DIRECT).first()
    if game is None or identity.user is None or game.created_by_id != identity.user.pk:
        raise ApiError(404, "There is no challenge of yours with this id.", code=Code.NOT_OPEN)
    try:
        services.cancel_waiting_game(game_id=game.pk, identity=identity)
    except GameError as error:
        raise _refused(error) from None
    return {"ok": True}


NDJSON_ANSWER = {
    "description": "NDJSON: one JSON object a line; an empty line every few seconds (heartbeat).",
    "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
}


@router.get(
    "/stream/event",
    auth=challenge_auth,
    response={200: None, **COMMON},
    summary="Stream the player's events (NDJSON)",
    openapi_extra={"responses": {200: NDJSON_ANSWER}},
)
async def stream_events(request: HttpRequest) -> StreamingHttpResponse:
    """``challenge``, ``challengeCanceled``, ``challengeDeclined``, ``gameStart``, ``gameFinish``.

    Opens with the open challenges and the games in play, so a program that
    reconnects learns everything it missed.
    """
    caller: Caller = request.auth  # type: ignore[attr-defined]
    assert caller.token is not None and caller.user is not None
    return streams.response(streams.EventStream(caller.token.pk, caller.user.pk))


# --- bot accounts ---------------------------------------------------------------------------------


@router.post(
    "/bot/account/upgrade",
    auth=TokenAuth(Scope.BOT_PLAY),
    response={200: OkOut, **COMMON},
    summary="Make this account a BOT (irreversible)",
)
def upgrade_to_bot(request: HttpRequest) -> dict[str, Any]:
    """Only an account that has never played (no game at all, against anyone) can become a BOT; it stays one."""
    from api.bots import BotError, upgrade

    caller: Caller = request.auth  # type: ignore[attr-defined]
    assert caller.user is not None
    try:
        upgrade(caller.user)
    except BotError as error:
        raise ApiError(400, str(error), code="bot_refused") from None
    return {"ok": True}


class AcceptsIn(Schema):
    games: list[str] = Field(default_factory=list, max_length=20, description="game slugs; empty: every game")
    clocks: list[str] = Field(
        default_factory=list,
        max_length=40,
        description='"minutes+increment", as "5+3"; empty: the quick presets',
    )
    days: list[int] = Field(
        default_factory=list, max_length=10, description="days per move it plays (1, 2, 3, 5, 7, 14)"
    )


class AcceptsOut(Schema):
    games: list[str]
    clocks: list[str]
    days: list[int]


@router.post(
    "/bot/account/accepts",
    auth=PlayAuth(Scope.BOT_PLAY, account=Account.BOT),
    response={200: AcceptsOut, **COMMON},
    summary="Say what this BOT accepts (shown on the Bots page)",
)
def set_bot_accepts(request: HttpRequest, body: AcceptsIn) -> dict[str, Any]:
    """The games and time controls the Bots page offers to people who challenge this BOT (replaces the last)."""
    from api.bots import BotError, set_accepts

    caller: Caller = request.auth  # type: ignore[attr-defined]
    assert caller.user is not None
    try:
        return set_accepts(caller.user, games=body.games, clocks=body.clocks, days=body.days)
    except BotError as error:
        raise ApiError(400, str(error), code="bad_accepts") from None


# --- games: the same endpoints under /bot and /board -----------------------------------------------


def _player_game(game_id: int, identity: Identity) -> Game:
    """The caller's started game, else 404 (a game of others' is nobody's business here)."""
    game = Game.objects.filter(pk=_game_id(game_id)).exclude(status=Game.Status.WAITING).first()
    if game is None or identity.user is None or game.side_of(identity) is None:
        raise ApiError(404, "There is no game of yours with this id.", code=Code.NOT_FOUND)
    return game


class ChatForm(Schema):
    room: Literal["player", "spectator"] = "player"
    text: str = Field(..., max_length=1000)


def game_router(account: Account) -> Router:
    auth = PlayAuth(Scope.BOT_PLAY if account is Account.BOT else Scope.BOARD_PLAY, account=account)
    games = Router(auth=auth, tags=[f"{account.value}"])
    prefix = f"/{account.value}/game"
    name = "a bot" if account is Account.BOT else "a person's program"

    @games.get(
        f"{prefix}/stream/{{game_id}}",
        response={200: None, **COMMON},
        summary=f"Stream one game ({name}; NDJSON)",
        operation_id=f"{account.value}_stream_game",
        openapi_extra={"responses": {200: NDJSON_ANSWER}},
    )
    async def stream_game(request: HttpRequest, game_id: int) -> StreamingHttpResponse:
        """``gameFull`` first (every move so far), then ``gameState`` at each change, and ``chatLine``.

        Ends after the state that says the game is over. Reconnecting opens with
        ``gameFull`` again: no move is lost.
        """
        identity = _identity(request)
        await streams.in_thread(_player_game)(game_id, identity)
        caller: Caller = request.auth  # type: ignore[attr-defined]
        assert caller.token is not None and caller.user is not None
        return streams.response(streams.GameStream(caller.token.pk, caller.user.pk, _game_id(game_id)))

    def command(path: str, summary: str, op: str) -> Any:
        return games.post(
            f"{prefix}/{{game_id}}/{path}",
            response={200: OkOut, **COMMON},
            summary=summary,
            operation_id=f"{account.value}_{op}",
        )

    def run(request: HttpRequest, game_id: int, act: Any, **kwargs: Any) -> dict[str, Any]:
        identity = _identity(request)
        game = _player_game(game_id, identity)
        try:
            act(game_id=game.pk, identity=identity, **kwargs)
        except GameError as error:
            raise _refused(error) from None
        return {"ok": True}

    @command("move/{move}", "Make a move", "move")
    def move(request: HttpRequest, game_id: int, move: str, ply: int | None = None) -> dict[str, Any]:
        """A move in SPEC.md's notation (as ``legalMoves`` lists them). ``ply``: the ply it is meant for
        (the number of moves played before it); by default the current one. A move meant for a ply that
        has passed is refused (``stale``), never played at another."""
        if not 0 < len(move) <= 8:
            raise ApiError(400, "A move is 1 to 8 characters.", code=Code.MALFORMED)
        identity = _identity(request)
        game = _player_game(game_id, identity)
        at = game.ply if ply is None else ply
        try:
            services.play_move(game_id=game.pk, identity=identity, token=move, ply=at)
        except GameError as error:
            raise _refused(error) from None
        return {"ok": True}

    @command("resign", "Resign", "resign")
    def resign(request: HttpRequest, game_id: int) -> dict[str, Any]:
        return run(request, game_id, services.resign)

    @command("abort", "Abort (before each side has moved)", "abort")
    def abort(request: HttpRequest, game_id: int) -> dict[str, Any]:
        return run(request, game_id, services.abort)

    @command("draw/{answer}", "Offer, accept or decline a draw", "draw")
    def draw(request: HttpRequest, game_id: int, answer: Literal["yes", "no"]) -> dict[str, Any]:
        """``yes``: accept the opponent's offer, or offer one; ``no``: decline the opponent's offer."""
        identity = _identity(request)
        game = _player_game(game_id, identity)
        side = game.side_of(identity)
        offered = game.draw_offer_side is not None and game.draw_offer_side != side
        if answer == "yes" and not offered:
            return run(request, game_id, services.offer_draw)
        return run(request, game_id, services.answer_draw, accept=answer == "yes")

    @command("takeback/{answer}", "Ask for, accept or decline a takeback", "takeback")
    def takeback(request: HttpRequest, game_id: int, answer: Literal["yes", "no"]) -> dict[str, Any]:
        """``yes``: accept the opponent's request, or ask to take one's last move back; ``no``: decline."""
        identity = _identity(request)
        game = _player_game(game_id, identity)
        side = game.side_of(identity)
        asked = game.takeback_side is not None and game.takeback_side != side
        if answer == "yes" and not asked:
            return run(request, game_id, services.request_takeback)
        return run(request, game_id, services.answer_takeback, accept=answer == "yes")

    @command("chat", "Write in the game's chat", "chat")
    def write_chat(request: HttpRequest, game_id: int, form: Form[ChatForm]) -> dict[str, Any]:
        """A player writes in the players' room (``room=player``; ``spectator`` is for watchers, as on the page)."""
        identity = _identity(request)
        _player_game(game_id, identity)
        if form.room != "player":
            raise ApiError(400, "A player writes in the players' room (room=player).", code="chat_invalid")
        result = chat.post_line(game_id=_game_id(game_id), identity=identity, text=form.text)
        if not result.ok:
            status = 429 if result.verdict is chat.Verdict.RATE_LIMITED else 400
            raise ApiError(status, str(result.verdict.text), code=result.verdict.value)
        return {"ok": True}

    return games


bot_router = game_router(Account.BOT)
board_router = game_router(Account.BOARD)
