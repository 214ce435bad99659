"""What a player name may look like.

Names are public and shown next to every game, so they are kept short and free of
look-alike tricks: letters of any script (with their combining marks, which Hindi
and Bengali need), digits, and ``_ - .``. Django's own validator rejects the
combining marks and allows ``@`` and ``+``, so it is replaced here.

Look-alikes (issue #24): the letters of a name come from one script (Unicode's
Scripts.txt, through confusable-homoglyphs; Japanese, Chinese and Korean mixes as
UTS #39's "highly restrictive" level allows); no name may share its confusable
skeleton (``name_skeleton``) with another player's; and the words the site uses
for its own players (guest, computer, their translations, admin, ...) are refused
in any case, script or punctuation.

Issue #38: the minimum length counts what a reader sees as characters (a letter
with its accents is one; a spacing vowel sign such as Hindi "ा" takes its own
place and counts), at most ``MAX_MARKS_PER_BASE`` marks may sit on one letter,
and digits that read as letters ("adm1n", "gue5t", "Magnu5") are folded into
those letters for the reserved and look-alike checks.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from confusable_homoglyphs import categories, confusables
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.translation import gettext_lazy as _

NAME_MIN_LENGTH = 3
NAME_MAX_LENGTH = 30
NAME_PUNCTUATION = "_-."
# Marks on one letter or digit. Three, not two: a Hindi syllable with a nukta, a
# vowel sign and a nasal sign ("चीज़ें": ज + ़ + े + ं) needs them all, while the
# "a" + 27 accents of issue #38 (drawn over the site's header) is refused.
MAX_MARKS_PER_BASE = 3
# Digits that read as letters, folded after confusables.txt's own mapping (which
# already takes 0 to o and 1 to l): "gue5t" reads "guest", "Magnu5" "Magnus".
_DIGIT_LETTERS = str.maketrans({"3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g"})

# Words nobody may use as (a word of) a name, in any language: staff, the site
# itself, and the labels of its own players ("Guest 4821", "Computer (Hard)"),
# which _site_labels() adds in every language the site speaks.
RESERVED_WORDS = ("guest", "computer", "admin", "administrator", "moderator", "system", "anonymous")
# Scripts that do not count towards a mix: digits and punctuation (COMMON), and
# combining marks that take the script of their letter (INHERITED).
_NEUTRAL_SCRIPTS = {"COMMON", "INHERITED"}
# Writing systems that mix scripts by nature (UTS #39, "highly restrictive").
_SCRIPT_SETS = (
    {"LATIN", "HAN", "HIRAGANA", "KATAKANA"},
    {"LATIN", "HAN", "BOPOMOFO"},
    {"LATIN", "HAN", "HANGUL"},
)
_SEPARATORS = re.compile(r"[_.\-]+")


def name_key(name: str) -> str:
    """The form two names are compared in: NFKC, then case-folded (ß = ss, ς = σ)."""
    return unicodedata.normalize("NFKC", name).casefold()


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from Unicode's confusables.txt (UTS #39).

    confusable-homoglyphs keeps that file's pairs in both directions (source ->
    prototype and back), so each prototype is the member of its group with several
    partners; a group of two keeps the longer (a multi-letter prototype like "rn"
    for "m"), else the smaller string. Either way both members map to one string,
    which is all a comparison of skeletons needs.
    """
    pairs = {
        key.strip("\u200e"): [entry["c"].strip("\u200e") for entry in entries]
        for key, entries in confusables.confusables_data.items()
    }
    result = {}
    for char, partners in pairs.items():
        if len(char) != 1 or len(partners) != 1:
            continue  # a prototype (several partners) maps to itself
        partner = partners[0]
        if (
            len(pairs.get(partner, ())) > 1
            or len(partner) > len(char)
            or (len(partner) == len(char) and partner < char)
        ):
            result[char] = partner
    return result


def name_skeleton(name: str) -> str:
    """What a name looks like: two names with one skeleton pass for each other.

    UTS #39's skeleton (NFD, each character to its prototype: Cyrillic "р" to "p",
    "0" to "O", "I" to "l"), then case-folded and repeated until nothing changes
    ("0" -> "O" -> "o"), without the separators ("a.lice" looks like "alice"), with
    the digits that read as letters folded into them ("Magnu5" looks like "Magnus").
    """
    prototypes = _prototypes()
    text = unicodedata.normalize("NFKC", name)
    for _round in range(5):
        mapped = "".join(prototypes.get(char, char) for char in unicodedata.normalize("NFD", text))
        folded = unicodedata.normalize("NFD", mapped).casefold()
        if folded == text:
            break
        text = folded
    return _SEPARATORS.sub("", text.translate(_DIGIT_LETTERS))


def _label_words(label: str) -> str:
    """ "Guest %(number)s" -> "Guest", "Υπολογιστής (%(level)s)" -> "Υπολογιστής"."""
    return re.sub(r"%\(\w+\)s|[\s()]", "", label)


