"""Writing to the chat: post a line, report one, hide one, mute a player.

``post_line`` answers with a verdict (as ``accounts.services.messages`` does):
every refusal is one clear sentence and stores nothing. A line that passes is
stored, then announced to the game's sockets after commit; each socket decides
for its own reader (``chat.consumers``) with the facts the event carries.
"""

from __future__ import annotations

import enum
import functools
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from asgiref.sync import sync_to_async
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.db import IntegrityError, transaction
from django.db.models import Exists, Q, QuerySet, Subquery
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from redis.exceptions import RedisError

from accounts.identity import Identity
from accounts.models import Block, Preferences
from accounts.services.preferences import GUEST_FIELDS, SESSION_KEY, clean_preferences
from chat import selectors
from chat.models import MAX_LENGTH, ChatLine, ChatMute, ChatReport
from chat.presets import PRESETS
from core import messages
from core.cache import SharedRedisCache
from games.bus import game_group
from games.live import fastpath
from games.models import Game
from games.store import on_loop

logger = logging.getLogger(__name__)

# Per author across all their sockets and processes (each socket has its own flood limit too).
RATE_LINES = 5
RATE_SECONDS = 10
REASON_MAX_LENGTH = 200
MUTE_DURATIONS = {"1h": timedelta(hours=1), "24h": timedelta(hours=24), "7d": timedelta(days=7)}

# Line breaks and other control characters become spaces: a line is one line.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


class Verdict(enum.Enum):
    OK = "ok"
    NO_IDENTITY = "chat_no_identity"  # a visitor with neither an account nor a guest identity (reads only)
    NOT_FOUND = "chat_not_found"  # no such game, or no such line in it
    CHAT_OFF = "chat_off"
    INVALID = "chat_invalid"  # empty, too long, or an unknown preset
    PRESETS_ONLY = "chat_presets_only"
    RATE_LIMITED = "chat_rate_limited"
    NOT_REGISTERED = "chat_not_registered"  # guests cannot report
    OWN_LINE = "chat_own_line"

    @property
    def text(self) -> str:
        # Formatted here, not at import, so it is in the reader's language.
        return str(_VERDICT_TEXT[self]) % {"max": MAX_LENGTH, "games": selectors.PRESET_GAMES}


_VERDICT_TEXT = {
    Verdict.OK: _("Sent."),
    Verdict.NO_IDENTITY: _("Sign in, or play a game as a guest, to chat."),
    Verdict.NOT_FOUND: _("There is no such game or chat line."),
    Verdict.CHAT_OFF: _("The chat is switched off in your settings."),
    Verdict.INVALID: _("Write 1 to %(max)d characters, or pick a phrase."),
    Verdict.PRESETS_ONLY: _(
        "Guests, and players with fewer than %(games)d finished games, chat with the phrases only."
    ),
    Verdict.RATE_LIMITED: _("You are chatting too quickly. Please wait a few seconds."),
    Verdict.NOT_REGISTERED: _("Sign in to report a line."),
    Verdict.OWN_LINE: _("You cannot report your own line."),
}


@dataclass(frozen=True)
class Result:
    verdict: Verdict
    line: ChatLine | None = None
    hide_from: tuple[int, ...] = ()  # who blocked the line's author: their sockets drop it

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK


