"""Everything that changes a game, in one place.

Every entry point (the websocket consumer, the HTTP views, the Celery tasks)
calls these functions. Each one:

1. opens a transaction and re-reads the game with ``select_for_update()`` so
   commands on one game are applied one at a time, across processes;
2. checks the command against the stored game and the shared engine;
3. writes the change and bumps ``Game.version``;
4. broadcasts the new snapshot only after the transaction commits, so nobody
   ever sees a move the database does not have.

Refusals raise ``GameError`` with a code and a message for the player; nothing
is written then.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.identity import Identity
from games import events, rows
from games.engines import get
from games.engines.base import InvalidPosition
from games.models import DEFAULT_TIME_MINUTES, TIME_CONTROL_CHOICES, Game, Move
from games.signals import game_finished

logger = logging.getLogger(__name__)

DRAW_OFFER_SECONDS = 120
# A move only queues its clock's flag task when that clock has less than this
# left; longer clocks get theirs from the periodic sweep (schedule_flags), so
# most moves publish nothing to the broker.
FLAG_HORIZON = timedelta(seconds=75)
FLAG_SWEEP_SECONDS = 30
DRAW_COOLDOWN_PLIES = 10
ABORT_MAX_PLY = 2  # either player may abort while fewer plies than this were played


class GameError(Exception):
    """A refused command: ``code`` for programs, ``message`` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class MoveResult:
    ply: int  # the ply the move was stored at
    version: int
    duplicate: bool = False  # a resent move that was already applied
    flagged: bool = False  # the mover's time had run out: the game ended instead


# --- helpers -------------------------------------------------------------------


def _now() -> datetime:
    return timezone.now()


def _locked(game_id: int) -> Game:
    try:
        return rows.lock_game(game_id)
    except Game.DoesNotExist:
        raise GameError("not_found", _("This game does not exist.")) from None


def _side_of(game: Game, identity: Identity) -> int:
    side = game.side_of(identity)
    if side is None:
        raise GameError("spectator", _("You are watching this game, not playing it."))
    return side


def _require_active(game: Game) -> None:
    if game.status == Game.Status.WAITING:
        raise GameError("not_started", _("The game has not started yet."))
    if game.is_over:
        raise GameError("game_over", _("The game is over."))


def _validate_time_control(minutes: int, *, computer: bool) -> int:
    if minutes == 0 and computer:
        return 0
    if minutes not in TIME_CONTROL_CHOICES:
        raise GameError("bad_time", _("Choose one of the offered time controls."))
    return minutes * 60


def _seat(game: Game, side: int, identity: Identity | None = None, *, ai: str = "") -> None:
    if ai:
        setattr(game, f"ai{side}", ai)
    elif identity is not None and identity.user is not None:
        setattr(game, f"user{side}", identity.user)
    elif identity is not None and identity.guest is not None:
        setattr(game, f"guest{side}_key", identity.guest.key)
        setattr(game, f"guest{side}_name", identity.guest.name)
    else:
        raise GameError("no_identity", _("Open the site in a browser with cookies enabled to play."))


def _start(game: Game) -> None:
    now = _now()
    game.status = Game.Status.ACTIVE
    game.started_at = now
    game.turn_started_at = now
    game.clock0_ms = game.clock1_ms = game.time_control * 1000
    game.ready0 = game.ready1 = True
    if not game.state:
        game.state = game.engine.dumps(game.engine.initial())


def _refresh_flag_at(game: Game) -> None:
    if game.status != Game.Status.ACTIVE or not game.time_control or game.turn_started_at is None:
        game.flag_at = None
        return
    mover = game.engine.to_move(game.engine_state())
    game.flag_at = game.turn_started_at + timedelta(milliseconds=game.clock_ms(mover))


def _save_and_announce(game: Game, event: str) -> None:
    """Persist the game with a new version and broadcast it after commit."""
    _refresh_flag_at(game)
    game.version += 1
    rows.save_game(game)
    payload = events.snapshot(game)
    # Why on_commit: a broadcast must never announce a state that could still roll back.
    transaction.on_commit(lambda: events.send_game_event(game.pk, event, payload))


