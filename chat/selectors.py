"""Reading the chat: which lines a reader may see, and what a reader's settings are.

One place decides visibility for the live socket, its history and the replay:
a line hidden by a moderator is shown to nobody; a line written while muted
only to its author; a line by somebody the reader blocked never to the reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from accounts.guests import display_name
from accounts.identity import Identity
from accounts.models import Block, Preferences
from accounts.services.preferences import SESSION_KEY, clean_preferences
from chat.models import ChatLine
from chat.presets import preset_text
from games.models import Game

HISTORY_LINES = 100  # what a socket gets on opening; the replay shows them all
PRESET_GAMES = 3  # a registered player writes freely after this many finished games


@dataclass(frozen=True)
class ChatSettings:
    enabled: bool
    spectators: bool  # a player also reads the spectators' room


def chat_settings(identity: Identity, session: Any = None) -> ChatSettings:
    """The reader's chat switches: a registered player's from the database, a guest's from the session."""
    if identity.user is not None:
        row = Preferences.objects.filter(user_id=identity.user.pk).values("chat", "chat_spectators").first()
        prefs = clean_preferences(dict(row) if row else {})
    else:
        stored = session.get(SESSION_KEY) if session is not None else None
        prefs = clean_preferences(stored if isinstance(stored, dict) else {})
    return ChatSettings(enabled=prefs["chat"], spectators=prefs["chat_spectators"])


def presets_only(identity: Identity) -> bool:
    """Guests, and players with fewer than PRESET_GAMES finished games, send preset phrases only."""
    if identity.user is None:
        return True
    user_id = identity.user.pk
    finished = Game.objects.filter(Q(user0_id=user_id) | Q(user1_id=user_id), status=Game.Status.FINISHED)
    return finished[:PRESET_GAMES].count() < PRESET_GAMES


def is_author(line: ChatLine, identity: Identity) -> bool:
    if identity.user is not None:
        return line.user_id == identity.user.pk
    return identity.guest is not None and line.user_id is None and line.guest_key == identity.guest.key


def visible_lines(game_id: int, identity: Identity, *, rooms: tuple[str, ...]) -> QuerySet[ChatLine]:
    """The game's lines of ``rooms`` that ``identity`` may read, oldest first."""
    # The author's row comes along: a BOT's lines are marked (issue #41, ``line_payload``).
    lines = ChatLine.objects.filter(game_id=game_id, room__in=rooms, hidden=False).select_related("user")
    if identity.user is not None:
        mine = Q(user_id=identity.user.pk)
        blocked = Block.objects.filter(blocker_id=identity.user.pk).values("blocked_id")
        lines = lines.exclude(user_id__in=blocked)
    elif identity.guest is not None:
        mine = Q(user__isnull=True, guest_key=identity.guest.key)
    else:
        mine = Q(pk__in=[])
    return lines.filter(Q(muted=False) | mine)


def recent_lines(game_id: int, identity: Identity, *, rooms: tuple[str, ...]) -> list[ChatLine]:
    newest = visible_lines(game_id, identity, rooms=rooms).order_by("-created_at", "-id")[:HISTORY_LINES]
    return list(reversed(newest))


def author_is_bot(line: ChatLine) -> bool:
    """Whether a BOT account wrote the line: its name is marked BOT, as everywhere (issue #41)."""
    return line.user is not None and line.user.is_bot


def line_payload(line: ChatLine, *, mine: bool) -> dict[str, Any]:
    """A line as a socket or a page shows it, in the active language (presets and guest names)."""
    return {
        "id": line.pk,
        "room": line.room,
        "side": line.side,
        "name": display_name(line.author_name) if line.user_id is None else line.author_name,
        "guest": line.user_id is None,
        "bot": author_is_bot(line),
        "text": preset_text(line.preset) if line.preset else line.text,
        "preset": line.preset or None,
        "at": int(line.created_at.timestamp() * 1000),
        "mine": mine,
    }