def clean_text(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


def _rate_keys(author: str) -> list[str]:
    return [f"chat:rate:{author}:{n}" for n in range(RATE_LINES)]


def _take_rate_slot(author: str) -> bool:
    """Take one of the author's RATE_LINES slots, each held for RATE_SECONDS; False when all are held.

    So no RATE_SECONDS span ever holds more than RATE_LINES lines (a fixed window
    would let twice as many through across its edge). The slots live in the shared
    cache (Redis when REDIS_URL is set, else this process's memory), where ``add``
    is atomic: two sockets racing for the last slot cannot both get it.
    """
    keys = _rate_keys(author)
    held = cache.get_many(keys)
    return any(key not in held and cache.add(key, 1, timeout=RATE_SECONDS) for key in keys)


def is_muted(user_id: int) -> bool:
    return ChatMute.objects.filter(user_id=user_id, until__gt=timezone.now()).exists()


@dataclass(frozen=True)
class _Author:
    """What the chat's rules need about a line's author in this game, read in one statement."""

    seats: tuple[int | None, int | None, str, str]  # user0_id, user1_id, guest0_key, guest1_key
    chat_on: bool
    muted: bool
    free_text: bool  # enough finished games to write more than the phrases
    hide_from: tuple[int, ...] | None = None  # who blocked the author, when read in the same statement


def _author_query(
    game_id: int, user_id: int | None, *, text: bool, at: datetime, blockers: bool = False
) -> QuerySet:
    """The game's seats with the author's chat switch, running mute and finished games as annotations.

    One round trip instead of four (the chat line's CPU was mostly statements:
    docs/performance.md, "Chat"). A guest's switch lives in the session, and a
    guest writes phrases only, so a guest's line reads the seats alone.
    ``blockers``: who blocked the author too, as an array (PostgreSQL's; SQLite reads them apart).
    """
    row = Game.objects.filter(pk=game_id)
    fields = ["user0_id", "user1_id", "guest0_key", "guest1_key"]
    if user_id is None:
        return row.values(*fields)
    annotations: dict[str, Any] = {
        "author_chat": Subquery(Preferences.objects.filter(user_id=user_id).values("chat")[:1]),
        "author_muted": Exists(ChatMute.objects.filter(user_id=user_id, until__gt=at)),
    }
    if text:
        # The PRESET_GAMES-th finished game, if there is one: LIMIT 1 OFFSET n-1, no count.
        finished = Game.objects.filter(Q(user0_id=user_id) | Q(user1_id=user_id), status=Game.Status.FINISHED)
        nth = selectors.PRESET_GAMES - 1
        annotations["author_nth_game"] = Subquery(finished.order_by().values("pk")[nth : nth + 1])
    if blockers:
        from django.contrib.postgres.expressions import ArraySubquery

        annotations["author_blocked_by"] = ArraySubquery(
            Block.objects.filter(blocked_id=user_id).values("blocker_id")
        )
    return row.annotate(**annotations).values(*fields, *annotations)


def _author_from(found: dict[str, Any] | None, identity: Identity, session: Any) -> _Author | None:
    if found is None:
        return None
    seats = (found["user0_id"], found["user1_id"], found["guest0_key"], found["guest1_key"])
    if identity.user is None:
        return _Author(
            seats, chat_on=selectors.chat_settings(identity, session).enabled, muted=False, free_text=False
        )
    switch = found["author_chat"]
    blocked_by = found.get("author_blocked_by")
    return _Author(
        seats,
        chat_on=clean_preferences({} if switch is None else {"chat": bool(switch)})["chat"],
        muted=bool(found["author_muted"]),
        free_text=found.get("author_nth_game") is not None,
        hide_from=None if blocked_by is None else tuple(blocked_by),
    )


def _author_in_game(game_id: int, identity: Identity, *, session: Any, text: bool) -> _Author | None:
    user_id = identity.user.pk if identity.user is not None else None
    found = _author_query(game_id, user_id, text=text, at=timezone.now()).first()
    return _author_from(found, identity, session)


@dataclass(frozen=True)
class _Draft:
    """A line that passed the checks that need no database: what is written, and by whom."""

    text: str
    preset: str
    rate_key: str  # the author's flood limit slots (``_take_rate_slot``)


def _draft(identity: Identity, text: str | None, preset: str | None) -> _Draft | Verdict:
    user, guest_key = identity.user, identity.guest.key if identity.guest is not None else ""
    if user is None and not guest_key:
        return Verdict.NO_IDENTITY
    if preset is not None:
        if text is not None or preset not in PRESETS:
            return Verdict.INVALID
        text = ""
    else:
        text = clean_text(text or "")
        if not text or len(text) > MAX_LENGTH:
            return Verdict.INVALID
    return _Draft(text, preset or "", f"u{user.pk}" if user is not None else f"g{guest_key}")


def _refusal(author: _Author | None, draft: _Draft) -> Verdict | None:
    """Why this author may not post this draft here (before the flood limit), or None."""
    if author is None:
        return Verdict.NOT_FOUND
    if not author.chat_on:
        return Verdict.CHAT_OFF
    if draft.text and not author.free_text:
        return Verdict.PRESETS_ONLY
    return None


def _line(game_id: int, identity: Identity, author: _Author, draft: _Draft) -> ChatLine:
    user0, user1, guest0, guest1 = author.seats
    side = Game(user0_id=user0, user1_id=user1, guest0_key=guest0, guest1_key=guest1).side_of(identity)
    return ChatLine(
        game_id=game_id,
        user=identity.user,
        guest_key="" if identity.user is not None else identity.guest.key,  # type: ignore[union-attr]
        author_name=identity.name,
        room=ChatLine.Room.PLAYERS if side is not None else ChatLine.Room.SPECTATORS,
        side=side,
        text=draft.text,
        preset=draft.preset,
        # Muted authors are not told: their line is stored and shown to them alone.
        muted=author.muted,
    )


def post_line(
    *,
    game_id: int,
    identity: Identity,
    session: Any = None,
    text: str | None = None,
    preset: str | None = None,
    announce: bool = True,
) -> Result:
    """Post ``text`` or a ``preset`` to the game's chat: a player's in the players' room, anyone else's in the spectators'.

    ``session``: the author's session (a guest's chat switch lives there).
    ``announce=False``: the caller announces the stored line itself (``announce_line``).
    The game socket posts with ``post_line_on_loop`` where it can: the same rules.
    """
    draft = _draft(identity, text, preset)
    if isinstance(draft, Verdict):
        return Result(draft)
    author = _author_in_game(game_id, identity, session=session, text=bool(draft.text))
    if (refused := _refusal(author, draft)) is not None:
        return Result(refused)
    assert author is not None
    if not _take_rate_slot(draft.rate_key):
        return Result(Verdict.RATE_LIMITED)
    line = _line(game_id, identity, author, draft)
    # Whoever blocked the author never receives the line (their sockets drop it).
    user = identity.user
    hide_from = (
        tuple(Block.objects.filter(blocked_id=user.pk).values_list("blocker_id", flat=True)) if user else ()
    )
    line.save()  # one INSERT: no transaction of its own needed (two round trips fewer on PostgreSQL)
    result = Result(Verdict.OK, line, hide_from)
    if announce:
        # After commit (at once, unless a caller's transaction is open): a socket that
        # reads the history because of this event must find the row.
        transaction.on_commit(lambda: _group_send(line.game_id, line_event(result)))
    return result


# --- the game socket's line, on its event loop ------------------------------------------

# Stand-ins the author's query is compiled with (``games.store.on_loop``): no real id is negative.
_GAME_STAND_IN, _USER_STAND_IN = -7_000_001, -7_000_002
_AT_STAND_IN = datetime(2000, 1, 1, tzinfo=UTC)


@functools.cache
def _author_statement(kind: str) -> on_loop.Compiled:
    """The author's query for a guest, a registered author's phrase or their free text."""
    user = None if kind == "guest" else _USER_STAND_IN
    stand_ins: dict[str, Any] = {"game": _GAME_STAND_IN}
    if user is not None:
        stand_ins |= {"user": _USER_STAND_IN, "at": _AT_STAND_IN}
    queryset = _author_query(_GAME_STAND_IN, user, text=kind == "text", at=_AT_STAND_IN, blockers=True)
    return on_loop.compile_values(queryset, stand_ins)


def posts_on_loop() -> bool:
    """Whether a socket's line is stored from its event loop: the fast moves' PostgreSQL connections
    and a Redis cache for the flood limit (else ``post_line`` in a database thread)."""
    return fastpath.enabled() and isinstance(caches[DEFAULT_CACHE_ALIAS], SharedRedisCache)


async def post_line_on_loop(
    *,
    game_id: int,
    identity: Identity,
    session: Any = None,
    text: str | None = None,
    preset: str | None = None,
) -> Result:
    """``post_line(announce=False)`` without a database thread (``posts_on_loop``): the same checks,
    the author's facts and who blocked them in one statement, the flood limit in one Redis call,
    then the INSERT. A connection that fails hands the line to ``post_line`` in a thread."""
    draft = _draft(identity, text, preset)
    if isinstance(draft, Verdict):
        return Result(draft)
    try:
        user = identity.user
        kind = "guest" if user is None else "text" if draft.text else "phrase"
        values: dict[str, Any] = {"game": game_id}
        if user is not None:
            values |= {"user": user.pk, "at": timezone.now()}
        found = await on_loop.fetch_one(_author_statement(kind), values)
        author = _author_from(found, identity, session)
        if (refused := _refusal(author, draft)) is not None:
            return Result(refused)
        assert author is not None
        if not await cache.aadd_any(_rate_keys(draft.rate_key), timeout=RATE_SECONDS):  # type: ignore[attr-defined]
            return Result(Verdict.RATE_LIMITED)
        line = _line(game_id, identity, author, draft)
        await on_loop.insert(line)
    except (psycopg.Error, OSError, RedisError) as exc:
        logger.warning("chat line for game %s went through a database thread: %s", game_id, exc)
        return await sync_to_async(post_line, thread_sensitive=False)(
            game_id=game_id, identity=identity, session=session, text=text, preset=preset, announce=False
        )
    return Result(Verdict.OK, line, author.hide_from or ())


def _group_send(game_id: int, event: messages.ChatLine | messages.ChatHidden) -> None:
    try:
        messages.send_to_group(game_group(game_id), event)
    except Exception:
        # The line is stored: the replay and the next socket open show it.
        logger.exception("could not announce a chat event to game %s", game_id)


def line_event(result: Result) -> messages.ChatLine:
    """The game group's event for a stored line: each socket decides for its own reader (chat.consumers)."""
    line = result.line
    assert line is not None
    return {
        "type": "chat.line",
        "line": line.pk,
        "room": line.room,
        "side": line.side,
        "name": line.author_name,
        "text": line.text,
        "preset": line.preset,
        "at": line.created_at.timestamp(),
        "user": line.user_id,
        "guest": line.guest_key,
        "bot": selectors.author_is_bot(line),
        "muted": line.muted,
        "hide_from": list(result.hide_from),
    }


async def announce_line(result: Result, *, layer: Any = None) -> None:
    """Announce a line ``post_line(announce=False)`` stored (and committed), from the event loop.

    ``layer``: the announcing socket's own channel layer (the one its group joins were made on).
    """
    if result.line is None:
        return
    try:
        await messages.asend_to_group(game_group(result.line.game_id), line_event(result), layer=layer)
    except Exception:
        # The line is stored: the replay and the next socket open show it.
        logger.exception("could not announce a chat line to game %s", result.line.game_id)


def report_line(*, game_id: int, identity: Identity, line_id: int, reason: str = "") -> Result:
    """A registered reader reports a line they can see; reporting it twice changes nothing."""
    if identity.user is None:
        return Result(Verdict.NOT_REGISTERED)
    rooms = (ChatLine.Room.PLAYERS, ChatLine.Room.SPECTATORS)
    line = selectors.visible_lines(game_id, identity, rooms=rooms).filter(pk=line_id).first()
    if line is None:
        return Result(Verdict.NOT_FOUND)
    if selectors.is_author(line, identity):
        return Result(Verdict.OWN_LINE)
    try:
        # A savepoint: a double click racing on the unique constraint leaves the caller's transaction usable.
        with transaction.atomic():
            ChatReport.objects.get_or_create(
                line=line, reporter=identity.user, defaults={"reason": clean_text(reason)[:REASON_MAX_LENGTH]}
            )
    except IntegrityError:
        pass
    return Result(Verdict.OK, line)


def hide_line(*, line_id: int) -> bool:
    """A moderator hides a line: gone from every history, and from open pages at once."""
    with transaction.atomic():
        line = ChatLine.objects.filter(pk=line_id, hidden=False).first()
        if line is None:
            return False
        ChatLine.objects.filter(pk=line_id).update(hidden=True)
        ChatReport.objects.filter(line_id=line_id).update(handled=True)
        game_id = line.game_id
        transaction.on_commit(lambda: _group_send(game_id, {"type": "chat.hidden", "line": line_id}))
    return True


def mute_user(*, user_id: int, duration: timedelta, reason: str = "", by: Any = None) -> ChatMute:
    """Mute ``user_id`` for ``duration`` from now (a longer mute already running is kept)."""
    until = timezone.now() + duration
    current = ChatMute.objects.filter(user_id=user_id, until__gt=until).first()
    if current is not None:
        return current
    return ChatMute.objects.create(
        user_id=user_id, until=until, reason=reason[:REASON_MAX_LENGTH], created_by=by
    )


def set_show_spectators(*, identity: Identity, session: Any, show: bool) -> bool:
    """A player's "show the spectators' chat" box, kept in their settings (a guest's in the session).

    False for a visitor with neither: the site keeps no session for them until they act.
    """
    if identity.user is not None:
        Preferences.objects.update_or_create(user_id=identity.user.pk, defaults={"chat_spectators": show})
        return True
    if identity.guest is not None and session is not None:
        stored = session.get(SESSION_KEY)
        prefs = clean_preferences(stored if isinstance(stored, dict) else {})
        prefs["chat_spectators"] = show
        session[SESSION_KEY] = {name: prefs[name] for name in GUEST_FIELDS}
        session.save()
        return True
    return False
