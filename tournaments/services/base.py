"""What every tournament service shares: refusals, the tournament's row lock, the free players' view."""

from __future__ import annotations

from enum import StrEnum
from typing import overload

from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.models import Tournament


class Code(StrEnum):
    NOT_FOUND = "not_found"
    LOGIN_REQUIRED = "login_required"
    BAD_PASSWORD = "bad_password"
    TOO_MANY_GUESSES = "too_many_guesses"
    FINISHED = "finished"
    STARTED = "started"
    NOT_IN = "not_in"
    INVALID = "invalid"
    NO_BOTS = "no_bots"  # a BOT account, and the tournament does not allow them


class TournamentError(Exception):
    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def now():
    return timezone.now()


@overload
def locked(tournament_id: int) -> Tournament: ...
@overload
def locked(tournament_id: int, *, skip_locked: bool) -> Tournament | None: ...


def locked(tournament_id: int, *, skip_locked: bool = False) -> Tournament | None:
    """The tournament, its row locked until the transaction ends; None if another run holds it (skip_locked).

    Every change of a tournament (a join, a result, a pairing run) takes this
    lock first, so pairing and scoring of one tournament run one at a time, on
    any number of workers. SQLite has one writer and no row locks.
    """
    rows = Tournament.objects.filter(pk=tournament_id)
    if connection.features.has_select_for_update:
        skip = skip_locked and connection.features.has_select_for_update_skip_locked
        rows = rows.select_for_update(skip_locked=skip)
    found = rows.first()
    if found is None and not skip_locked:
        raise TournamentError(Code.NOT_FOUND, _("This tournament does not exist."))
    return found