def _schedule_after_commit(game: Game) -> None:
    """Queue the work a game's new state calls for: the computer's move, a clock flag."""
    from games import tasks

    if game.status != Game.Status.ACTIVE:
        return
    to_move = game.engine.to_move(game.engine_state())
    if game.ai_of(to_move):
        game_id, ply = game.pk, game.ply
        transaction.on_commit(lambda: tasks.computer_move.delay(game_id, ply))
    if game.time_control and game.clock_ms(to_move) <= FLAG_HORIZON.total_seconds() * 1000:
        game_id, ply, left = game.pk, game.ply, game.clock_ms(to_move)
        countdown = max(0.0, left / 1000) + 0.05
        transaction.on_commit(lambda: tasks.flag.apply_async((game_id, ply), countdown=countdown))


def schedule_flags(*, now: datetime | None = None) -> int:
    """Queue a flag task for every clock that falls within the horizon (the periodic sweep).

    Clocks already at zero are flagged at once. Returns how many tasks were queued.
    """
    from games import tasks

    now = now or _now()
    due = Game.objects.filter(status=Game.Status.ACTIVE, flag_at__lte=now + FLAG_HORIZON)
    queued = 0
    for game_id, ply, flag_at in due.values_list("pk", "ply", "flag_at"):
        countdown = max(0.0, (flag_at - now).total_seconds()) + 0.05
        tasks.flag.apply_async((game_id, ply), countdown=countdown)
        queued += 1
    return queued


def remaining_ms(game: Game, side: int, *, now: datetime | None = None) -> int:
    """Milliseconds left on ``side``'s clock right now (only the mover's clock runs)."""
    left = game.clock_ms(side)
    if game.status != Game.Status.ACTIVE or not game.time_control or game.turn_started_at is None:
        return left
    if side != game.engine.to_move(game.engine_state()):
        return left
    elapsed = ((now or _now()) - game.turn_started_at).total_seconds() * 1000
    return int(left - elapsed)


def _finish(game: Game, *, winner: int | None, reason: str, status: str = Game.Status.FINISHED) -> None:
    state = game.engine_state()
    score = game.engine.score(state)
    game.status = status
    game.winner = winner
    game.end_reason = reason
    game.score0, game.score1 = score
    game.finished_at = _now()
    game.draw_offer_side = None
    game.draw_offer_at = None
    game.redo_moves = []
    _save_and_announce(game, "end")
    game_id = game.pk
    # Why on_commit: ratings must only ever see a committed result.
    transaction.on_commit(lambda: game_finished.send(sender=Game, game_id=game_id))


def _flag_if_expired(game: Game, *, now: datetime) -> bool:
    """End the game on time if the mover's clock has run out; True if it did."""
    if game.status != Game.Status.ACTIVE or not game.time_control:
        return False
    mover = game.engine.to_move(game.engine_state())
    if remaining_ms(game, mover, now=now) > 0:
        return False
    setattr(game, f"clock{mover}_ms", 0)
    _finish(game, winner=1 - mover, reason="timeout")
    return True


# --- creating and joining -----------------------------------------------------------------


def create_computer_game(
    *, identity: Identity, game: str, level: str, side: int | None = None, minutes: int = 0, start_fen: str = ""
) -> Game:
    """A game against the computer; it starts at once (from ``start_fen`` when given)."""
    engine = get(game)  # KeyError for an unknown game is a programming error; views validate first
    if level not in ("easy", "medium", "hard"):
        raise GameError("bad_level", _("Choose Easy, Medium or Hard."))
    start = None
    if start_fen:
        try:
            start = engine.from_fen(start_fen)
        except InvalidPosition as exc:
            raise GameError("bad_position", _("That position is not valid: %(reason)s") % {"reason": exc}) from None
        if engine.outcome(start) is not None:
            raise GameError("position_over", _("The game is already over in that position."))
    side = random.randrange(2) if side is None else side
    with transaction.atomic():
        new = Game(game=game, kind=Game.Kind.COMPUTER, time_control=_validate_time_control(minutes, computer=True))
        if start is not None:
            new.start_fen = engine.fen(start)
            new.state = engine.dumps(start)
        _seat(new, side, identity)
        _seat(new, 1 - side, ai=level)
        new.created_by = identity.user
        _start(new)
        _refresh_flag_at(new)
        new.save()
        _schedule_after_commit(new)
    return new


