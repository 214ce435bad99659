"""Correspondence mails: "your move" (one per game per day at most) and a reminder 12 hours before a deadline.

Derived from the database like every other obligation: the sweep
(``send_due_mails``, Celery beat every GAMES_MAIL_SWEEP_SECONDS) looks at every
running correspondence game, and mails the player to move if they opted in
(``Preferences.correspondence_mail``) and have a verified address. What was
sent is stored (``TurnMail``): the row is inserted and the mail handed to the
SMTP server in one transaction, so a worker killed before the commit leaves no
row (the next sweep sends the mail), and a second sweep running at the same
time waits on the row's unique key and then finds it (it sends nothing).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import Preferences
from accounts.services.preferences import languages_of
from games.deadline_text import format_when
from games.kinds import game_name
from games.models import Game, TurnMail
from games.services.base import now

logger = logging.getLogger(__name__)

REMINDER_BEFORE = timedelta(hours=12)  # a reminder when less than this is left for the move
TURN_MAIL_EVERY = timedelta(days=1)  # at most one "your move" mail per game and player in this time


def send_due_mails(*, limit: int = 500) -> int:
    """The mail sweep: every mail now due, each exactly once; returns how many were sent."""
    at = now()
    running = list(
        Game.objects.filter(status=Game.Status.ACTIVE, days_per_move__gt=0)
        .select_related("user0", "user1")
        .order_by("flag_at")[:limit]
    )
    movers = {game.pk: game.user_id_of(game.to_move) for game in running}
    wanted = set(
        Preferences.objects.filter(
            user_id__in={uid for uid in movers.values() if uid}, correspondence_mail=True
        ).values_list("user_id", flat=True)
    )
    addresses = _verified_addresses(wanted)
    languages = languages_of(set(addresses))
    sent = 0
    for game in running:
        user_id = movers[game.pk]
        if user_id not in addresses:
            continue
        kind = _due(game, user_id, at=at)
        if kind is None:
            continue
        try:
            sent += _send_once(game, user_id, kind, addresses[user_id], languages[user_id], at=at)
        except Exception:  # one refused mail must not stop the others; the next sweep tries again
            logger.exception("correspondence mail for game %s to user %s", game.pk, user_id)
    return sent


def _verified_addresses(user_ids: set[int]) -> dict[int, str]:
    """Each player's verified address (the primary one first)."""
    rows = EmailAddress.objects.filter(user_id__in=user_ids, verified=True).order_by("primary")
    return {row.user_id: row.email for row in rows}  # the primary one (True sorts last) wins


def _due(game: Game, user_id: int, *, at: datetime) -> str | None:
    """The mail this turn is owed now, if any: a reminder first, else the "your move" mail."""
    sent = TurnMail.objects.filter(game=game, user_id=user_id)
    deadline = game.deadline()
    if deadline is not None and deadline - at <= REMINDER_BEFORE:
        if not sent.filter(kind=TurnMail.Kind.REMINDER, ply=game.ply).exists():
            return TurnMail.Kind.REMINDER
        return None
    turn_mails = sent.filter(kind=TurnMail.Kind.TURN)
    if (
        turn_mails.filter(ply=game.ply).exists()
        or turn_mails.filter(sent_at__gt=at - TURN_MAIL_EVERY).exists()
    ):
        return None  # batched: this turn's mail waits until a day after the last one
    return TurnMail.Kind.TURN


def _send_once(game: Game, user_id: int, kind: str, address: str, language: str, *, at: datetime) -> bool:
    # Why one transaction around the SMTP conversation: the row commits only
    # once the server took the mail; a crash before that leaves nothing stored.
    with transaction.atomic():
        try:
            with transaction.atomic():
                TurnMail.objects.create(game=game, user_id=user_id, kind=kind, ply=game.ply, sent_at=at)
        except IntegrityError:
            return False  # another sweep sent it
        with translation.override(language):  # the player's, not the worker's (English)
            subject, body = _mail(game, kind)
        send_mail(subject, body, None, [address])
    return True


def _mail(game: Game, kind: str) -> tuple[str, str]:
    side = game.to_move
    deadline = game.deadline()  # a running correspondence game's: its mover's clock runs
    opponent = game.side_name(1 - side)
    opponent_user = game.user_of(1 - side)
    if opponent_user is not None and opponent_user.is_bot:
        # Plain text has no <abbr>: the BOT mark (issue #41) is written after the name, in
        # every language alike, as the pages' mark is never translated either.
        opponent = f"{opponent} (BOT)"
    names = {
        "game": game_name(game.game),
        "opponent": opponent,
        "clock": game.time_control_label,
        "deadline": format_when(deadline)
        if deadline is not None
        else "",  # as every page writes it (games/deadline_text.py)
        "url": settings.SITE_URL + game.get_absolute_url(),
        "settings_url": settings.SITE_URL + reverse("accounts:settings"),
    }
    if kind == TurnMail.Kind.REMINDER:
        subject = _("Less than 12 hours left for your move: %(game)s against %(opponent)s") % names
        first = (
            _("Your move in %(game)s against %(opponent)s (%(clock)s per move) is due by %(deadline)s.")
            % names
        )
    else:
        subject = _("Your move: %(game)s against %(opponent)s") % names
        first = (
            _("It is your move in %(game)s against %(opponent)s (%(clock)s per move), due by %(deadline)s.")
            % names
        )
    body = "\n\n".join(
        [
            first,
            _("Play it here: %(url)s") % names,
            _("You get these mails because you switched them on in your settings: %(settings_url)s") % names,
        ]
    )
    return subject, body
