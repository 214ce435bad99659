"""Posting, reading, reporting and moderating chat lines, as the players and moderators meet them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.translation import override

from accounts.models import Preferences
from accounts.services import blocks
from chat import selectors, services
from chat.models import ChatLine, ChatReport
from chat.services import Verdict

pytestmark = pytest.mark.django_db

BOTH = ("players", "spectators")


@pytest.fixture(autouse=True)
def _no_broadcasts(monkeypatch):
    """What the services announce to the game's sockets (on commit: see ``on_commit``)."""
    sent: list[tuple[int, dict]] = []
    monkeypatch.setattr(services, "_group_send", lambda game_id, event: sent.append((game_id, event)))
    return sent


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """The test's transaction never commits: run the on-commit callbacks as if it had."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def texts(game_id, identity, rooms=BOTH) -> list[str]:
    return [line.text or line.preset for line in selectors.visible_lines(game_id, identity, rooms=rooms)]


def test_a_players_line_goes_to_the_players_room_and_a_spectators_to_the_spectators(
    people, _no_broadcasts, on_commit
):
    game_id, alice, _, carol = people
    with on_commit():
        assert services.post_line(game_id=game_id, identity=alice, text="  have   fun\n").ok
        assert services.post_line(game_id=game_id, identity=carol, text="nice opening").ok
    lines = list(ChatLine.objects.order_by("id"))
    assert [(line.room, line.side, line.text, line.author_name) for line in lines] == [
        ("players", 0, "have fun", "alice"),
        ("spectators", None, "nice opening", "carol"),
    ]
    assert [event["line"] for _, event in _no_broadcasts] == [line.pk for line in lines]
    assert all(game == game_id for game, _ in _no_broadcasts)


@pytest.mark.parametrize("text", ["", "   \n\t ", "x" * 141])
def test_an_empty_or_too_long_line_is_refused_and_nothing_is_stored(people, text, _no_broadcasts):
    game_id, alice, _, _ = people
    assert services.post_line(game_id=game_id, identity=alice, text=text).verdict is Verdict.INVALID
    assert not ChatLine.objects.exists() and _no_broadcasts == []


def test_a_line_of_exactly_140_characters_is_accepted(people):
    game_id, alice, _, _ = people
    assert services.post_line(game_id=game_id, identity=alice, text="é" * 140).ok


def test_an_unknown_preset_or_both_text_and_preset_is_refused(people):
    game_id, alice, _, _ = people
    assert services.post_line(game_id=game_id, identity=alice, preset="insult").verdict is Verdict.INVALID
    assert (
        services.post_line(game_id=game_id, identity=alice, preset="hello", text="hi").verdict
        is Verdict.INVALID
    )
    assert not ChatLine.objects.exists()


def test_a_guest_sends_presets_only_and_each_reader_sees_them_in_their_language(people, guest):
    game_id, alice, _, _ = people
    assert services.post_line(game_id=game_id, identity=guest, text="hello").verdict is Verdict.PRESETS_ONLY
    assert services.post_line(game_id=game_id, identity=guest, preset="good_luck").ok
    line = ChatLine.objects.get()
    assert (line.room, line.preset, line.text, line.guest_key) == (
        "spectators",
        "good_luck",
        "",
        guest.guest.key,
    )
    with override("el"):
        payload = selectors.line_payload(line, mine=False)
    assert payload["text"] == "Καλή τύχη" and payload["preset"] == "good_luck"
    assert payload["name"] == "Επισκέπτης 4821"


def test_a_player_writes_freely_only_after_three_finished_games(people, user_factory):
    from tests.chat.conftest import finish_games

    game_id, alice, _, _ = people
    newcomer = user_factory("newcomer")
    identity = type(alice)(newcomer, None)
    finish_games(newcomer, alice.user, count=2)
    assert services.post_line(game_id=game_id, identity=identity, text="hi").verdict is Verdict.PRESETS_ONLY
    assert services.post_line(game_id=game_id, identity=identity, preset="hello").ok
    finish_games(newcomer, alice.user, count=1)
    assert services.post_line(game_id=game_id, identity=identity, text="hi").ok


def test_a_player_sends_at_most_five_lines_in_ten_seconds_across_sockets(people):
    game_id, alice, bob, _ = people
    for n in range(5):
        assert services.post_line(game_id=game_id, identity=alice, text=f"line {n}").ok
    assert services.post_line(game_id=game_id, identity=alice, text="six").verdict is Verdict.RATE_LIMITED
    assert (
        services.post_line(game_id=game_id, identity=alice, preset="thanks").verdict is Verdict.RATE_LIMITED
    )
    assert services.post_line(game_id=game_id, identity=bob, text="bob is not limited by alice").ok
    assert ChatLine.objects.filter(user=alice.user).count() == 5


@pytest.fixture
def clock(monkeypatch, settings):
    """A process-memory cache (even when REDIS_URL is set) whose clock is set by hand."""
    from types import SimpleNamespace

    from django.core.cache.backends import base, locmem

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

    now = [1_000_000.0]
    fake = SimpleNamespace(time=lambda: now[0])
    monkeypatch.setattr(base, "time", fake)
    monkeypatch.setattr(locmem, "time", fake)
    return now


def test_no_ten_seconds_ever_hold_more_than_five_lines(people, clock):
    game_id, alice, _, _ = people

    def post() -> Verdict:
        return services.post_line(game_id=game_id, identity=alice, preset="hello").verdict

    assert post() is Verdict.OK  # at 0 s
    clock[0] += 9
    assert [post() for _ in range(5)] == [Verdict.OK] * 4 + [Verdict.RATE_LIMITED]  # at 9 s
    clock[0] += 1.5
    # At 10.5 s the line of 0 s has left the last 10 s, the four of 9 s have not: one more, not five.
    assert [post() for _ in range(2)] == [Verdict.OK, Verdict.RATE_LIMITED]
    clock[0] += 10
    assert post() is Verdict.OK


def test_a_refused_line_does_not_use_up_the_rate(people):
    game_id, alice, _, _ = people
    for _ in range(6):
        services.post_line(game_id=game_id, identity=alice, text="")
    assert services.post_line(game_id=game_id, identity=alice, text="still allowed").ok


def test_a_player_who_switched_the_chat_off_cannot_post(people):
    game_id, alice, _, _ = people
    Preferences.objects.create(user=alice.user, chat=False)
    assert services.post_line(game_id=game_id, identity=alice, text="hi").verdict is Verdict.CHAT_OFF
    assert not ChatLine.objects.exists()


def test_a_guest_who_switched_the_chat_off_in_the_session_cannot_post(people, guest):
    game_id, *_ = people
    session = {"preferences": {"chat": False}}
    result = services.post_line(game_id=game_id, identity=guest, session=session, preset="hello")
    assert result.verdict is Verdict.CHAT_OFF


def test_a_socket_without_an_identity_or_a_game_gets_a_refusal(people, guest):
    game_id, alice, _, _ = people
    nobody = type(alice)(None, None)
    assert services.post_line(game_id=game_id, identity=nobody, preset="hello").verdict is Verdict.NO_IDENTITY
    assert (
        services.post_line(game_id=game_id + 99, identity=alice, preset="hello").verdict is Verdict.NOT_FOUND
    )


def test_the_blocker_never_sees_the_blocked_players_lines_but_others_do(
    people, guest, _no_broadcasts, on_commit
):
    game_id, alice, bob, carol = people
    blocks.block(by=bob.user, user=alice.user)
    with on_commit():
        services.post_line(game_id=game_id, identity=alice, text="you will lose")
    assert _no_broadcasts[-1][1]["hide_from"] == [bob.user.pk]
    services.post_line(game_id=game_id, identity=guest, preset="hello")
    assert texts(game_id, bob) == ["hello"]  # a guest's line (no account) is not caught by bob's blocks
    ChatLine.objects.filter(preset="hello").delete()
    assert texts(game_id, bob) == []
    assert texts(game_id, carol) == ["you will lose"]
    assert texts(game_id, alice) == ["you will lose"]
    # alice did not block bob: his lines reach her.
    services.post_line(game_id=game_id, identity=bob, text="gg")
    assert texts(game_id, alice) == ["you will lose", "gg"]


def test_a_muted_players_lines_reach_only_themself_and_they_are_not_told(people, _no_broadcasts, on_commit):
    game_id, alice, bob, carol = people
    services.mute_user(user_id=alice.user.pk, duration=timedelta(hours=1))
    with on_commit():
        result = services.post_line(game_id=game_id, identity=alice, text="spam spam")
    assert result.ok  # no refusal: alice does not learn she is muted
    assert _no_broadcasts[-1][1]["muted"] is True
    assert texts(game_id, alice) == ["spam spam"]
    assert texts(game_id, bob) == [] and texts(game_id, carol) == []


def test_a_mute_ends_at_its_time(people):
    game_id, alice, bob, _ = people
    mute = services.mute_user(user_id=alice.user.pk, duration=timedelta(hours=1))
    mute.until = timezone.now() - timedelta(seconds=1)
    mute.save()
    services.post_line(game_id=game_id, identity=alice, text="back")
    assert texts(game_id, bob) == ["back"]


def test_a_shorter_mute_does_not_cut_a_longer_one(people):
    _, alice, _, _ = people
    week = services.mute_user(user_id=alice.user.pk, duration=timedelta(days=7))
    assert services.mute_user(user_id=alice.user.pk, duration=timedelta(hours=1)) == week


def test_hiding_a_line_takes_it_from_every_history_and_tells_the_sockets(people, _no_broadcasts, on_commit):
    game_id, alice, bob, carol = people
    line = services.post_line(game_id=game_id, identity=alice, text="rude").line
    services.report_line(game_id=game_id, identity=bob, line_id=line.pk, reason="rude")
    with on_commit():
        assert services.hide_line(line_id=line.pk) is True
    assert _no_broadcasts[-1] == (game_id, {"type": "chat.hidden", "line": line.pk})
    for reader in (alice, bob, carol):
        assert texts(game_id, reader) == []
    assert ChatReport.objects.get().handled is True
    assert services.hide_line(line_id=line.pk) is False  # already hidden: nothing sent again


def test_a_reader_reports_a_line_once_with_a_reason(people):
    game_id, alice, bob, _ = people
    line = services.post_line(game_id=game_id, identity=alice, text="rude").line
    assert services.report_line(game_id=game_id, identity=bob, line_id=line.pk, reason="insult\n").ok
    assert services.report_line(game_id=game_id, identity=bob, line_id=line.pk, reason="again").ok
    report = ChatReport.objects.get()
    assert (report.line_id, report.reporter_id, report.reason, report.handled) == (
        line.pk,
        bob.user.pk,
        "insult",
        False,
    )


def test_nobody_reports_their_own_line_a_line_of_another_game_or_as_a_guest(people, guest, user_factory):
    game_id, alice, bob, _ = people
    line = services.post_line(game_id=game_id, identity=alice, text="hi").line
    assert services.report_line(game_id=game_id, identity=alice, line_id=line.pk).verdict is Verdict.OWN_LINE
    assert (
        services.report_line(game_id=game_id + 1, identity=bob, line_id=line.pk).verdict is Verdict.NOT_FOUND
    )
    assert (
        services.report_line(game_id=game_id, identity=guest, line_id=line.pk).verdict
        is Verdict.NOT_REGISTERED
    )
    assert not ChatReport.objects.exists()


def test_a_line_a_reader_cannot_see_cannot_be_reported_by_them(people):
    game_id, alice, bob, _ = people
    services.mute_user(user_id=alice.user.pk, duration=timedelta(hours=1))
    line = services.post_line(game_id=game_id, identity=alice, text="shadow").line
    assert services.report_line(game_id=game_id, identity=bob, line_id=line.pk).verdict is Verdict.NOT_FOUND


def test_a_guest_reads_their_own_lines_and_not_another_guests_muted_nothing(people, guest):
    game_id, alice, _, _ = people
    services.post_line(game_id=game_id, identity=guest, preset="hello")
    line = ChatLine.objects.get()
    assert selectors.is_author(line, guest) and not selectors.is_author(line, alice)


def test_the_show_spectators_box_is_kept_for_players_and_guests(people, guest):
    _, alice, _, _ = people
    services.set_show_spectators(identity=alice, session=None, show=True)
    assert selectors.chat_settings(alice) == selectors.ChatSettings(enabled=True, spectators=True)

    class Session(dict):
        saved = False

        def save(self):
            self.saved = True

    session = Session()
    assert services.set_show_spectators(identity=guest, session=session, show=True) is True
    assert session.saved and selectors.chat_settings(guest, session).spectators is True
    visitor = Session()
    assert services.set_show_spectators(identity=type(guest)(None, None), session=visitor, show=True) is False
    assert not visitor.saved and visitor == {}


def test_a_players_line_costs_one_read_of_the_game_one_of_the_blocks_and_the_insert(
    people, django_assert_num_queries
):
    # The chat's rules (seats, the author's chat switch, a running mute, enough finished
    # games for free text) are annotations of the game row: a line under load is three
    # statements, not six (docs/performance.md, "Chat").
    game_id, alice, _, _ = people
    with django_assert_num_queries(3):
        assert services.post_line(game_id=game_id, identity=alice, text="good luck").ok


def test_a_muted_player_with_the_chat_off_or_too_few_games_is_still_refused_from_the_one_read(
    people, user_factory
):
    from chat.models import ChatMute
    from tests.people import me

    game_id, alice, bob, _ = people
    ChatMute.objects.create(user_id=bob.user.pk, until=timezone.now() + timedelta(hours=1))
    assert services.post_line(game_id=game_id, identity=bob, text="hi").line.muted
    Preferences.objects.create(user=alice.user, chat=False)
    assert services.post_line(game_id=game_id, identity=alice, text="hi").verdict is Verdict.CHAT_OFF
    newcomer = user_factory("newcomer")
    refused = services.post_line(game_id=game_id, identity=me(newcomer), text="hi")
    assert refused.verdict is Verdict.PRESETS_ONLY
    assert services.post_line(game_id=game_id, identity=me(newcomer), preset="hello").ok
    assert services.post_line(game_id=999_999, identity=alice, preset="hello").verdict is Verdict.NOT_FOUND
