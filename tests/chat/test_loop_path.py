"""A socket's chat line stored from its event loop (PostgreSQL and Redis): the same rules as ``post_line``.

The game socket stores a line without a database thread where it can
(``services.post_line_on_loop``, docs/performance.md "Chat"). Whichever way a line
goes, a player must meet the same answers: these stories post the same lines both
ways and compare what each says and stores.
"""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache import cache
from django.utils import timezone

from accounts.models import Preferences
from accounts.services import blocks
from chat import services
from chat.models import ChatLine, ChatMute
from chat.services import Verdict
from games.store import on_loop
from tests.move_paths import FAST, only_on
from tests.people import me

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("move_path"),
    only_on(FAST),  # each test posts its lines both ways itself: the on-loop one exists only on the fast path
]


def _stored(result: services.Result) -> tuple | None:
    line = result.line
    if line is None:
        return None
    row = ChatLine.objects.get(pk=line.pk)
    assert (row.created_at, row.room, row.muted) == (line.created_at, line.room, line.muted)
    return (
        row.game_id,
        row.user_id,
        row.guest_key,
        row.author_name,
        row.room,
        row.side,
        row.text,
        row.preset,
        row.muted,
    )


async def both_ways(**line) -> tuple[tuple, tuple]:
    """The same line posted in a thread and on the loop, each with a fresh flood limit: (verdict, stored row, blockers) each."""
    answers = []
    for post in (sync_to_async(services.post_line), services.post_line_on_loop):
        await sync_to_async(cache.clear)()
        kwargs = dict(line) if post is services.post_line_on_loop else {**line, "announce": False}
        result = await post(**kwargs)
        answers.append((result.verdict, await sync_to_async(_stored)(result), set(result.hide_from)))
    return answers[0], answers[1]


async def test_every_rule_answers_the_same_on_the_loop_as_in_a_thread(people, guest, user_factory):
    game_id, alice, bob, carol = people
    newcomer = me(await sync_to_async(user_factory)("newcomer"))
    guest_session = SessionStore()
    cases = [
        {"identity": alice, "preset": "good_luck"},
        {"identity": alice, "text": "  have   fun  "},
        {"identity": carol, "text": "a spectator's line"},
        {"identity": newcomer, "text": "hello there"},  # too few finished games: phrases only
        {"identity": newcomer, "preset": "hello"},
        {"identity": guest, "preset": "thanks", "session": guest_session},
        {"identity": guest, "text": "free words", "session": guest_session},
        {"identity": alice, "text": ""},
        {"identity": alice, "preset": "no_such_phrase"},
        {"identity": alice, "preset": "hello", "game_id": 999_999},
        {"identity": type(alice)(None, None), "preset": "hello"},
    ]
    verdicts = []
    for case in cases:
        thread, loop = await both_ways(**{"game_id": game_id, **case})
        assert loop == thread, case
        verdicts.append(loop[0])
    assert verdicts == [Verdict.OK] * 3 + [
        Verdict.PRESETS_ONLY,
        Verdict.OK,
        Verdict.OK,
        Verdict.PRESETS_ONLY,
    ] + [
        Verdict.INVALID,
        Verdict.INVALID,
        Verdict.NOT_FOUND,
        Verdict.NO_IDENTITY,
    ]


async def test_a_muted_blocked_or_switched_off_author_meets_the_same_on_the_loop(people):
    game_id, alice, bob, carol = people

    def setup():
        ChatMute.objects.create(user_id=bob.user.pk, until=timezone.now() + timedelta(hours=1))
        blocks.block(by=alice.user, user=bob.user)
        blocks.block(by=carol.user, user=bob.user)
        Preferences.objects.create(user=carol.user, chat=False)

    await sync_to_async(setup)()
    thread, loop = await both_ways(game_id=game_id, identity=bob, text="you are rude")
    assert loop == thread
    verdict, row, hidden_from = loop
    assert verdict is Verdict.OK and row[-1] is True  # stored as muted, the author not told
    assert hidden_from == {alice.user.pk, carol.user.pk}
    thread, loop = await both_ways(game_id=game_id, identity=carol, preset="hello")
    assert loop[0] is thread[0] is Verdict.CHAT_OFF


async def test_the_flood_limit_is_one_across_both_ways(people):
    game_id, alice, _, _ = people
    verdicts = []
    for n in range(6):
        post = services.post_line_on_loop if n % 2 else sync_to_async(services.post_line)
        verdicts.append((await post(game_id=game_id, identity=alice, preset="hello")).verdict)
    assert verdicts == [Verdict.OK] * 5 + [Verdict.RATE_LIMITED]
    refused = await services.post_line_on_loop(game_id=game_id, identity=alice, text="")
    assert refused.verdict is Verdict.INVALID  # checked before the limit: it takes no slot


async def test_a_line_on_the_loop_takes_no_database_thread(people, monkeypatch):
    game_id, alice, _, _ = people
    threads = []
    monkeypatch.setattr(services, "post_line", lambda **kwargs: threads.append(kwargs))
    result = await services.post_line_on_loop(game_id=game_id, identity=alice, text="good game")
    assert result.ok and threads == []
    assert await sync_to_async(ChatLine.objects.filter(pk=result.line.pk, text="good game").exists)()


async def test_a_failing_loop_connection_hands_the_line_to_a_thread_and_stores_it_once(people, monkeypatch):
    game_id, alice, _, _ = people

    async def broken(*args, **kwargs):
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(on_loop, "fetch_one", broken)
    result = await services.post_line_on_loop(game_id=game_id, identity=alice, preset="thanks")
    assert result.ok
    assert await sync_to_async(ChatLine.objects.filter(game_id=game_id).count)() == 1
