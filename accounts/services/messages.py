"""Private messages between registered players.

``message_send`` answers with a verdict like lila's MsgSecurity: every refusal is
a value the caller turns into one clear sentence, and nothing is stored unless
the verdict is OK. Blocks are asked of ``blocks``; this module never decides them.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import Message
from accounts.services.blocks import either_blocked
from core.messages import NewMessage, Unread, notify, send_to_group, user_group
from core.ratelimit import take_slot

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

MAX_LENGTH = 2000


def _rate() -> tuple[int, int]:
    """(messages, seconds) allowed per sender; settings may tighten or relax it."""
    return getattr(settings, "ACCOUNTS_MESSAGE_RATE", (20, 60))


class Verdict(enum.Enum):
    OK = "ok"
    INVALID = "invalid"  # empty or too long
    SELF = "self"
    NO_RECIPIENT = "no_recipient"  # no such (active) player
    NOT_REGISTERED = "not_registered"  # guests cannot write
    BLOCKED = "blocked"  # either side has blocked the other
    RATE_LIMITED = "rate_limited"

    @property
    def text(self) -> str:
        # Formatted here, not at import, so it is translated into the reader's language.
        return str(_VERDICT_TEXT[self]) % {"max": MAX_LENGTH}


_VERDICT_TEXT = {
    Verdict.OK: _("Your message was sent."),
    Verdict.INVALID: _("Write a message of 1 to %(max)d characters."),
    Verdict.SELF: _("You cannot send a message to yourself."),
    Verdict.NO_RECIPIENT: _("There is no player with that name."),
    Verdict.NOT_REGISTERED: _("Only registered players can send messages."),
    # Neutral on purpose: it does not say who blocked whom.
    Verdict.BLOCKED: _("You cannot send messages to this player."),
    Verdict.RATE_LIMITED: _("You are sending messages too quickly. Please wait a minute."),
}


@dataclass(frozen=True)
class SendResult:
    verdict: Verdict
    message: Message | None = None

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK


def clean_body(body: str) -> str:
    # Normalise line endings so the length limit counts what the reader sees.
    return body.replace("\r\n", "\n").replace("\r", "\n").strip()


def _take_rate_slot(sender_id: int) -> bool:
    """Count one message against the sender's window; False when the window is full."""
    limit, seconds = _rate()
    return take_slot(f"accounts:msg-rate:{sender_id}", limit, seconds)


def check_send(*, sender: Any, recipient: User | None, body: str = "") -> Verdict:
    """Everything but the rate limit: may ``sender`` write ``body`` to ``recipient``?"""
    if sender is None or not sender.is_authenticated:
        return Verdict.NOT_REGISTERED
    if recipient is None or not recipient.is_active:
        return Verdict.NO_RECIPIENT
    if recipient.pk == sender.pk:
        return Verdict.SELF
    if either_blocked(sender, recipient):
        return Verdict.BLOCKED
    body = clean_body(body)
    if not body or len(body) > MAX_LENGTH:
        return Verdict.INVALID
    return Verdict.OK


def message_send(*, sender: Any, recipient: User | None, body: str) -> SendResult:
    """Send a private message; nothing is stored unless the verdict is OK."""
    verdict = check_send(sender=sender, recipient=recipient, body=body)
    if verdict is not Verdict.OK:
        return SendResult(verdict)
    if not _take_rate_slot(sender.pk):
        return SendResult(Verdict.RATE_LIMITED)
    assert recipient is not None
    message = Message.objects.create(sender=sender, recipient=recipient, body=clean_body(body))
    # After commit: a recipient's page that reacts to the push must find the row.
    recipient_id, sender_name = recipient.pk, sender.username
    transaction.on_commit(lambda: push_new_message(recipient_id, sender=sender_name, message_id=message.pk))
    return SendResult(Verdict.OK, message)


def push_new_message(user_id: int, *, sender: str, message_id: int) -> None:
    """Tell the recipient's open pages (the /ws/notify/ socket) of a new message, and their unread count."""
    new: NewMessage = {"type": "message", "from": sender, "id": message_id, "unread": unread_count(user_id)}
    _push(user_id, new)


def push_unread(user_id: int) -> None:
    """Tell the player's open pages (the /ws/notify/ socket) their unread count."""
    unread: Unread = {"type": "unread", "unread": unread_count(user_id)}
    _push(user_id, unread)


def _push(user_id: int, payload: Unread | NewMessage) -> None:
    try:
        send_to_group(user_group(user_id), notify(payload))
    except Exception:
        # The message is stored; a lost push only delays the badge until the next page.
        logger.exception("could not push a message notification to user %s", user_id)


# --- reading ---------------------------------------------------------------


def unread_count(user_id: int) -> int:
    return Message.objects.filter(recipient_id=user_id, read_at=None, recipient_deleted=False).count()


def inbox(user: User) -> QuerySet[Message]:
    return Message.objects.filter(recipient=user, recipient_deleted=False).select_related("sender")


def sent(user: User) -> QuerySet[Message]:
    return Message.objects.filter(sender=user, sender_deleted=False).select_related("recipient")


def conversation(user: User, other: User) -> QuerySet[Message]:
    """Both directions between ``user`` and ``other`` that ``user`` has not deleted, newest first."""
    return Message.objects.filter(
        Q(sender=user, recipient=other, sender_deleted=False)
        | Q(sender=other, recipient=user, recipient_deleted=False)
    ).select_related("sender", "recipient")


def message_for(user: User, message_id: int) -> Message | None:
    """The message if ``user`` may see it (sent or received and not deleted by them), else None."""
    return (
        Message.objects.filter(pk=message_id)
        .filter(Q(sender=user, sender_deleted=False) | Q(recipient=user, recipient_deleted=False))
        .select_related("sender", "recipient")
        .first()
    )


# --- changing --------------------------------------------------------------


def mark_read(*, user: User, message_ids: list[int] | None = None, sender: User | None = None) -> int:
    """Mark ``user``'s received messages read (these ids, or all from ``sender``, or all)."""
    qs = Message.objects.filter(recipient=user, read_at=None)
    if message_ids is not None:
        qs = qs.filter(pk__in=message_ids)
    if sender is not None:
        qs = qs.filter(sender=sender)
    changed = qs.update(read_at=timezone.now())
    if changed:
        user_id = user.pk
        transaction.on_commit(lambda: push_unread(user_id))
    return changed


def mark_unread(*, user: User, message_id: int) -> bool:
    changed = Message.objects.filter(pk=message_id, recipient=user).update(read_at=None)
    if changed:
        user_id = user.pk
        transaction.on_commit(lambda: push_unread(user_id))
    return bool(changed)


def message_delete(*, user: User, message_id: int) -> bool:
    """Delete ``user``'s copy; False if it is not theirs to delete.

    The other side keeps theirs; the row goes once neither side wants it.
    """
    with transaction.atomic():
        # Locked so two deletes (one per side) cannot both see the other's flag unset.
        message = Message.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            return False
        was_unread = False
        if message.recipient_id == user.pk and not message.recipient_deleted:
            message.recipient_deleted = True
            was_unread = message.read_at is None
        elif message.sender_id == user.pk and not message.sender_deleted:
            message.sender_deleted = True
        else:
            return False
        if message.sender_deleted and message.recipient_deleted:
            message.delete()
        else:
            message.save(update_fields=["sender_deleted", "recipient_deleted"])
    if was_unread:
        user_id = user.pk
        transaction.on_commit(lambda: push_unread(user_id))
    return True
