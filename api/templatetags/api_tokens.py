"""The settings page's "API tokens" section (accounts' template loads it: accounts does not import api)."""

from __future__ import annotations

from typing import Any

from django import template

from api import tokens
from api.models import Scope

register = template.Library()


@register.inclusion_tag("api/_settings_tokens.html", takes_context=True)
def api_tokens_section(context: template.Context) -> dict[str, Any]:
    user = context["request"].user
    return {
        "request": context["request"],
        "csrf_token": context.get("csrf_token"),
        "tokens": list(tokens.live_tokens(user)) if user.is_authenticated else [],
        "scopes": Scope.choices,
        "name_max": tokens.NAME_MAX,
    }
