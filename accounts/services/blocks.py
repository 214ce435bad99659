"""The blacklist: the single source of truth for "does X want to hear from Y?".

Messages, invitations and lobby challenges ask these functions; they never call
back into those apps (lila's relation module works the same way).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Q

from accounts.models import Block, Preferences

if TYPE_CHECKING:
    from accounts.models import User

# A cap like lila's maxBlock, so one account cannot grow an unbounded list.
MAX_BLOCKS = 1000


def _registered(user: object) -> bool:
    return (
        user is not None
        and getattr(user, "is_authenticated", False)
        and getattr(user, "pk", None) is not None
    )


def is_blocked(*, by: User, user: User) -> bool:
    """Has ``by`` blocked ``user``?"""
    if not (_registered(by) and _registered(user)):
        return False
    return Block.objects.filter(blocker_id=by.pk, blocked_id=user.pk).exists()


def either_blocked(a: User, b: User) -> bool:
    """Has one of the two blocked the other? (Neither may then start anything with the other.)"""
    if not (_registered(a) and _registered(b)):
        return False
    return Block.objects.filter(
        Q(blocker_id=a.pk, blocked_id=b.pk) | Q(blocker_id=b.pk, blocked_id=a.pk)
    ).exists()


def related_by_blocks(user: object) -> set[int]:
    """The players ``user`` blocked and the ones who blocked ``user`` (nobody for a guest)."""
    if not _registered(user):
        return set()
    pk = user.pk  # type: ignore[attr-defined]
    pairs = Block.objects.filter(Q(blocker_id=pk) | Q(blocked_id=pk)).values_list("blocker_id", "blocked_id")
    return {other for pair in pairs for other in pair} - {pk}


def block(*, by: User, user: User) -> bool:
    """Block ``user``; False if that is not possible (yourself, or the list is full)."""
    if by.pk == user.pk or blocked_count(by) >= MAX_BLOCKS:
        return False
    try:
        # A savepoint, so a double click racing on the unique constraint does not
        # break the caller's transaction.
        with transaction.atomic():
            Block.objects.get_or_create(blocker_id=by.pk, blocked_id=user.pk)
    except IntegrityError:
        pass
    return True


def unblock(*, by: User, user: User) -> bool:
    """Remove ``user`` from ``by``'s blacklist; False if they were not on it."""
    deleted, _ = Block.objects.filter(blocker_id=by.pk, blocked_id=user.pk).delete()
    return deleted > 0


def blocked_count(user: User) -> int:
    return Block.objects.filter(blocker_id=user.pk).count()


def blacklist(user: User) -> list[Block]:
    """``user``'s blocks, newest first, with the blocked players loaded."""
    return list(Block.objects.filter(blocker_id=user.pk).select_related("blocked"))


def may_invite(*, sender: User, recipient: User) -> bool:
    """May ``sender`` invite ``recipient`` to a game?

    No when the recipient is not a registered, active player, when either has
    blocked the other, or when the recipient blocks all invitations. Callers show
    one neutral refusal for every "no", so the sender learns nothing more.
    """
    if not (_registered(sender) and _registered(recipient)) or not recipient.is_active:
        return False
    if sender.pk == recipient.pk or either_blocked(sender, recipient):
        return False
    return not Preferences.objects.filter(user_id=recipient.pk, block_invitations=True).exists()


def may_join_challenge(*, joiner: User, owner: User) -> bool:
    """May ``joiner`` take ``owner``'s open lobby challenge? (Guests never block anyone.)"""
    return not either_blocked(joiner, owner)
