"""What a player name may look like.

Names are public and shown next to every game, so they are kept short and free of
look-alike tricks: letters of any script (with their combining marks, which Hindi
and Bengali need), digits, and ``_ - .``. Django's own validator rejects the
combining marks and allows ``@`` and ``+``, so it is replaced here.
"""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

NAME_MIN_LENGTH = 3
NAME_MAX_LENGTH = 30
NAME_PUNCTUATION = "_-."

# Guest names are "Guest 4821"; a registered "Guest_4821" would pass for one.
_RESERVED = re.compile(r"^(guest[\W_]*\d*|admin|administrator|moderator|system|computer|anonymous)$")


def name_key(name: str) -> str:
    """The form two names are compared in: NFKC, then case-folded (ß = ss, ς = σ)."""
    return unicodedata.normalize("NFKC", name).casefold()


def validate_player_name(value: str) -> None:
    if len(value) < NAME_MIN_LENGTH:
        raise ValidationError(
            _("A name needs at least %(min)d characters."), code="too_short", params={"min": NAME_MIN_LENGTH}
        )
    if len(value) > NAME_MAX_LENGTH:
        raise ValidationError(
            _("A name can have at most %(max)d characters."), code="too_long", params={"max": NAME_MAX_LENGTH}
        )
    has_base = False
    after_letter = False
    for char in value:
        category = unicodedata.category(char)
        if category[0] == "L" or category == "Nd":
            has_base = after_letter = True
        elif category[0] == "M" and after_letter:
            continue  # a vowel sign or accent on the letter before it
        elif char in NAME_PUNCTUATION:
            after_letter = False
        else:
            raise ValidationError(
                _("Use only letters, digits and the characters _ - . in a name."), code="invalid_character"
            )
    if not has_base:
        raise ValidationError(_("A name needs at least one letter or digit."), code="no_letters")
    if _RESERVED.match(name_key(value)):
        raise ValidationError(_("This name is reserved. Please choose another."), code="reserved")
