"""Creating tournaments and taking part: join, leave, pause, resume."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.db import connection, transaction
from django.utils.translation import gettext as _

from core.ratelimit import take_slot
from games.kinds import KINDS
from games.models import MAX_BASE_MINUTES, MAX_INCREMENT_SECONDS
from tournaments import live
from tournaments.models import Participant, Tournament
from tournaments.services.base import Code, TournamentError, locked, now

DURATIONS = (10, 20, 30, 45, 60, 90, 120)  # arena minutes a player may choose
MAX_ROUNDS = 11
MAX_START_DELAY = 24 * 60  # minutes


def create(
    *,
    user,
    name: str,
    kind: str,
    game: str,
    minutes: int,
    increment: int = 0,
    starts_in: int = 5,
    duration: int = 30,
    rounds: int = 5,
    password: str = "",
    allow_bots: bool = False,
) -> Tournament:
    """A tournament a registered player creates (the staff schedule theirs in the admin)."""
    if user is None or not user.is_authenticated:
        raise TournamentError(Code.LOGIN_REQUIRED, _("Log in to create a tournament."))
    name = name.strip()
    if not name or len(name) > 80:
        raise TournamentError(Code.INVALID, _("Give the tournament a name of up to 80 characters."))
    if kind not in Tournament.Kind.values or game not in KINDS:
        raise TournamentError(Code.INVALID, _("Choose a format and a game."))
    if not (1 <= minutes <= MAX_BASE_MINUTES and 0 <= increment <= MAX_INCREMENT_SECONDS):
        raise TournamentError(
            Code.INVALID,
            _("Choose a clock of 1 to %(minutes)d minutes and an increment of 0 to %(seconds)d seconds.")
            % {"minutes": MAX_BASE_MINUTES, "seconds": MAX_INCREMENT_SECONDS},
        )
    if not 0 <= starts_in <= MAX_START_DELAY:
        raise TournamentError(Code.INVALID, _("A tournament starts within a day."))
    if kind == Tournament.Kind.ARENA and duration not in DURATIONS:
        raise TournamentError(Code.INVALID, _("Choose one of the offered durations."))
    if kind == Tournament.Kind.SWISS and not 1 <= rounds <= MAX_ROUNDS:
        raise TournamentError(
            Code.INVALID, _("A Swiss tournament has 1 to %(rounds)d rounds.") % {"rounds": MAX_ROUNDS}
        )
    return Tournament.objects.create(
        name=name,
        kind=kind,
        game=game,
        minutes=minutes,
        increment=increment,
        starts_at=now() + timedelta(minutes=starts_in),
        duration_minutes=duration if kind == Tournament.Kind.ARENA else 0,
        rounds=rounds if kind == Tournament.Kind.SWISS else 0,
        created_by=user,
        password=make_password(password) if password else "",
        allow_bots=allow_bots,
    )


def _registered(user) -> None:
    if user is None or not user.is_authenticated:
        raise TournamentError(Code.LOGIN_REQUIRED, _("Log in to take part in tournaments."))


def _guess_allowed(user, address: str) -> bool:
    """One more password guess for this player and this address (each guess costs a slow hash).

    A guess the player's limit refuses takes no slot from the address: counted on both, two
    parallel guesses could each be the one over a different limit, and both were refused
    (six guesses at once, two refused at a limit of five), as was the next person at that
    address for a guess that was never hashed.
    """
    limit = getattr(settings, "TOURNAMENTS_PASSWORD_GUESSES_PER_MINUTE", 5)
    if not take_slot(f"tournament-password:user:{user.pk}", limit, 60):
        return False
    return not address or take_slot(f"tournament-password:address:{address}", limit, 60)


def _check_password_unlocked(tournament_id: int, user, password: str, address: str) -> str | None:
    """The private tournament's password hash once ``password`` matched it; None when none is needed.

    Issue #38: checked under the tournament's row lock, 40 parallel wrong guesses
    (0.5 s of hashing each) held as many pooled connections and an unrelated page
    timed out. Here the hash is checked before any lock, with this thread's
    connection handed back to the pool meanwhile, and guesses are throttled per
    player and per address before any hashing.
    """
    row = Tournament.objects.filter(pk=tournament_id).values("password").first()
    if row is None:
        raise TournamentError(Code.NOT_FOUND, _("This tournament does not exist."))
    if not row["password"] or Participant.objects.filter(tournament_id=tournament_id, user=user).exists():
        return None  # public, or someone already in coming back without it
    if not _guess_allowed(user, address):
        raise TournamentError(
            Code.TOO_MANY_GUESSES, _("Too many password attempts. Wait a minute and try again.")
        )
    if not connection.in_atomic_block:
        connection.close()  # back to the pool while hashing; the next query takes one again
    if not check_password(password, row["password"]):
        raise TournamentError(Code.BAD_PASSWORD, _("That is not the tournament's password."))
    return row["password"]


def join(*, tournament_id: int, user, password: str = "", address: str = "") -> Participant:
    """Take part (again): an arena until it ends, a Swiss tournament until it starts.

    ``address`` is the client's address block (core.ratelimit), for the password throttle.
    """
    _registered(user)
    checked = _check_password_unlocked(tournament_id, user, password, address)
    with transaction.atomic():
        tournament = locked(tournament_id)
        if tournament.status == Tournament.Status.FINISHED or (
            tournament.is_arena and tournament.ends_at is not None and now() >= tournament.ends_at
        ):
            raise TournamentError(Code.FINISHED, _("This tournament is over."))
        if not tournament.is_arena and tournament.status != Tournament.Status.SCHEDULED:
            raise TournamentError(Code.STARTED, _("This Swiss tournament has already started."))
        if user.is_bot and not tournament.allow_bots:
            raise TournamentError(
                Code.NO_BOTS, _("This tournament is for people: BOT accounts may not join.")
            )
        entry = Participant.objects.filter(tournament=tournament, user=user).first()
        # Someone already in may come back without it. The password was checked above,
        # unlocked; a tournament whose password changed (or whose entry went) since is refused.
        if entry is None and tournament.is_private and checked != tournament.password:
            raise TournamentError(Code.BAD_PASSWORD, _("That is not the tournament's password."))
        if entry is None:
            entry = Participant.objects.create(tournament=tournament, user=user, free_since=now())
        else:
            entry.withdrawn = False
            entry.paused = False
            entry.free_since = entry.free_since or now()
            entry.save(update_fields=["withdrawn", "paused", "free_since"])
        _after(tournament)
    return entry


def leave(*, tournament_id: int, user) -> None:
    """Stop taking part; a game being played is played out. Before a start the entry is removed."""
    _registered(user)
    with transaction.atomic():
        tournament = locked(tournament_id)
        entry = _entry(tournament, user)
        if tournament.status == Tournament.Status.SCHEDULED:
            entry.delete()
        else:
            entry.withdrawn = True
            entry.save(update_fields=["withdrawn"])
        _after(tournament, pair=False)


def pause(*, tournament_id: int, user) -> None:
    """Arena: not paired again (after the game being played) until they resume."""
    _registered(user)
    with transaction.atomic():
        tournament = locked(tournament_id)
        entry = _entry(tournament, user)
        entry.paused = True
        entry.save(update_fields=["paused"])
        _after(tournament, pair=False)


def resume(*, tournament_id: int, user) -> None:
    _registered(user)
    with transaction.atomic():
        tournament = locked(tournament_id)
        entry = _entry(tournament, user)
        if entry.withdrawn:
            raise TournamentError(Code.NOT_IN, _("Join the tournament again to play."))
        entry.paused = False
        if entry.playing_id is None:
            # Back on the page now: whatever game ended while they were away no longer pauses them.
            entry.free_since = now()
            entry.last_game = None
        entry.save(update_fields=["paused", "free_since", "last_game"])
        _after(tournament)


def _entry(tournament: Tournament, user) -> Participant:
    entry = Participant.objects.filter(tournament=tournament, user=user).first()
    if entry is None:
        raise TournamentError(Code.NOT_IN, _("You are not taking part in this tournament."))
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentError(Code.FINISHED, _("This tournament is over."))
    return entry


def _after(tournament: Tournament, *, pair: bool = True) -> None:
    """Once committed: the pages hear it, and a running arena pairs whoever is now free."""
    tournament_id, arena_running = tournament.pk, tournament.is_arena and tournament.status == "running"

    def follow() -> None:
        live.announce(tournament_id)
        if pair and arena_running:
            from tournaments.tasks import pair_arena

            pair_arena.delay(tournament_id)

    transaction.on_commit(follow, robust=True)
