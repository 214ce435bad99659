"""Tournaments: arenas (a fixed time, paired as players come free) and Swiss (a fixed number of rounds).

Every game of a tournament is an ordinary rated game of the games app; a
``Pairing`` row ties it to the tournament and is scored once (``scored_at``).
Scores are kept in points: a win 2, a draw 1, a loss 0 (arena wins and draws
double on a streak); Swiss shows them halved (1, ½, 0).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.kinds import choices as game_choices


class Tournament(models.Model):
    class Kind(models.TextChoices):
        ARENA = "arena", _("Arena")
        SWISS = "swiss", _("Swiss")

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Starts soon")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    name = models.CharField(_("name"), max_length=80)
    kind = models.CharField(_("format"), max_length=10, choices=Kind.choices, default=Kind.ARENA)
    game = models.CharField(_("game"), max_length=20, choices=game_choices)
    minutes = models.PositiveSmallIntegerField(_("minutes per player"), default=3)
    increment = models.PositiveSmallIntegerField(_("increment (seconds)"), default=0)
    starts_at = models.DateTimeField(_("starts at"), db_index=True)
    duration_minutes = models.PositiveSmallIntegerField(_("duration (minutes, arena)"), default=30)
    rounds = models.PositiveSmallIntegerField(_("rounds (Swiss)"), default=5)
    round = models.PositiveSmallIntegerField(default=0)  # the Swiss round being played (0: not started)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED, db_index=True)
    # None: scheduled by the staff in the admin; else the player who created it.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    password = models.CharField(max_length=128, blank=True)  # a hash (make_password); blank: public
    # BOT accounts (issue #41) may join only where the creator allows them, as on lichess.
    allow_bots = models.BooleanField(_("BOT accounts may join"), default=False)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", args=[self.pk])

    @property
    def ends_at(self) -> datetime | None:
        """When an arena stops pairing (Swiss ends with its last round, not at a time)."""
        if self.kind != self.Kind.ARENA:
            return None
        return self.starts_at + timedelta(minutes=self.duration_minutes)

    @property
    def is_private(self) -> bool:
        return bool(self.password)

    @property
    def is_arena(self) -> bool:
        return self.kind == self.Kind.ARENA


class Participant(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="participants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    score = models.PositiveIntegerField(default=0)
    streak = models.PositiveSmallIntegerField(default=0)  # wins in a row, just now
    games = models.PositiveSmallIntegerField(default=0)
    wins = models.PositiveSmallIntegerField(default=0)
    draws = models.PositiveSmallIntegerField(default=0)
    losses = models.PositiveSmallIntegerField(default=0)
    byes = models.PositiveSmallIntegerField(default=0)
    buchholz = models.PositiveIntegerField(default=0)  # Swiss tie-break: the opponents' scores
    withdrawn = models.BooleanField(default=False)  # left: never paired again unless they rejoin
    paused = models.BooleanField(default=False)  # arena: not paired until they resume
    playing = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    free_since = models.DateTimeField(null=True, blank=True)  # when they last came free to pair
    place = models.PositiveSmallIntegerField(null=True, blank=True)  # final place, once finished
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournaments_one_entry_per_player")
        ]
        indexes = [models.Index(fields=["tournament", "-score"])]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament}"


class Pairing(models.Model):
    """One game of a tournament (or a Swiss bye: no game, no black)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="pairings")
    round = models.PositiveSmallIntegerField(default=0)  # Swiss round; 0 in an arena
    game = models.OneToOneField(
        "games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="tournament_pairing"
    )
    white = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="+")
    black = models.ForeignKey(Participant, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    points_white = models.PositiveSmallIntegerField(default=0)
    points_black = models.PositiveSmallIntegerField(default=0)
    scored_at = models.DateTimeField(null=True, blank=True, db_index=True)  # None: result not counted yet
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.round}: {self.white_id} - {self.black_id}"
