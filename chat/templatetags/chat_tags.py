"""The chat's parts of the game pages: the live panel's phrases, and the replay's lines."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.identity import identity_from_request
from chat import selectors
from chat.models import ChatLine
from chat.presets import PRESETS
from chat.services import Verdict

register = template.Library()


@register.simple_tag
def chat_presets() -> list[tuple[str, str]]:
    """(id, phrase in the page's language) for the panel's buttons."""
    return [(key, str(label)) for key, label in PRESETS.items()]


@register.simple_tag
def chat_presets_note() -> str:
    """Why the text box is missing for guests and new players (the refusal they would get)."""
    return Verdict.PRESETS_ONLY.text


@register.simple_tag
def chat_reader_note() -> str:
    """Why a visitor who has not played or signed in has no phrases or text box."""
    return Verdict.NO_IDENTITY.text


@register.inclusion_tag("chat/_replay.html", takes_context=True)
def chat_replay(context: dict[str, Any], game: Any) -> dict[str, Any]:
    """The players' room lines this page's reader may see (blocks, hidden and muted lines respected)."""
    request = context["request"]
    identity = identity_from_request(request, create_guest=False)
    settings = selectors.chat_settings(identity, getattr(request, "session", None))
    if not settings.enabled:
        return {"enabled": False, "lines": []}
    lines = selectors.visible_lines(game.pk, identity, rooms=(ChatLine.Room.PLAYERS,))
    return {
        "enabled": True,
        "lines": [selectors.line_payload(line, mine=selectors.is_author(line, identity)) for line in lines],
    }
