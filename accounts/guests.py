"""Guest identities: play without registering.

A guest is not a user row. Its identity lives in the browser session: a secret
random key (what games store to know the seat is theirs) and a display name
("Guest 4821"). The session cookie is signed and HTTP-only, so the key cannot be
guessed or read by scripts.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from django.utils.translation import gettext as _

SESSION_KEY = "guest"


GUEST_NAME = re.compile(r"Guest (\d{4})")


def display_name(name: str) -> str:
    """A guest's name for people, in the active language ("Guest 4821" is stored in English)."""
    match = GUEST_NAME.fullmatch(name)
    return _("Guest %(number)s") % {"number": match[1]} if match else name


@dataclass(frozen=True)
class Guest:
    key: str
    name: str


def get_guest(session, *, create: bool = True) -> Guest | None:
    """The session's guest identity, created on first use when ``create``."""
    data = session.get(SESSION_KEY)
    if isinstance(data, dict) and isinstance(data.get("key"), str) and isinstance(data.get("name"), str):
        return Guest(key=data["key"], name=data["name"])
    if not create:
        return None
    guest = Guest(key=secrets.token_urlsafe(18), name=f"Guest {secrets.randbelow(9000) + 1000}")
    session[SESSION_KEY] = {"key": guest.key, "name": guest.name}
    return guest
