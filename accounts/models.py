from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.validators import name_key, name_skeleton, validate_player_name

ABOUT_MAX_LENGTH = 1000


class User(AbstractUser):
    """A registered player. The username is the public name, unique ignoring case."""

    username = models.CharField(
        _("name"),
        max_length=150,
        unique=True,
        help_text=_("3 to 30 letters (any alphabet), digits or _ - ."),
        validators=[validate_player_name],
        error_messages={"unique": _("This name is already taken.")},
    )
    # The name folded for comparison. SQLite's LOWER() only folds ASCII, so the
    # constraint below alone would let "Σοφία" and "σοφία" both register there;
    # this column is what uniqueness and profile look-ups use. Nullable so that a
    # bulk_create (which skips save()) cannot collide on an empty key.
    username_key = models.CharField(max_length=150, unique=True, null=True, editable=False)  # noqa: DJ001
    # What the name looks like (accounts.validators.name_skeleton): unique in the
    # database, so no two players can pass for each other even when they register
    # at the same instant. Null for an account that collided with an older one
    # when the column was added (migration 0004): `manage.py confusable_names`
    # lists those for a person to settle; renaming the account fills it in.
    # 255: a skeleton can be up to 7 times its name (a Hangul syllable becomes its
    # letters), and names have at most 30 characters once NFKC-normalised.
    username_skeleton = models.CharField(max_length=255, unique=True, null=True, editable=False)  # noqa: DJ001
    about = models.TextField(_("about"), max_length=ABOUT_MAX_LENGTH, blank=True)
    # Server-made square avatars (re-encoded, random names); the upload itself is never kept.
    avatar = models.FileField(_("photo"), upload_to="avatars/", blank=True, max_length=200)
    avatar_small = models.FileField(upload_to="avatars/", blank=True, max_length=200)
    # A BOT account (issue #41, docs/api.md "Bot accounts"): a program plays it through the
    # API's bot endpoints only. Set once, before its first game, and never unset (lichess's rule).
    is_bot = models.BooleanField(default=False)
    # What a BOT accepts, shown on the Bots page (api/bots.py set_accepts): {"games": [...],
    # "clocks": ["5+3", ...], "days": [3, ...]}; empty: it has not said.
    bot_accepts = models.JSONField(default=dict, blank=True)

    # Set by accounts.receivers before a save: (password, is_active) as stored, or None.
    _stored_credentials: tuple[str, bool] | None
    # The username as read from the database (from_db), to tell a rename from any other save.
    _loaded_username: str | None = None

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.username

    def clean(self) -> None:
        super().clean()
        if self.username and lookalike_taken(self.username, exclude_pk=self.pk):
            raise ValidationError({"username": LOOKALIKE_MESSAGE}, code="lookalike")

    def save(self, *args, **kwargs) -> None:
        # Decided before anything reads self.username: a name deferred by .only() and
        # never touched is no rename, and must not give a legacy account its skeleton.
        renamed = self._state.adding or (
            "username" in self.__dict__ and self.username != self._loaded_username
        )
        self.username_key = name_key(self.username)
        if renamed:
            self.username_skeleton = name_skeleton(self.username)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_key", "username_skeleton"}
        super().save(*args, **kwargs)
        self._loaded_username = self.username

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("accounts:profile", args=[self.username])

    @classmethod
    def from_db(cls, *args: Any, **kwargs: Any) -> User:
        user = super().from_db(*args, **kwargs)
        user._loaded_username = user.__dict__.get("username")
        return user


LOOKALIKE_MESSAGE = _("This name looks too much like another player's name. Please choose another.")


def lookalike_taken(name: str, *, exclude_pk: int | None = None) -> bool:
    """Whether another player's name has the same skeleton as ``name``."""
    others = User.objects.filter(username_skeleton=name_skeleton(name))
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    return others.exists()


class Preferences(models.Model):
    """A registered player's settings; guests keep the same keys in their session."""

    class Theme(models.TextChoices):
        AUTO = "auto", _("Follow the device")
        LIGHT = "light", _("Light")
        DARK = "dark", _("Dark")

    class Palette(models.TextChoices):
        CLASSIC = "classic", _("Classic (black and white on green)")
        WOOD = "wood", _("Wood")
        OCEAN = "ocean", _("Ocean")
        CONTRAST = "contrast", _("High contrast")

    class Level(models.TextChoices):
        # Same values as the games app's computer levels (accounts does not import games).
        EASY = "easy", _("Easy")
        MEDIUM = "medium", _("Medium")
        HARD = "hard", _("Hard")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="preferences"
    )
    theme = models.CharField(_("theme"), max_length=10, choices=Theme.choices, default=Theme.AUTO)
    palette = models.CharField(
        _("board colours"), max_length=10, choices=Palette.choices, default=Palette.CLASSIC
    )
    ai_level = models.CharField(
        _("default computer level"), max_length=10, choices=Level.choices, default=Level.MEDIUM
    )
    hints = models.BooleanField(_("show hints"), default=True)
    sound = models.BooleanField(_("sound"), default=True)
    block_invitations = models.BooleanField(_("block all invitations"), default=False)
    # Off: the game page has no chat panel and the game socket sends this player no lines.
    chat = models.BooleanField(_("chat in games"), default=True)
    # The spectators' room, for a player of the game (spectators always see it).
    chat_spectators = models.BooleanField(_("show the spectators' chat to me as a player"), default=False)
    # Opt-in: mails go only to a verified address (games/services/correspondence_mail.py).
    correspondence_mail = models.BooleanField(_("e-mail me about my correspondence games"), default=False)
    # Boards as HTML grids with typed moves and commands (guests keep it in the "sr" cookie).
    screen_reader = models.BooleanField(_("screen-reader mode"), default=False)
    # The language last chosen in the menu (else the one they signed in with): mails sent
    # outside a request, such as the correspondence ones, are written in it. Blank: the site's.
    language = models.CharField(_("language"), max_length=10, blank=True, default="")

    class Meta:
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"


class Block(models.Model):
    """``blocker`` does not want to hear from ``blocked`` (messages, invitations, challenges)."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_made"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_received"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="accounts_block_once"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="accounts_block_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class Message(models.Model):
    """A private message. Each side deletes only its own copy; the row goes when both have."""

    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="messages_sent"
    )
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="messages_received"
    )
    body = models.TextField(_("message"))
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    read_at = models.DateTimeField(null=True, blank=True)
    sender_deleted = models.BooleanField(default=False)
    recipient_deleted = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The unread badge on every page: recipient + unread + not deleted.
            models.Index(fields=["recipient", "read_at"], name="accounts_msg_unread"),
            models.Index(fields=["sender", "created_at"], name="accounts_msg_sent"),
        ]

    def __str__(self) -> str:
        return f"{self.sender_id} → {self.recipient_id} at {self.created_at:%Y-%m-%d %H:%M}"

    @property
    def is_read(self) -> bool:
        return self.read_at is not None
