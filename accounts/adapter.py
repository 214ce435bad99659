from __future__ import annotations

import unicodedata

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from accounts.validators import name_key


class AccountAdapter(DefaultAccountAdapter):
    """Sign-up by name and password only."""

    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "username_taken": _("This name is already taken."),
        "username_blacklisted": _("This name is reserved. Please choose another."),
    }

    # allauth's DefaultAccountAdapter fixes this signature (positional `shallow`).
    def clean_username(self, username: str, shallow: bool = False) -> str:  # noqa: FBT001, FBT002
        # NFKC first, as Django's UserManager does, so "ﬁsh" and "fish" are one name.
        username = unicodedata.normalize("NFKC", username)
        # allauth runs the model field's validators (accounts.validators) and its
        # own iexact check; the folded key also catches what SQLite's iexact misses.
        username = super().clean_username(username, shallow=shallow)
        if not shallow and get_user_model().objects.filter(username_key=name_key(username)).exists():
            raise self.validation_error("username_taken")
        return username
