"""Ratings per player per game, every change they went through, and which games were applied."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.kinds import choices as game_choices
from games.models import Game
from ratings.elo import INITIAL_RATING, shown


class Rating(models.Model):
    """A registered player's Elo rating in one game (exact value; pages round it)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=20, choices=game_choices)
    # Correspondence games (days per move) are rated apart from live ones: a second row per game.
    correspondence = models.BooleanField(default=False)
    value = models.FloatField(default=INITIAL_RATING)
    rated_games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    peak = models.FloatField(default=INITIAL_RATING)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "game", "correspondence"], name="ratings_rating_one_per_pool"
            )
        ]
        indexes = [
            models.Index(fields=["game", "correspondence", "-value"], name="ratings_rating_pool_board")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game} {self.value:.1f}"

    @property
    def shown(self) -> int:
        return shown(self.value)


class RatingChange(models.Model):
    """One player's rating before and after one rated game: the points of the rating graph."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    before = models.FloatField()
    after = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="ratings_change_once_per_game")]
        indexes = [models.Index(fields=["user", "created_at"], name="ratings_change_by_user")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game_id}: {self.before:.1f} -> {self.after:.1f}"

    @property
    def delta(self) -> float:
        return self.after - self.before

    @property
    def shown_delta(self) -> int:
        # The difference of the shown ratings, so a history adds up to what pages show.
        return shown(self.after) - shown(self.before)


class AppliedGame(models.Model):
    """The ratings task has dealt with this game (rated or not): it never runs twice.

    The primary key is the game, so a second insert fails even without the row locks.
    """

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="+")
    rated = models.BooleanField()
    applied_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.game_id} {'rated' if self.rated else 'unrated'}"
