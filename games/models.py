"""Stored games and their moves.

The position is always re-derivable from the ``Move`` rows; ``Game.state`` is a
cache of the engine's ``dumps`` after the last move so a page or a socket does
not replay the whole game.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.guests import display_name
from games.engines import Engine, OutcomeReason, get
from games.kinds import choices as game_choices

AI_LEVEL_CHOICES = [("easy", _("Easy")), ("medium", _("Medium")), ("hard", _("Hard"))]
# Minutes per player for the whole game; 0 = untimed (computer games only).
TIME_CONTROL_CHOICES = [1, 3, 5, 10, 15]
DEFAULT_TIME_MINUTES = 5
# Fischer controls offered as presets: (base minutes, increment seconds), shown as "5+3".
FISCHER_PRESETS = [(1, 0), (3, 2), (5, 3), (10, 5), (15, 10)]
# The time controls the new-game form offers as one-click choices, lichess's set (its quick pairing's less 30+20):
# every quick-pairing pool above is among them; anything else within the bounds below is a custom clock.
CLOCK_PRESETS = [(1, 0), (2, 1), (3, 0), (3, 2), (5, 0), (5, 3), (10, 0), (10, 5), (15, 10), (30, 0)]
# Custom clocks: any whole base and increment within these bounds (docs/product.md, "Clocks").
MAX_BASE_MINUTES = 60
MAX_INCREMENT_SECONDS = 60
TAKEBACK_COOLDOWN_PLIES = 4  # a side may ask for a takeback at most once per this many plies
TAKEBACK_MIN_CLOCK_MS = 10_000  # no takeback while either clock is under 10 s (docs/protocol.md)
DRAW_COOLDOWN_PLIES = 10  # after a decline, the same side may offer a draw again only this many plies later
# A live game's clocks start at this ply: once each side has made its first move
# (lichess's rule); until then each first move has GAMES_FIRST_MOVE_SECONDS, and a
# game whose first move does not come in time is called off. Also the ply from
# which a player may no longer abort (services.ending.ABORT_MAX_PLY). docs/decisions.md.
CLOCK_START_PLY = 2
# Correspondence games: days each move may take (the clock is reset to this after every move).
DAYS_PER_MOVE_CHOICES = [1, 2, 3, 5, 7, 14]
DAY_SECONDS = 86_400


class EndReason(models.TextChoices):
    """Why a game ended: from the engines (on the board) or from the site."""

    # On the board: the engines' own reasons (games.engines.base.OutcomeReason).
    BOARD_FULL = OutcomeReason.BOARD_FULL.value, _("The board is full")
    NO_MOVES = OutcomeReason.NO_MOVES.value, _("Neither side can move")
    WIPEOUT = OutcomeReason.WIPEOUT.value, _("A side has no pieces left")
    LINE = OutcomeReason.LINE.value, _("A line was completed")
    ALL_BOARDS_DECIDED = OutcomeReason.ALL_BOARDS_DECIDED.value, _("Every small board is decided")
    NO_CLONES = OutcomeReason.NO_CLONES.value, _("100 moves without a clone")
    REPETITION = OutcomeReason.REPETITION.value, _("A position came back three times")
    RESIGN = "resign", _("Resigned")
    EXIT = "exit", _("Left the game")
    TIMEOUT = "timeout", _("Ran out of time")
    DRAW_AGREED = "draw_agreed", _("Draw agreed")
    ABORTED = "aborted", _("Called off")
    ABANDONED = "abandoned", _("Abandoned")
    DECLINED = "declined", _("Invitation declined")
    CANCELLED = "cancelled", _("Invitation withdrawn")
    EXPIRED = "expired", _("Expired")


class Speed(models.TextChoices):
    """The lobby's time-control filter: a clock by the length of a typical game, as lichess groups them."""

    BULLET = "bullet", _("Bullet (under 3 min)")
    BLITZ = "blitz", _("Blitz (3 to 8 min)")
    RAPID = "rapid", _("Rapid (8 to 25 min)")
    CLASSICAL = "classical", _("Classical (25 min or more)")
    CORRESPONDENCE = "correspondence", _("Correspondence (days per move)")


