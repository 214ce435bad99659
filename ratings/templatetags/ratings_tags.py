"""Ratings for any template, so other apps never import ratings.

{% load ratings_tags %}
{% rating_place user game.game %}         -> 3 (or "" when not ranked)
{% rating_place user game.game as place %}
{% rating_of user game.game %}            -> 1520 (or "" when unrated)
{{ value|rating }}  {{ change|rating_delta }}  {{ rated_games|provisional }} -> "?" while provisional
{% side_rating game 0 %}                     -> 1530? (the player line of a game page)
{% include "ratings/_profile_ratings.html" with player=profile_user %}
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from ratings import selectors
from ratings.elo import PROVISIONAL_GAMES, is_provisional, shown

register = template.Library()


@register.filter
def rating(value) -> int | str:
    """An exact rating as shown on pages (rounded half up)."""
    if value is None or value == "":
        return ""
    return shown(float(value))


@register.filter
def rating_delta(change) -> str:
    """A RatingChange as "+20", "−8" or "±0": the difference of the shown ratings."""
    if change is None:
        return ""
    delta = shown(change.after) - shown(change.before)
    if delta > 0:
        return f"+{delta}"
    if delta < 0:
        return f"\u2212{-delta}"
    return "\u00b10"


@register.filter
def provisional(rated_games) -> SafeString | str:
    """The "?" beside a rating from fewer than 10 rated games (``elo.is_provisional``), else nothing."""
    if rated_games is None or rated_games == "" or not is_provisional(int(rated_games)):
        return ""
    return _question_mark()


@register.filter
def marked(rating, is_provisional: bool) -> SafeString | str:  # noqa: FBT001 (a filter's argument)
    """A rating with its "?" while ``is_provisional`` (the lobby's challenges know the flag, not the games)."""
    return format_html("{}{}", rating, _question_mark()) if is_provisional else str(rating)


def _question_mark() -> SafeString:
    title = _("Provisional: fewer than %(games)d rated games") % {"games": PROVISIONAL_GAMES}
    return format_html('<abbr class="provisional" title="{}">?</abbr>', title)


@register.simple_tag
def side_rating(game, side: int | str) -> SafeString | str:
    """The rating of the registered player on ``side`` of ``game`` in that game, with "?" while provisional.

    A game still being played shows today's rating; a finished one the rating
    at the time (before its own change) and the change it made ("1500 +12"),
    as lichess does, so a later game does not rewrite an old game's page.
    """
    side = int(side)
    user_id = game.user_id_of(side)
    if user_id is None or game.against_computer:
        return ""
    if game.is_over:
        then = selectors.rating_at_the_time(game, side)
        if then is None:
            return ""
        rating_html = format_html(
            '<span class="player-rating">{}{}</span>', shown(then.value), provisional(then.rated_games)
        )
        if then.change is None:
            return rating_html
        delta = selectors.rating_shift(then.change)["delta"]
        return format_html("{} {}", rating_html, change_badge(delta))
    from ratings.models import Rating

    row = Rating.objects.filter(
        user_id=user_id, game=game.game, correspondence=game.correspondence, rated_games__gt=0
    ).first()
    if row is None:
        return ""
    return format_html(
        '<span class="player-rating">{}{}</span>', shown(row.value), provisional(row.rated_games)
    )


def signed(delta: int) -> str:
    """+12, −12 (a real minus sign), ±0."""
    if delta > 0:
        return f"+{delta}"
    if delta < 0:
        return f"\u2212{-delta}"
    return "\u00b10"


def change_badge(delta: int) -> SafeString:
    """A game's rating change beside a player's rating, coloured by its sign (config/static/js/play/play.js draws the same)."""
    kind = "up" if delta > 0 else ("down" if delta < 0 else "same")
    return format_html(
        '<span class="rating-change {}" title="{}">{}</span>',
        kind,
        _("Rating change in this game"),
        signed(delta),
    )


@register.simple_tag
def rating_place(user, game_slug: str) -> int | str:
    place = selectors.place_of(user, game_slug)
    return "" if place is None else place


@register.simple_tag
def rating_of(user, game_slug: str) -> int | str:
    if user is None or getattr(user, "pk", None) is None:
        return ""
    from ratings.models import Rating

    value = (
        Rating.objects.filter(user=user, game=game_slug, correspondence=False, rated_games__gt=0)
        .values_list("value", flat=True)
        .first()
    )
    return "" if value is None else shown(value)


@register.simple_tag
def player_rating_blocks(player) -> list:
    """Per game: rating (or None), place and the rating graph's points (for _profile_ratings.html)."""
    if player is None or getattr(player, "pk", None) is None:
        return []
    return selectors.profile_ratings(player)


@register.simple_tag
def top_of_ranking(game_slug: str, count: int = 5) -> list:
    return list(selectors.ranking(game_slug)[:count])


@register.filter
def game_title(slug: str) -> str:
    return selectors.game_name(slug)


def avatar_url(user) -> str:
    """The user's avatar URL, the small one when there is one; "" for none."""
    for field in ("avatar_small", "avatar"):
        image = getattr(user, field, None)
        if image:
            try:
                return image.url
            except ValueError:
                continue
    return ""


# The initial's sizes have rules in ratings.css: the site's CSP allows no style attributes.
AVATAR_SIZES = (20, 28)


@register.simple_tag
def avatar(user, size: int = 28) -> str:
    if size not in AVATAR_SIZES:
        raise template.TemplateSyntaxError(f"avatar size {size} has no CSS rule (sizes: {AVATAR_SIZES})")
    url = avatar_url(user)
    if url:
        return format_html(
            '<img class="avatar" src="{}" alt="" width="{}" height="{}" loading="lazy">', url, size, size
        )
    initial = (getattr(user, "username", "") or "?")[:1].upper()
    return format_html(
        '<span class="avatar avatar-initial" data-size="{}" aria-hidden="true">{}</span>', size, initial
    )


@register.inclusion_tag("ratings/_profile_ratings.html")
def profile_ratings(player) -> dict:
    """``{% profile_ratings player %}``: the same block as including _profile_ratings.html."""
    return {"player": player}
