"""A player's e-mail for recovery: allauth's EmailAddress rows, read for the settings page."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib.auth.base_user import AbstractBaseUser


def recovery_addresses(user: AbstractBaseUser) -> list[EmailAddress]:
    """The player's addresses, verified ones first."""
    return list(EmailAddress.objects.filter(user=user).order_by("-verified", "email"))
