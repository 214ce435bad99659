"""Accounts' reactions to allauth's signals."""

from __future__ import annotations

from typing import Any

from allauth.account.signals import user_signed_up
from django.dispatch import receiver

from accounts.models import Preferences
from accounts.services.preferences import GUEST_FIELDS, SESSION_KEY, clean_preferences


@receiver(user_signed_up, dispatch_uid="accounts_keep_guest_preferences")
def keep_guest_preferences(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """A guest who registers keeps the settings they chose while playing as a guest."""
    stored = request.session.get(SESSION_KEY) if request is not None and hasattr(request, "session") else None
    if not isinstance(stored, dict):
        return
    values = clean_preferences(stored)
    Preferences.objects.update_or_create(user=user, defaults={name: values[name] for name in GUEST_FIELDS})
