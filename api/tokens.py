"""Personal API tokens: creation, revocation, and the look-up every API request makes.

A token is ``bgt_`` and 43 URL-safe characters (256 random bits). Only its SHA-256
is stored: a stolen database gives no usable token, and a plain hash is enough for
a secret this long (no password stretching is needed, and each request stays cheap).
Validity is read from the database on every request, never cached, so a revoked
token is refused by the very next request.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from api.models import ApiToken, Scope

TOKEN_PREFIX = "bgt_"
PREFIX_SHOWN = 12  # "bgt_" and 8 characters of the secret: enough to recognise, far too few to guess
MAX_TOKENS = 20  # live tokens per player: a leaked session cannot mint them without end
NAME_MAX = 60
# last_used_at is written at most this often per token: one UPDATE a minute, not one a request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(ValueError):
    """A token could not be created; the message is for the player."""


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    secret: str  # the whole token, shown once and never again


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def live_tokens(user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True)


def create_token(*, user: User, name: str, scopes: Iterable[str]) -> NewToken:
    """A new token for a registered player; raises TokenError on a bad name, scope or too many tokens."""
    name = name.strip()
    chosen = sorted(set(scopes))
    if not name:
        raise TokenError(_("Give the token a name, to know later what it is for."))
    if len(name) > NAME_MAX:
        raise TokenError(_("A token's name has at most %(max)d characters.") % {"max": NAME_MAX})
    if not chosen:
        raise TokenError(_("Choose at least one scope."))
    if any(scope not in Scope.values for scope in chosen):
        raise TokenError(_("Unknown scope."))
    if live_tokens(user).count() >= MAX_TOKENS:
        raise TokenError(_("You have %(max)d tokens already: revoke one first.") % {"max": MAX_TOKENS})
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=secret[:PREFIX_SHOWN],
        digest=digest_of(secret),
        scopes=" ".join(chosen),
    )
    return NewToken(token=token, secret=secret)


def token_group(token_id: int) -> str:
    """The channel-layer group of a token's open streams (api/streams.py): told at once when it is revoked."""
    return f"api.token.{token_id}"


def revoke_token(*, user: User, token_id: int) -> bool:
    """Revoke one of ``user``'s live tokens; False if there is no such token (or not theirs).

    Its open streams end at once (told through the channel layer once the revocation
    commits); a stream that misses the message finds it on its next check (every
    ``API_STREAM_TOKEN_CHECK_SECONDS``).
    """
    revoked = bool(live_tokens(user).filter(pk=token_id).update(revoked_at=timezone.now()))
    if revoked:
        transaction.on_commit(lambda: _tell_streams(token_id), robust=True)
    return revoked


def _tell_streams(token_id: int) -> None:
    from core.messages import send_to_group

    send_to_group(token_group(token_id), {"type": "stream.revoked"})


def is_live(token_id: int) -> bool:
    """Whether the token is still accepted (not revoked, its player active): what open streams re-check."""
    return ApiToken.objects.filter(pk=token_id, revoked_at__isnull=True, user__is_active=True).exists()


def authenticate(secret: str) -> ApiToken | None:
    """The live token of an active player that ``secret`` is, else None. Marks it used."""
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > 100:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest_of(secret), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
