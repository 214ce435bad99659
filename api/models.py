"""Personal API tokens: a player's programs act for them with ``Authorization: Bearer``."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Scope(models.TextChoices):
    """What a token may do. Endpoints name the scope they need (api/auth.py); later ones add theirs here."""

    READ = "read", _("Read: profiles, games, rankings, tournaments")
    CHALLENGE = "challenge", _("Challenge: create, accept and decline challenges")
    BOARD_PLAY = "board:play", _("Board play: play your own games from a program")
    BOT_PLAY = "bot:play", _("Bot play: play as a bot account")


class ApiToken(models.Model):
    """A personal token. Only the SHA-256 of the secret is kept: the secret is shown once, at creation."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=60)
    # The first characters of the token, shown on the settings page so its owner can tell tokens apart.
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)  # sha256 hex of the whole token
    scopes = models.CharField(max_length=200)  # space-separated Scope values (as OAuth writes them)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # Kept (not deleted) once revoked, so an owner's list and the admin can say when; never accepted again.
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…) of {self.user_id}"

    @property
    def scope_list(self) -> list[str]:
        return self.scopes.split()

    def has_scope(self, scope: str) -> bool:
        return scope in self.scope_list