# A game's expected length is base + this many moves' increments (lichess's estimate).
SPEED_MOVES = 40
# Each live speed's estimated length in seconds, [low, high): high None = no bound.
SPEED_BOUNDS: dict[str, tuple[int, int | None]] = {
    Speed.BULLET: (0, 180),
    Speed.BLITZ: (180, 480),
    Speed.RAPID: (480, 1500),
    Speed.CLASSICAL: (1500, None),
}


def clock_speed(base_seconds: int, increment: int, days_per_move: int = 0) -> str:
    """The speed of a clock ("5+3" is blitz: 300 s + 40 x 3 s = 7 min); empty when untimed."""
    if days_per_move:
        return Speed.CORRESPONDENCE
    if not base_seconds:
        return ""
    estimate = base_seconds + SPEED_MOVES * increment
    for speed, (low, high) in SPEED_BOUNDS.items():
        if estimate >= low and (high is None or estimate < high):
            return speed
    return Speed.CLASSICAL


def time_control_label(base_seconds: int, increment: int, days_per_move: int = 0) -> str:
    """The label of a clock: "5+3" for five minutes each and three seconds a move, "3 days" for
    three days per move (correspondence); empty when untimed."""
    if days_per_move:
        return ngettext("%(days)d day", "%(days)d days", days_per_move) % {"days": days_per_move}
    if not base_seconds:
        return ""
    minutes = base_seconds // 60
    return f"{minutes}+{increment}"


def new_invite_token() -> str:
    return secrets.token_urlsafe(12)


