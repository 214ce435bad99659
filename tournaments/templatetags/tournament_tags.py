"""``{% tournament_results player as results %}``: what the profile page (accounts) shows of tournaments."""

from __future__ import annotations

from django import template

from tournaments.selectors import results_of

register = template.Library()


@register.simple_tag
def tournament_results(player) -> list:
    return results_of(player)