def create_human_game(
    *,
    identity: Identity,
    game: str,
    kind: str,
    side: int | None = None,
    minutes: int = DEFAULT_TIME_MINUTES,
    invited_user=None,
) -> Game:
    """An invite link, an open challenge in the lobby, or a direct invitation."""
    from accounts.services.blocks import may_invite

    get(game)
    if kind not in (Game.Kind.INVITE_LINK, Game.Kind.LOBBY, Game.Kind.DIRECT):
        raise GameError("bad_kind", _("Unknown kind of game."))
    if kind == Game.Kind.LOBBY and identity.user is None:
        raise GameError("login_required", _("Log in to post an open challenge."))
    if kind == Game.Kind.DIRECT:
        if identity.user is None:
            raise GameError("login_required", _("Log in to invite a player."))
        if invited_user is None or invited_user.pk == identity.user.pk:
            raise GameError("bad_invitee", _("Choose another registered player to invite."))
        if not may_invite(sender=identity.user, recipient=invited_user):
            # Neutral on purpose: do not reveal whether it was a block or a setting.
            raise GameError("invitation_refused", _("This player is not accepting your invitations."))
    side = random.randrange(2) if side is None else side
    with transaction.atomic():
        new = Game(
            game=game,
            kind=kind,
            time_control=_validate_time_control(minutes, computer=False),
            invited_user=invited_user if kind == Game.Kind.DIRECT else None,
            created_by=identity.user,
        )
        _seat(new, side, identity)
        setattr(new, f"ready{side}", True)
        new.state = new.engine.dumps(new.engine.initial())
        new.save()
        new_id = new.pk
        transaction.on_commit(lambda: events.send_lobby_event(new_id))
    return new


def join_game(*, game_id: int, identity: Identity, token: str | None = None) -> Game:
    """Take the free seat of a waiting game (invite link, lobby or direct invitation).

    An invite-link game can only be joined with its secret ``token`` (game ids
    are guessable, the token is not).
    """
    from accounts.services.blocks import either_blocked

    with transaction.atomic():
        game = _locked(game_id)
        if game.side_of(identity) is not None:
            return game  # already seated: opening the link again just shows the game
        if game.status != Game.Status.WAITING:
            raise GameError("not_open", _("This game is no longer open to join."))
        free = 0 if not game.side_is_taken(0) else 1
        creator = game.user_of(1 - free)
        if game.kind == Game.Kind.DIRECT and (identity.user is None or identity.user.pk != game.invited_user_id):
            raise GameError("not_invited", _("This invitation is for another player."))
        if game.kind == Game.Kind.LOBBY:
            if identity.user is None:
                raise GameError("login_required", _("Log in to take an open challenge."))
            if creator is not None and either_blocked(creator, identity.user):
                raise GameError("not_open", _("This game is no longer open to join."))
        if game.kind == Game.Kind.INVITE_LINK and token != game.invite_token:
            raise GameError("not_invited", _("Open the invite link you were sent to join this game."))
        if (
            game.kind == Game.Kind.INVITE_LINK
            and identity.user is not None
            and creator is not None
            and either_blocked(creator, identity.user)
        ):
            raise GameError("not_open", _("This game is no longer open to join."))
        _seat(game, free, identity)
        _start(game)
        _save_and_announce(game, "start")
        _schedule_after_commit(game)
        transaction.on_commit(lambda: events.send_lobby_event(game_id))
    return game


def decline_invitation(*, game_id: int, identity: Identity) -> Game:
    with transaction.atomic():
        game = _locked(game_id)
        if game.status != Game.Status.WAITING or identity.user is None or game.invited_user_id != identity.user.pk:
            raise GameError("not_invited", _("There is no invitation to decline."))
        game.status = Game.Status.ABORTED
        game.end_reason = "declined"
        game.finished_at = _now()
        _save_and_announce(game, "end")
    return game