class Game(models.Model):
    """One game, its players, position, clocks and result.

    The move path writes this row through ``games/store/rows.py`` (precompiled SQL:
    docs/performance.md), which bypasses ``save()``, ``auto_now`` and model
    signals: keep all three off this model (a test checks).
    """

    _stored: dict[str, Any]  # set by games.store.rows.lock_game: the columns as read, to update only changes

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for an opponent")
        ACTIVE = "active", _("In progress")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")

    class Kind(models.TextChoices):
        """How the game was set up."""

        COMPUTER = "computer", _("Against the computer")
        INVITE_LINK = "link", _("Invite link")
        DIRECT = "direct", _("Direct invitation")
        LOBBY = "lobby", _("Open challenge")

    game = models.CharField(max_length=20, choices=game_choices, db_index=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True)

    # Each side is a registered player, a guest (session key) or the computer at a level.
    user0 = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    guest0_key = models.CharField(max_length=40, blank=True, db_index=True)
    guest0_name = models.CharField(max_length=40, blank=True)
    ai0 = models.CharField(max_length=10, blank=True, choices=AI_LEVEL_CHOICES)
    user1 = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    guest1_key = models.CharField(max_length=40, blank=True, db_index=True)
    guest1_name = models.CharField(max_length=40, blank=True)
    ai1 = models.CharField(max_length=10, blank=True, choices=AI_LEVEL_CHOICES)

    # Setting up: who may join.
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    invited_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    # Play.
    ply = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)  # bumped by every broadcast event
    state = models.JSONField(default=dict)
    # The position the game started from ("Play from here"), as the engine's FEN; empty = the usual start.
    start_fen = models.CharField(max_length=200, blank=True)
    tokens = models.JSONField(default=list, blank=True)  # the move tokens so far (cache of Move rows)
    redo_moves = models.JSONField(default=list, blank=True)  # computer games: moves taken back

    # Clocks, in milliseconds left at ``turn_started_at`` (only the mover's runs).
    time_control = models.PositiveIntegerField(default=DEFAULT_TIME_MINUTES * 60)  # seconds each; 0 = untimed
    # Fischer increment: seconds added to the mover's clock after each of its moves (0 = none).
    increment = models.PositiveSmallIntegerField(default=0)
    # Correspondence: days each move may take (0 = a live clock). Such a game keeps
    # ``time_control`` = the days in seconds, and each move resets the mover's clock
    # to it (``charge_clock``), so the deadline is the clock: flag_at, the sweep and
    # the envelope's clock check treat an expired move like a fallen flag.
    days_per_move = models.PositiveSmallIntegerField(default=0)
    clock0_ms = models.IntegerField(default=0)
    clock1_ms = models.IntegerField(default=0)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # When the mover's clock reaches zero (null when no clock runs). Not indexed:
    # the sweep finds falling clocks through ``attention_at``, which includes it.
    flag_at = models.DateTimeField(null=True, blank=True)
    # When the server next owes this game something (the computer's move, a
    # flag, a draw offer's lapse, the expiry of an untouched game); null when it
    # owes nothing. The obligations sweep (services.attend_overdue, every few
    # seconds) finds overdue games through this index, so no obligation lives
    # only in a broker message or in one process's memory.
    attention_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # The side to move while the game runs (null otherwise), kept by ``deadlines.refresh``
    # with every change: the "Your move" list and the header's count on every page read
    # it in SQL instead of parsing each running game's position.
    mover = models.SmallIntegerField(null=True, blank=True)

    # Draw offers (human games): who offers, when, and the cool-down after a decline.
    draw_offer_side = models.SmallIntegerField(null=True, blank=True)
    draw_offer_at = models.DateTimeField(null=True, blank=True)
    draw_declined_ply0 = models.PositiveIntegerField(null=True, blank=True)
    draw_declined_ply1 = models.PositiveIntegerField(null=True, blank=True)

    # Rematch offers (finished human games): who offers, when, and the game it became.
    rematch_offer_side = models.SmallIntegerField(null=True, blank=True)
    rematch_offer_at = models.DateTimeField(null=True, blank=True)
    rematch = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    # Takeback requests (human games): who asks, at which ply (a move lapses it), and
    # the ply of each side's last request (at most one per TAKEBACK_COOLDOWN_PLIES).
    takeback_side = models.SmallIntegerField(null=True, blank=True)
    takeback_asked_ply0 = models.PositiveIntegerField(null=True, blank=True)
    takeback_asked_ply1 = models.PositiveIntegerField(null=True, blank=True)

    # Result.
    winner = models.SmallIntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=20, blank=True, choices=EndReason.choices)
    score0 = models.IntegerField(default=0)
    score1 = models.IntegerField(default=0)
    # Chosen when the game is set up: a casual game between people changes neither
    # Elo nor points (ratings records it unrated, reason "casual").
    casual = models.BooleanField(default=False)
    rated = models.BooleanField(default=False)  # set by ratings once the result counted
    unrated_reason = models.CharField(max_length=40, blank=True)
    # Ranking place of each player in this game when it ended (set by ratings).
    place0_at_end = models.PositiveIntegerField(null=True, blank=True)
    place1_at_end = models.PositiveIntegerField(null=True, blank=True)

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "kind"])]

    def __str__(self) -> str:
        return f"{self.get_game_display()} #{self.pk}: {self.side_name(0)} v {self.side_name(1)}"

    def get_absolute_url(self) -> str:
        return f"/play/{self.pk}/"

    # --- sides ---------------------------------------------------------------
    def user_of(self, side: int):
        return self.user0 if side == 0 else self.user1

    def user_id_of(self, side: int) -> int | None:
        return self.user0_id if side == 0 else self.user1_id

    def guest_key_of(self, side: int) -> str:
        return self.guest0_key if side == 0 else self.guest1_key

    def ai_of(self, side: int) -> str:
        return self.ai0 if side == 0 else self.ai1

    def side_is_taken(self, side: int) -> bool:
        return bool(self.user_id_of(side) or self.guest_key_of(side) or self.ai_of(side))

    def side_name(self, side: int) -> str:
        if self.ai_of(side):
            return str(_("Computer (%(level)s)") % {"level": _(self.ai_of(side).capitalize())})
        user = self.user_of(side)
        if user is not None:
            return user.username
        return display_name((self.guest0_name if side == 0 else self.guest1_name) or "?")

    def side_of(self, identity) -> int | None:
        """The side played by this identity, or None for a spectator."""
        for side in (0, 1):
            if identity.user is not None and self.user_id_of(side) == identity.user.pk:
                return side
            if identity.guest is not None and self.guest_key_of(side) == identity.guest.key:
                return side
        return None

    @property
    def against_computer(self) -> bool:
        return bool(self.ai0 or self.ai1)

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABORTED)

    @property
    def engine(self) -> Engine:
        return get(self.game)

    @property
    def to_move(self) -> int:
        """The side to move in the stored position."""
        return self.engine.to_move(self.engine_state())

    def clear_draw_offer(self) -> None:
        self.draw_offer_side = None
        self.draw_offer_at = None

    def clear_rematch_offer(self) -> None:
        self.rematch_offer_side = None
        self.rematch_offer_at = None

    def takeback_asked_ply(self, side: int) -> int | None:
        return self.takeback_asked_ply0 if side == 0 else self.takeback_asked_ply1

    def set_takeback_asked_ply(self, side: int, ply: int) -> None:
        if side == 0:
            self.takeback_asked_ply0 = ply
        else:
            self.takeback_asked_ply1 = ply

    def plies_until_takeback(self, side: int) -> int:
        """How many more plies ``side`` must wait before asking for a takeback again (0: may ask)."""
        asked = self.takeback_asked_ply(side)
        if asked is None:
            return 0
        # After a takeback the ply goes down: the wait counts plies played since, never less.
        return max(0, TAKEBACK_COOLDOWN_PLIES - max(0, self.ply - asked))

    def engine_state(self) -> Any:
        # A move reads the position several times; engine states are immutable,
        # so the parsed one is kept for as long as ``self.state`` is the same object.
        cached = getattr(self, "_parsed_state", None)
        if cached is not None and cached[0] is self.state:
            return cached[1]
        parsed = self.engine.loads(self.state) if self.state else self.engine.initial()
        self._parsed_state = (self.state, parsed)
        return parsed

    def set_engine_state(self, state: Any) -> None:
        """Store the position ``state``; the next ``engine_state()`` returns it without parsing."""
        self.state = self.engine.dumps(state)
        self._parsed_state = (self.state, state)

    def start_state(self) -> Any:
        """The position before the first move (the usual one unless the game started from a FEN)."""
        return self.engine.from_fen(self.start_fen) if self.start_fen else self.engine.initial()

    # --- per-side fields: read and written only through these, so that a search
    # for a field name finds every place that changes it -----------------------
    def clock_ms(self, side: int) -> int:
        """Milliseconds left on ``side``'s clock when the current turn began."""
        return self.clock0_ms if side == 0 else self.clock1_ms

    def set_clock(self, side: int, ms: int) -> None:
        if side == 0:
            self.clock0_ms = ms
        else:
            self.clock1_ms = ms

    def charge_clock(self, side: int, used_ms: int) -> int:
        """Charge ``side``'s clock with a move that took ``used_ms`` and add the increment; the time left.

        The one place the clock arithmetic of a move lives: both move paths (the
        locked one and the fast path) and the computer's moves reach it through
        ``services.decide.apply_move``. An untimed game keeps its clock as it is, and
        so does a live game's first move of each side (``clocks_started``): no time
        charged, no increment.
        """
        left = self.clock_ms(side)
        if self.days_per_move:
            # Per move, not per game: the mover's next turn starts with the full days again.
            left = self.time_control * 1000
            self.set_clock(side, left)
        elif self.time_control and self.clocks_started:
            left = left - used_ms + self.increment * 1000
            self.set_clock(side, left)
        return left

    @property
    def correspondence(self) -> bool:
        return bool(self.days_per_move)

    @property
    def clocks_started(self) -> bool:
        """Whether the live clocks run: from ``CLOCK_START_PLY`` on, once each side has moved.

        Before that a first move costs no time and earns no increment; it has the
        first-move window instead (``turn_window_ms``). A correspondence game's
        days per move run from the start: they are its first-move window too.
        """
        return self.ply >= CLOCK_START_PLY or bool(self.days_per_move)

    def turn_window_ms(self, side: int) -> int:
        """What ``side`` has for the turn under way, from ``turn_started_at``: its clock, or the first-move window."""
        if self.clocks_started:
            return self.clock_ms(side)
        return settings.GAMES_FIRST_MOVE_SECONDS * 1000

    def turn_left_ms(self, *, now: datetime | None = None) -> int:
        """Milliseconds before the side to move runs out: of its clock, or of its first-move window."""
        window = self.turn_window_ms(self.to_move)
        if self.turn_started_at is None:
            return window
        elapsed = ((now or timezone.now()) - self.turn_started_at).total_seconds() * 1000
        return int(window - elapsed)

    def deadline(self) -> datetime | None:
        """When the side to move runs out (its clock, a first move's window, a correspondence move's deadline), or None."""
        if self.status != self.Status.ACTIVE or not self.time_control or self.turn_started_at is None:
            return None
        return self.turn_started_at + timedelta(milliseconds=self.turn_window_ms(self.to_move))

    @property
    def time_control_label(self) -> str:
        """The clock as players write it: "5+3" (base minutes + increment seconds), "3 days"; empty when untimed."""
        return time_control_label(self.time_control, self.increment, self.days_per_move)

    def invitation_terms(self) -> str:
        """What an invitation offers, so two can be told apart: "5+3, rated, you play White".

        The home page's list and the toast on other pages (through /lobby.json) both show it.
        The invitee takes the seat nobody holds yet, so "you play" is that seat's colour.
        """
        from games.kinds import side_colour

        free = 0 if not self.side_is_taken(0) else 1
        return _("%(clock)s, %(rated)s, you play %(colour)s") % {
            "clock": self.time_control_label,
            "rated": _("casual") if self.casual else _("rated"),
            "colour": side_colour(self.game, free),
        }

    def remaining_ms(self, side: int, *, now: datetime | None = None) -> int:
        """Milliseconds left on ``side``'s clock right now (only the mover's clock runs)."""
        left = self.clock_ms(side)
        if self.status != self.Status.ACTIVE or not self.time_control or self.turn_started_at is None:
            return left
        if not self.clocks_started or side != self.engine.to_move(self.engine_state()):
            return left
        elapsed = ((now or timezone.now()) - self.turn_started_at).total_seconds() * 1000
        return int(left - elapsed)

    def seat_user(self, side: int, user) -> None:
        if side == 0:
            self.user0 = user
        else:
            self.user1 = user

    def seat_guest(self, side: int, key: str, name: str) -> None:
        if side == 0:
            self.guest0_key, self.guest0_name = key, name
        else:
            self.guest1_key, self.guest1_name = key, name

    def seat_computer(self, side: int, level: str) -> None:
        if side == 0:
            self.ai0 = level
        else:
            self.ai1 = level

    def draw_declined_ply(self, side: int) -> int | None:
        """The ply at which ``side``'s last draw offer was declined."""
        return self.draw_declined_ply0 if side == 0 else self.draw_declined_ply1

    def plies_until_draw_offer(self, side: int) -> int:
        """How many more plies ``side`` must wait to offer a draw after a declined one (0: may offer)."""
        declined_at = self.draw_declined_ply(side)
        if declined_at is None:
            return 0
        return max(0, DRAW_COOLDOWN_PLIES - (self.ply - declined_at))

    def set_draw_declined_ply(self, side: int, ply: int) -> None:
        if side == 0:
            self.draw_declined_ply0 = ply
        else:
            self.draw_declined_ply1 = ply


