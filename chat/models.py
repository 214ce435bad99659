"""Chat lines of a game, reports about them, and mutes.

A line belongs to its game for good: the replay shows it. Who may read a line
is decided when it is read (``chat.selectors``), from the line's flags and the
reader's blacklist, so a block or a moderator's "hide" also reaches the history.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from chat.presets import PRESETS

MAX_LENGTH = 140


class ChatLine(models.Model):
    class Room(models.TextChoices):
        PLAYERS = "players", _("Players")
        SPECTATORS = "spectators", _("Spectators")

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="chat_lines")
    # The author: a registered player, or a guest (their secret session key, never shown).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    guest_key = models.CharField(max_length=40, blank=True)
    author_name = models.CharField(_("author"), max_length=150)
    room = models.CharField(_("room"), max_length=10, choices=Room.choices)
    side = models.SmallIntegerField(null=True, blank=True)  # the author's side, in the players' room
    # Either free text or a preset's id (shown in each reader's language).
    text = models.CharField(_("text"), max_length=MAX_LENGTH, blank=True)
    preset = models.CharField(
        _("preset"), max_length=20, blank=True, choices=[(key, label) for key, label in PRESETS.items()]
    )
    created_at = models.DateTimeField(_("sent at"), default=timezone.now)
    hidden = models.BooleanField(_("hidden by a moderator"), default=False)
    # Written while the author was muted: only the author ever sees it (they are not told).
    muted = models.BooleanField(_("sent while muted"), default=False)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["game", "created_at"], name="chat_line_game")]
        verbose_name = _("chat line")
        verbose_name_plural = _("chat lines")

    def __str__(self) -> str:
        return f"{self.author_name}: {self.text or self.preset}"


class ChatReport(models.Model):
    line = models.ForeignKey(ChatLine, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("reported at"), default=timezone.now)
    handled = models.BooleanField(_("handled"), default=False, db_index=True)

    class Meta:
        ordering = ["handled", "-created_at"]
        constraints = [models.UniqueConstraint(fields=["line", "reporter"], name="chat_report_once")]
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")

    def __str__(self) -> str:
        return f"report {self.pk} on line {self.line_id}"


class ChatMute(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    until = models.DateTimeField(_("muted until"), db_index=True)
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-until"]
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")

    def __str__(self) -> str:
        return f"{self.user_id} muted until {self.until:%Y-%m-%d %H:%M}"
