"""Guest identities: play without registering.

A guest is not a user row. Its identity lives in the browser session: a secret
random key (what games store to know the seat is theirs) and a display name
("Guest 4821"). The session cookie is signed and HTTP-only, so the key cannot be
guessed or read by scripts.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

SESSION_KEY = "guest"


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