def cancel_waiting_game(*, game_id: int, identity: Identity) -> Game:
    """The creator withdraws an invitation or open challenge nobody took."""
    with transaction.atomic():
        game = _locked(game_id)
        if game.status != Game.Status.WAITING or game.side_of(identity) is None:
            raise GameError("not_open", _("This game is no longer open."))
        game.status = Game.Status.ABORTED
        game.end_reason = "cancelled"
        game.finished_at = _now()
        _save_and_announce(game, "end")
        transaction.on_commit(lambda: events.send_lobby_event(game_id))
    return game


# --- moves ------------------------------------------------------------------------


def _apply(game: Game, side: int, token: str, *, client_id: str, now: datetime) -> None:
    """Store one legal move and its clock; the caller has checked turn and legality."""
    engine = game.engine
    state = engine.play(game.engine_state(), token)
    used = 0
    if game.turn_started_at is not None:
        used = max(0, int((now - game.turn_started_at).total_seconds() * 1000))
    left = game.clock_ms(side)
    if game.time_control:
        left -= used
        setattr(game, f"clock{side}_ms", left)
    rows.insert_move(Move(
        game=game, ply=game.ply, token=token, side=side, client_id=client_id[:40],
        time_used_ms=used, clock_left_ms=left, created_at=now,
    ))
    game.tokens = [*game.tokens, token]
    game.ply += 1
    game.state = engine.dumps(state)
    game.turn_started_at = now


def _after_move(game: Game, *, now: datetime) -> None:
    """Play forced passes, end a finished game, or hand the turn on."""
    engine = game.engine
    state = game.engine_state()
    while (outcome := engine.outcome(state)) is None:
        moves = engine.legal_moves(state)
        if moves != [engine.pass_move]:
            break
        # A forced pass is played by the server at once: nobody has to click "pass".
        _apply(game, engine.to_move(state), moves[0], client_id="server", now=now)
        state = game.engine_state()
    if outcome is not None:
        _finish(game, winner=outcome.winner, reason=outcome.reason)
    else:
        _save_and_announce(game, "move")
        _schedule_after_commit(game)


def play_move(
    *, game_id: int, identity: Identity | None, token: str, ply: int, client_id: str = "", side: int | None = None
) -> MoveResult:
    """Apply a player's move made at ``ply``.

    ``identity`` is the human player; the computer's task passes ``side`` instead.
    A resent move (same ply and client id, already stored) returns the original
    result and changes nothing.
    """
    if not isinstance(token, str) or not isinstance(ply, int) or isinstance(ply, bool):
        raise GameError("malformed", _("A move needs a move token and the ply number."))
    now = _now()
    with transaction.atomic():
        game = _locked(game_id)
        if side is None:
            side = _side_of(game, identity)
        if client_id and ply < game.ply:
            original = Move.objects.filter(game=game, ply=ply, side=side, client_id=client_id[:40]).first()
            if original is not None:
                return MoveResult(ply=original.ply, version=game.version, duplicate=True)
        _require_active(game)
        if _flag_if_expired(game, now=now):
            return MoveResult(ply=game.ply, version=game.version, flagged=True)
        engine = game.engine
        state = game.engine_state()
        if engine.to_move(state) != side:
            raise GameError("not_your_turn", _("It is not your turn."))
        if ply != game.ply:
            raise GameError("stale", _("The position has changed; your board has been brought up to date."))
        if token not in engine.legal_moves(state):
            raise GameError("illegal", _("That move is not legal here."))
        _apply(game, side, token, client_id=client_id, now=now)
        stored_ply = game.ply - 1
        # A move answers any pending draw offer from the other side with "no".
        if game.draw_offer_side is not None and game.draw_offer_side != side:
            game.draw_offer_side = None
            game.draw_offer_at = None
        if identity is not None:
            game.redo_moves = []
        _after_move(game, now=now)
        return MoveResult(ply=stored_ply, version=game.version)


def computer_move_for(game_id: int, ply: int) -> None:
    """Compute and play the computer's move if it is still its turn at ``ply``.

    The search runs outside any transaction (it can take a second); the move
    then goes through ``play_move`` like a human's, whose ply check makes a
    late or repeated task harmless.
    """
    from games.ai import choose_move

    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.ply != ply:
        return
    engine = game.engine
    state = game.engine_state()
    side = engine.to_move(state)
    level = game.ai_of(side)
    if not level or engine.outcome(state) is not None:
        return
    token = choose_move(engine, state, level, seed=game_id * 1000 + ply)
    try:
        play_move(game_id=game_id, identity=None, side=side, token=token, ply=ply, client_id="computer")
    except GameError as exc:
        logger.info("computer move for game %s at ply %s dropped: %s", game_id, ply, exc.code)


