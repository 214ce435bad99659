"""BOT accounts (issue #41): a player account that a program plays through the API's bot endpoints."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from accounts.models import User
from games.models import Game


class BotError(ValueError):
    """The account cannot become a BOT; the message says why."""


def upgrade(user: User) -> None:
    """Make ``user`` a BOT: only before its first game (any game, even one called off), and for good."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.is_bot:
            raise BotError("This account is a BOT already.")
        seated = Q(user0_id=user.pk) | Q(user1_id=user.pk) | Q(created_by_id=user.pk)
        if Game.objects.filter(seated).exists():
            # lichess's rule: ratings and games made by a person must not become a bot's.
            raise BotError("Only an account that has never played a game can become a BOT.")
        User.objects.filter(pk=user.pk).update(is_bot=True)
    user.is_bot = True
