"""Existing names that today's rules would refuse: for an operator to settle by hand."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from accounts.models import User
from accounts.validators import name_skeleton, validate_player_name


@dataclass(frozen=True)
class RefusedName:
    user: User
    reason: str


def lookalike_groups() -> list[list[User]]:
    """Players whose names pass for each other, oldest account first in each group.

    Computed afresh from the names (not from the stored column), so it also finds
    what a newer Unicode table in confusable-homoglyphs would now call alike.
    """
    groups: dict[str, list[User]] = defaultdict(list)
    for user in User.objects.order_by("pk").only("pk", "username", "date_joined", "username_skeleton"):
        groups[name_skeleton(user.username)].append(user)
    return [members for members in groups.values() if len(members) > 1]


def refused_names() -> list[RefusedName]:
    """Players whose names the rules refuse now (mixed scripts, reserved words, ...)."""
    refused = []
    for user in User.objects.order_by("pk").only("pk", "username"):
        try:
            validate_player_name(user.username)
        except ValidationError as error:
            refused.append(RefusedName(user=user, reason=" ".join(error.messages)))
    return refused
