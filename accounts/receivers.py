"""Accounts' reactions to signals: sign-ups, sign-outs, new passwords."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import get_adapter
from allauth.account.signals import password_reset, user_signed_up
from allauth.account.signals import user_logged_in as allauth_logged_in
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from accounts.models import Preferences, User
from accounts.services import logins
from accounts.services.preferences import (
    GUEST_FIELDS,
    SESSION_KEY,
    apply_account_language,
    clean_preferences,
    guest_screen_reader,
    remember_language,
)
from core.messages import AuthRevoked, send_to_group
from core.websocket import auth_group


@receiver(user_signed_up, dispatch_uid="accounts_keep_guest_preferences")
def keep_guest_preferences(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """A guest who registers keeps the settings they chose while playing as a guest."""
    stored = request.session.get(SESSION_KEY) if request is not None and hasattr(request, "session") else None
    fields = {}
    if isinstance(stored, dict):
        values = clean_preferences(stored)
        fields = {name: values[name] for name in GUEST_FIELDS}
    if request is not None and guest_screen_reader(request):
        fields["screen_reader"] = True  # the mode they needed to sign up stays on
    if fields:
        Preferences.objects.update_or_create(user=user, defaults=fields)


@receiver(user_logged_in, dispatch_uid="accounts_remember_the_language")
def remember_the_sign_in_language(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """A player who never chose a language in the menu gets their mails in the one they signed in with."""
    language = getattr(request, "LANGUAGE_CODE", "") if request is not None else ""
    remember_language(user, language, keep_chosen=True)


@receiver(allauth_logged_in, dispatch_uid="accounts_apply_the_account_language")
def apply_the_account_language(
    sender: Any, request: Any, user: Any, response: Any = None, **kwargs: Any
) -> None:
    """A player's language follows them to every device they log in on (allauth's signal carries the response).

    Django's own ``user_logged_in`` (above) has run first: an account with no language yet
    has just been given this browser's, so this changes nothing for it.
    """
    apply_account_language(request, response, user)


@receiver(password_reset, dispatch_uid="accounts_reset_address_is_the_owners")
def trust_the_resetting_address(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """Whoever followed the link mailed to a verified address is the owner: their
    address skips the name's log-in delay (accounts/services/logins.py), so a
    guesser elsewhere cannot keep them out just after they chose a new password."""
    logins.record_success(login=user.username, ip=get_adapter(request).get_client_ip(request))


# --- signing out closes the user's sockets -----------------------------------------


def close_user_sockets(user_id: int, *, session_key: str | None = None) -> None:
    """Close the websockets of ``user_id`` after commit: of one session, or all of them.

    Every socket re-reads who it acts for only when it opens; this is what stops
    a socket opened before a logout from moving afterwards.
    """
    event: AuthRevoked = {"type": "auth.revoked", "session": session_key}

    def send() -> None:
        send_to_group(auth_group(user_id), event)

    transaction.on_commit(send, robust=True)


@receiver(user_logged_out, dispatch_uid="accounts_close_sockets_on_logout")
def close_sockets_on_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is None or request is None or not hasattr(request, "session"):
        return
    close_user_sockets(user.pk, session_key=request.session.session_key)


@receiver(pre_save, sender=User, dispatch_uid="accounts_remember_credentials")
def remember_credentials(sender: Any, instance: User, update_fields: Any = None, **kwargs: Any) -> None:
    if instance.pk is None or (
        update_fields is not None and not {"password", "is_active"} & set(update_fields)
    ):
        return
    instance._stored_credentials = (
        User.objects.filter(pk=instance.pk).values_list("password", "is_active").first()
    )


@receiver(post_save, sender=User, dispatch_uid="accounts_close_sockets_on_new_credentials")
def close_sockets_on_new_credentials(sender: Any, instance: User, *, created: bool, **kwargs: Any) -> None:
    """A new password or a deactivated account ends every session: their sockets too.

    The browser where the password was changed keeps its session and simply
    reconnects.
    """
    stored = getattr(instance, "_stored_credentials", None)
    instance._stored_credentials = None
    if created or stored is None:
        return
    if stored != (instance.password, instance.is_active):
        close_user_sockets(instance.pk)