def _reserved_form(name: str) -> str:
    """A name's skeleton with "i" and "l" as one letter, for the reserved words only.

    "1" reads as "l" or as "i" ("adm1n"); the skeleton takes it (and "I") to "l",
    so for the site's own words both count alike. Not for two players' names, where
    "Ali" and "All" are different names.
    """
    return name_skeleton(name).replace("i", "l")


@functools.cache
def _site_labels() -> tuple[frozenset[str], frozenset[str]]:
    """(reserved forms, level forms), the site's labels in every language it speaks."""
    reserved = {_reserved_form(word) for word in RESERVED_WORDS}
    levels = {"easy", "medium", "hard"}
    for code, _language in settings.LANGUAGES:
        with translation.override(code):
            # The msgids of accounts.guests.guest_label and games.models' computer label.
            reserved.add(_reserved_form(_label_words(translation.gettext("Guest %(number)s"))))
            reserved.add(_reserved_form(_label_words(translation.gettext("Computer (%(level)s)"))))
            levels.update(translation.gettext(level) for level in ("Easy", "Medium", "Hard"))
    return frozenset(reserved), frozenset(_reserved_form(level) for level in levels)


def _strip_number(word: str) -> str:
    """ "Guest4821" -> "Guest": a label followed by digits is still the label."""
    return word.rstrip("0123456789") if word.isascii() else re.sub(r"\d+$", "", word)


def is_reserved(name: str) -> bool:
    """Whether ``name`` reads as one of the site's own words ("Computer-Hard", "c0mputer", "Guest_4821")."""
    reserved, levels = _site_labels()
    words = _SEPARATORS.split(unicodedata.normalize("NFKC", name))
    # A word both with its trailing number ("gue57" reads "guest") and without it ("Guest4821").
    if any(
        form and _reserved_form(form) in reserved for word in words for form in (word, _strip_number(word))
    ):
        return True
    whole = _reserved_form(_strip_number("".join(_strip_number(word) for word in words)))
    return any(
        whole.startswith(word) and (whole[len(word) :] in levels or not whole[len(word) :])
        for word in reserved
    )


def scripts_of(name: str) -> set[str]:
    """The scripts of a name's letters (digits, punctuation and marks count for none)."""
    return categories.unique_aliases(name) - _NEUTRAL_SCRIPTS


def is_mixed_script(name: str) -> bool:
    scripts = scripts_of(name)
    return len(scripts) > 1 and not any(scripts <= allowed for allowed in _SCRIPT_SETS)


def visible_length(name: str) -> int:
    """How many characters a reader counts in ``name``: a letter with its accents is one.

    Nonspacing and enclosing marks (accents, the virama, Hindi's "े") sit on the
    character before them; spacing marks (Hindi's "ा", Bengali's "ী") take a place
    of their own and count, so "राम" and "সীতা" are as long as "Ram" and "Sita".
    """
    return sum(1 for char in name if unicodedata.category(char) not in ("Mn", "Me"))


def validate_player_name(value: str) -> None:
    # The maximum counts code points: it bounds what is stored (and each skeleton's
    # length, accounts.models.User.username_skeleton); the marks rule below keeps
    # a name's drawing within its line.
    if visible_length(value) < NAME_MIN_LENGTH:
        raise ValidationError(
            _("A name needs at least %(min)d characters."), code="too_short", params={"min": NAME_MIN_LENGTH}
        )
    if len(value) > NAME_MAX_LENGTH:
        raise ValidationError(
            _("A name can have at most %(max)d characters."), code="too_long", params={"max": NAME_MAX_LENGTH}
        )
    has_base = False
    after_letter = False
    marks = 0
    for char in value:
        category = unicodedata.category(char)
        if category[0] == "L" or category == "Nd":
            has_base = after_letter = True
            marks = 0
        elif category[0] == "M" and after_letter:
            # A vowel sign or accent on the letter before it, a few at most.
            marks += 1
            if marks > MAX_MARKS_PER_BASE:
                raise ValidationError(
                    _("Put at most %(max)d accents or vowel signs on one letter of a name."),
                    code="too_many_marks",
                    params={"max": MAX_MARKS_PER_BASE},
                )
        elif char in NAME_PUNCTUATION:
            after_letter = False
        else:
            raise ValidationError(
                _("Use only letters, digits and the characters _ - . in a name."), code="invalid_character"
            )
    if not has_base:
        raise ValidationError(_("A name needs at least one letter or digit."), code="no_letters")
    if is_mixed_script(value):
        raise ValidationError(
            _("Use the letters of one alphabet in a name, not a mix of alphabets."), code="mixed_script"
        )
    if is_reserved(value):
        raise ValidationError(_("This name is reserved. Please choose another."), code="reserved")