def flag(game_id: int) -> bool:
    """End the game on time if the mover's clock is at zero (idempotent)."""
    with transaction.atomic():
        game = _locked(game_id)
        return _flag_if_expired(game, now=_now())


COMPUTER_GRACE = timedelta(seconds=5)  # the computer normally answers well within this


def needs_attention(game: Game, *, now: datetime | None = None) -> bool:
    """Is a flag due, or has the computer been silent for too long? (read-only check)"""
    if game.status != Game.Status.ACTIVE:
        return False
    now = now or _now()
    mover = game.engine.to_move(game.engine_state())
    if game.time_control and remaining_ms(game, mover, now=now) <= 0:
        return True
    started = game.turn_started_at or now
    return bool(game.ai_of(mover)) and now - started > COMPUTER_GRACE


def ensure_progress(game_id: int) -> None:
    """Re-check a game someone just (re)connected to: a flag due, a computer move lost."""
    from games import tasks

    if flag(game_id):
        return
    game = Game.objects.get(pk=game_id)
    if game.status == Game.Status.ACTIVE and game.ai_of(game.engine.to_move(game.engine_state())):
        tasks.computer_move.delay(game.pk, game.ply)


# --- ending -----------------------------------------------------------------------


def resign(*, game_id: int, identity: Identity, reason: str = "resign") -> Game:
    """Resign or exit: a loss for the player who does it."""
    if reason not in ("resign", "exit"):
        raise GameError("malformed", _("Unknown way to leave a game."))
    with transaction.atomic():
        game = _locked(game_id)
        side = _side_of(game, identity)
        _require_active(game)
        if _flag_if_expired(game, now=_now()):
            return game
        _finish(game, winner=1 - side, reason=reason)
    return game


def abort(*, game_id: int, identity: Identity) -> Game:
    """Call a game off before it really began: no winner, never rated."""
    with transaction.atomic():
        game = _locked(game_id)
        _side_of(game, identity)
        _require_active(game)
        if game.ply >= ABORT_MAX_PLY:
            raise GameError("too_late", _("A game can only be aborted before each side has moved."))
        _finish(game, winner=None, reason="aborted", status=Game.Status.ABORTED)
    return game


# --- draw offers ------------------------------------------------------------------


def _draw_offer_live(game: Game, *, now: datetime) -> bool:
    return (
        game.draw_offer_side is not None
        and game.draw_offer_at is not None
        and now - game.draw_offer_at < timedelta(seconds=DRAW_OFFER_SECONDS)
    )


def offer_draw(*, game_id: int, identity: Identity) -> Game:
    from games import tasks

    now = _now()
    with transaction.atomic():
        game = _locked(game_id)
        side = _side_of(game, identity)
        _require_active(game)
        if game.against_computer:
            raise GameError("no_draws", _("The computer does not take draw offers."))
        if _draw_offer_live(game, now=now):
            raise GameError("offer_pending", _("A draw offer is already waiting for an answer."))
        declined_at = game.draw_declined_ply0 if side == 0 else game.draw_declined_ply1
        if declined_at is not None and game.ply - declined_at < DRAW_COOLDOWN_PLIES:
            raise GameError("too_soon", _("Your last offer was declined; wait a few moves before offering again."))
        game.draw_offer_side = side
        game.draw_offer_at = now
        game.draw_offer_ply = game.ply
        _save_and_announce(game, "draw_offer")
        offered_at = now.isoformat()
        transaction.on_commit(
            lambda: tasks.lapse_draw_offer.apply_async((game_id, offered_at), countdown=DRAW_OFFER_SECONDS)
        )
    return game


