from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from accounts.guests import display_name, get_guest
from accounts.services.messages import unread_count
from accounts.services.preferences import get_preferences


def site_user(request: HttpRequest) -> dict[str, Any]:
    """Navigation data every page needs: unread messages, the guest's name, settings."""
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    registered = user is not None and user.is_authenticated
    unread = unread_count(user.pk) if user is not None and registered else 0  # one indexed COUNT
    # Never create a guest just for viewing a page: only show one the session already has.
    guest = get_guest(session, create=False) if session is not None and not registered else None
    return {
        "unread_messages": unread,
        "guest_name": display_name(guest.name) if guest else "",
        "site_settings": get_preferences(request),
        # Whether the site can mail recovery links (settings.email_settings).
        "mail_enabled": settings.ACCOUNTS_MAIL_ENABLED,
    }