class Move(models.Model):
    """One ply: the token as the engine spells it, who played it, and the clocks."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField()  # 0-based index of this move
    token = models.CharField(max_length=8)
    side = models.SmallIntegerField()
    client_id = models.CharField(max_length=40, blank=True)  # the sender's id, for resent moves
    time_used_ms = models.IntegerField(default=0)
    clock_left_ms = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "ply"]
        constraints = [models.UniqueConstraint(fields=["game", "ply"], name="games_move_one_per_ply")]

    def __str__(self) -> str:
        return f"{self.game_id}:{self.ply} {self.token}"


class Favourite(models.Model):
    """A game a player starred in their history (private to that player)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="favourite_games"
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="games_favourite_once")]

    def __str__(self) -> str:
        return f"{self.user_id} ★ {self.game_id}"


class Analysis(models.Model):
    """The computer's analysis of one finished game (``games.ai.analysis``).

    ``positions`` grows by one evaluation per position as the worker goes (index
    = ply), so a run that stops is continued, never restarted; ``judgements``
    and ``summary`` are filled when every position is in.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_guest = models.CharField(max_length=64, blank=True, db_index=True)
    budget = models.JSONField(default=dict)  # the fixed budget per position it was made with
    total = models.PositiveIntegerField(default=0)  # positions to evaluate: plies + 1
    done = models.PositiveIntegerField(default=0)  # == len(positions)
    positions = models.JSONField(default=list)
    judgements = models.JSONField(default=list)
    summary = models.JSONField(default=list)  # [first player, second player]
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "analyses"

    def __str__(self) -> str:
        return f"analysis of {self.game_id} ({self.status} {self.done}/{self.total})"


class PositionEvaluation(models.Model):
    """One position evaluated on request on the analysis board, kept: the same
    position at the same budget always gets the same answer."""

    game = models.CharField(max_length=20, choices=game_choices)
    fen = models.CharField(max_length=200)
    result = models.JSONField(null=True, blank=True)  # games.ai.analysis.PositionEval.as_dict()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_guest = models.CharField(max_length=64, blank=True, db_index=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "fen"], name="games_evaluation_once")]

    def __str__(self) -> str:
        return f"{self.game} {self.fen}"


class Seek(models.Model):
    """A registered player waiting in a quick-pairing pool: one seek at a time per player, live or correspondence.

    A live pool is a game and a clock (base, increment); a correspondence pool is
    a game and its days per move (``days_per_move`` > 0, base and increment 0).
    Stored, so a waiting seek survives a server or worker restart; the pairing
    service (games/services/pairing.py) removes both seeks of a pair in the
    transaction that creates their game. A live seek also goes when the seeker's
    page closes; a correspondence seek waits until it is paired or cancelled.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=20, choices=game_choices)
    minutes = models.PositiveSmallIntegerField()
    increment = models.PositiveSmallIntegerField(default=0)  # Fischer seconds a move: "5+3" is 5 and 3
    days_per_move = models.PositiveSmallIntegerField(default=0)  # 0: a live seek
    # Asked for a casual game. Not part of the pool: the game is casual if either seeker asked.
    casual = models.BooleanField(default=False)
    # The player's rating in this game when the seek was made: the correspondence one for a correspondence seek.
    rating = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(
                fields=["game", "days_per_move", "minutes", "increment", "created_at"],
                name="games_seek_pool_days",
            )
        ]

    def __str__(self) -> str:
        mode = " casual" if self.casual else ""
        return f"{self.user_id} seeks {self.game} {self.time_control_label}{mode}"

    @property
    def time_control_label(self) -> str:
        """ "5+3", or "3 days" for a correspondence seek."""
        return time_control_label(self.minutes * 60, self.increment, self.days_per_move)


class TurnMail(models.Model):
    """A correspondence mail sent (or being sent) to a player: stored so each goes exactly once.

    One row per game, player, kind and ply (the unique constraint): the mail
    sweep inserts the row and sends the mail in one transaction, so a worker
    killed before the commit leaves no row and the next sweep sends it again,
    and two sweeps at once cannot both insert it (docs/decisions.md).
    """

    class Kind(models.TextChoices):
        TURN = "turn", _("Your turn")
        REMINDER = "reminder", _("Reminder")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    ply = models.PositiveIntegerField()  # the ply of the turn the mail is about
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user", "kind", "ply"], name="games_turnmail_once"),
        ]
        indexes = [models.Index(fields=["game", "user", "kind", "sent_at"], name="games_turnmail_last")]

    def __str__(self) -> str:
        return f"{self.kind} mail to {self.user_id} for {self.game_id} at ply {self.ply}"
