"""Who is behind a request or a websocket: a registered player or a guest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.http import HttpRequest

from accounts.guests import SESSION_KEY as GUEST_SESSION_KEY
from accounts.guests import Guest, get_guest

if TYPE_CHECKING:
    from accounts.models import User


class AuthenticatedHttpRequest(HttpRequest):
    """The request a view behind ``login_required`` receives: ``user`` is a registered User.

    For annotations only (never instantiated): it tells the type checker what
    ``login_required`` guarantees, instead of narrowing ``User | AnonymousUser`` in each view.
    """

    user: User


@dataclass(frozen=True)
class Identity:
    user: User | None  # None: a guest (or nobody)
    guest: Guest | None

    @property
    def is_registered(self) -> bool:
        return self.user is not None

    @property
    def name(self) -> str:
        if self.user is not None:
            return self.user.username
        return self.guest.name if self.guest else ""


def identity_from_request(request, *, create_guest: bool = True) -> Identity:
    """Who acts: the user, else the session's guest, created (and the session with it) when ``create_guest``.

    Only actions pass ``create_guest``: a page view never starts a session.
    """
    if request.user.is_authenticated:
        return Identity(user=request.user, guest=None)
    guest = get_guest(request.session, create=False)
    if guest is None and create_guest:
        guest = get_guest(request.session)
        request._new_guest = True
    return Identity(user=None, guest=guest)


def forget_new_guest(request) -> None:
    """Take back the guest this request created, because its first action was refused.

    The session is empty again, so it is never stored: a refused visitor leaves no
    session row and gets no cookie (bad input changes nothing).
    """
    if getattr(request, "_new_guest", False):
        request.session.pop(GUEST_SESSION_KEY, None)
        request._new_guest = False


def identity_from_scope(scope: dict) -> Identity:
    """For consumers (sync context): a socket never creates a guest; the page did."""
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return Identity(user=user, guest=None)
    session = scope.get("session")
    return Identity(user=None, guest=get_guest(session, create=False) if session is not None else None)
