"""How a player's name is marked wherever it shows."""

from __future__ import annotations

from collections.abc import Mapping

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext as _

register = template.Library()


@register.simple_tag
def bot_mark(user) -> str:
    """``{% bot_mark user %}``: "BOT" after the name of a BOT account (issue #41), else nothing.

    The same mark the scripts add from a snapshot's ``bot`` (play/text.js ``showName``).
    """
    # A snapshot's or the Watch feed's player is a dict with "bot"; a user has is_bot.
    bot = user.get("bot") if isinstance(user, Mapping) else getattr(user, "is_bot", False)
    if not bot:
        return ""
    return format_html('<abbr class="bot-mark" title="{}">BOT</abbr>', _("A program plays this account"))


@register.simple_tag
def player_name(user) -> str:
    """``{% player_name user %}``: the player's name with its ``bot_mark``, as HTML.

    For a name inside a translated sentence, ``{% player_name game.created_by as inviter %}``
    then ``{% blocktranslate with who=inviter %}``: the msgid stays the plain sentence.
    """
    if user is None:
        return ""
    name = user.get("name", "") if isinstance(user, Mapping) else user.get_username()
    return format_html("{}{}", name, bot_mark(user))
