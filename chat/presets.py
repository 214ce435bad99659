"""The preset phrases: all that guests and new players may say.

A line stores the preset's id, never its words, so every reader sees it in
their own language (the words are translated where the line is shown).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

PRESETS = {
    "hello": _("Hello"),
    "good_luck": _("Good luck"),
    "good_game": _("Good game"),
    "thanks": _("Thanks"),
}


def preset_text(preset: str) -> str:
    """The phrase in the active language ('' for an id no longer known)."""
    phrase = PRESETS.get(preset)
    return str(phrase) if phrase is not None else ""