def answer_draw(*, game_id: int, identity: Identity, accept: bool) -> Game:
    now = _now()
    with transaction.atomic():
        game = _locked(game_id)
        side = _side_of(game, identity)
        _require_active(game)
        if not _draw_offer_live(game, now=now) or game.draw_offer_side == side:
            raise GameError("no_offer", _("There is no draw offer to answer."))
        if accept:
            _finish(game, winner=None, reason="draw_agreed")
            return game
        setattr(game, f"draw_declined_ply{game.draw_offer_side}", game.ply)
        game.draw_offer_side = None
        game.draw_offer_at = None
        _save_and_announce(game, "draw_declined")
    return game


def lapse_draw_offer(*, game_id: int, offered_at: str) -> bool:
    """Withdraw an unanswered offer after its time; a newer offer is left alone."""
    with transaction.atomic():
        game = _locked(game_id)
        if game.draw_offer_at is None or game.draw_offer_at.isoformat() != offered_at or game.is_over:
            return False
        if _draw_offer_live(game, now=_now()):
            return False  # delivered early (e.g. eager tasks): the offer still stands
        game.draw_offer_side = None
        game.draw_offer_at = None
        _save_and_announce(game, "draw_lapsed")
        return True


# --- against the computer: undo, redo -------------------------------------------------


def _human_side(game: Game) -> int:
    return 0 if not game.ai0 else 1


def undo(*, game_id: int, identity: Identity) -> Game:
    """Take back your last move and the computer's reply (computer games only)."""
    with transaction.atomic():
        game = _locked(game_id)
        side = _side_of(game, identity)
        _require_active(game)
        if not game.against_computer:
            raise GameError("no_undo", _("Moves can only be taken back against the computer."))
        engine = game.engine
        if engine.to_move(game.engine_state()) != side:
            raise GameError("not_your_turn", _("Wait for the computer's move."))
        moves = list(Move.objects.filter(game=game).order_by("ply"))
        # Drop moves from the end until one of ours (not a forced pass) is gone.
        cut = len(moves)
        while cut > 0:
            cut -= 1
            if moves[cut].side == side and moves[cut].client_id != "server":
                break
        else:
            raise GameError("nothing_to_undo", _("There is no move of yours to take back."))
        removed = moves[cut:]
        Move.objects.filter(game=game, ply__gte=cut).delete()
        game.redo_moves = [m.token for m in removed] + list(game.redo_moves)
        _rebuild(game, [m.token for m in moves[:cut]])
        _save_and_announce(game, "undo")
    return game


def redo(*, game_id: int, identity: Identity) -> Game:
    """Replay what undo took back, up to and including the computer's reply."""
    now = _now()
    with transaction.atomic():
        game = _locked(game_id)
        side = _side_of(game, identity)
        _require_active(game)
        if not game.redo_moves:
            raise GameError("nothing_to_redo", _("There is nothing to redo."))
        engine = game.engine
        redo_moves = list(game.redo_moves)
        # Replay our move, then everything up to our next turn.
        first = True
        while redo_moves:
            state = game.engine_state()
            mover = engine.to_move(state)
            if mover == side and not first:
                break
            token = redo_moves.pop(0)
            if token not in engine.legal_moves(state):
                redo_moves = []
                break
            client = "server" if token == engine.pass_move else ("computer" if mover != side else "redo")
            _apply(game, mover, token, client_id=client, now=now)
            first = False
        game.redo_moves = redo_moves
        outcome = engine.outcome(game.engine_state())
        if outcome is not None:
            _finish(game, winner=outcome.winner, reason=outcome.reason)
        else:
            _save_and_announce(game, "redo")
            _schedule_after_commit(game)
    return game


def _rebuild(game: Game, tokens: list[str]) -> None:
    engine = game.engine
    state = game.start_state()
    for token in tokens:
        state = engine.play(state, token)
    game.tokens = tokens
    game.ply = len(tokens)
    game.state = engine.dumps(state)
    game.turn_started_at = _now()


def rematch_computer(*, game_id: int, identity: Identity) -> Game:
    """'New game' against the computer with the same settings, sides swapped."""
    game = Game.objects.get(pk=game_id)
    side = _side_of(game, identity)
    level = game.ai_of(1 - side)
    if not level:
        raise GameError("no_rematch", _("'New game' is for games against the computer."))
    return create_computer_game(
        identity=identity, game=game.game, level=level, side=1 - side, minutes=game.time_control // 60,
        start_fen=game.start_fen,
    )

