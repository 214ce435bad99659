from __future__ import annotations

import logging
import smtplib
import unicodedata
from typing import Any
from urllib.parse import quote

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts.models import LOOKALIKE_MESSAGE, lookalike_taken
from accounts.services import logins
from accounts.validators import name_key

logger = logging.getLogger(__name__)


class AccountAdapter(DefaultAccountAdapter):
    """Sign-up by name and password only; failed log-ins limited without locking the owner out."""

    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "username_taken": _("This name is already taken."),
        "username_blacklisted": _("This name is reserved. Please choose another."),
        "username_lookalike": LOOKALIKE_MESSAGE,
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
        if not shallow and lookalike_taken(username):
            raise self.validation_error("username_lookalike")
        return username

    # --- failed log-ins (accounts/services/logins.py) -------------------------

    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        # allauth 65 keys its per-"key" login_failed limit on the name alone, so
        # anybody could lock a player out; with the address in it, the limit is per
        # (name, address). A private hook: tests/accounts/test_logins.py fails if it moves.
        name = name_key(credentials.get("username", ""))
        address = logins.address_block(self.get_client_ip(request))
        return f"{super()._get_login_attempts_cache_key(request)}{name}:{address}"

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        # The name's delay first: an attempt it refuses uses none of allauth's budgets.
        login = credentials.get("username", "")
        if login and logins.delay_remaining(login=login, ip=self.get_client_ip(request)):
            raise self.validation_error("too_many_login_attempts")
        super().pre_authenticate(request, **credentials)

    def authenticate(self, request: HttpRequest, **credentials: Any) -> AbstractBaseUser | None:
        user = super().authenticate(request, **credentials)
        login = credentials.get("username", "")
        if user is not None and login:
            logins.record_success(login=login, ip=self.get_client_ip(request))
        return user

    def authentication_failed(self, request: HttpRequest, **credentials: Any) -> None:
        login = credentials.get("username", "")
        if login:
            logins.record_failure(login=login, ip=self.get_client_ip(request))

    # --- mail -----------------------------------------------------------------

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        try:
            super().send_mail(template_prefix, email, context)
        except (smtplib.SMTPException, OSError) as error:
            # The page the player sees stays the same (a failure here must not tell
            # whether an address has an account); they can ask again. Logged
            # without the mail itself, whose link must never reach a log.
            logger.error("Could not send %s: %s: %s", template_prefix, type(error).__name__, error)

    # --- links in mails ---------------------------------------------------------

    # allauth builds them from the request (its Host header, port included: ALLOWED_HOSTS
    # ignores ports), so a stranger could have a player mailed a link to their own
    # server. Every link in a mail is on the one configured address instead (SITE_URL).

    def get_reset_password_from_key_url(self, key: str) -> str:
        # allauth's own route, with its opaque "uid-key" put where its placeholders were.
        path = reverse("account_reset_password_from_key", kwargs={"uidb36": "UID", "key": "KEY"})
        return on_site(path.replace("UID-KEY", quote(key)))

    def get_email_confirmation_url(self, request: HttpRequest | None, emailconfirmation: Any) -> str:
        return on_site(reverse("account_confirm_email", args=[emailconfirmation.key]))


def on_site(path: str) -> str:
    """``path`` as a link on the site's configured address (``SITE_URL``), whatever the request said."""
    return settings.SITE_URL + path
