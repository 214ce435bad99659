"""The chat on the pages: the panel and its switch in the settings, the replay's lines, and the admin."""

from __future__ import annotations

from datetime import timedelta
from http import HTTPStatus

import pytest
from django.test import Client

from accounts.models import Preferences
from accounts.services import blocks
from chat import services
from chat.models import ChatLine, ChatMute, ChatReport

pytestmark = pytest.mark.django_db

SETTINGS = {"theme": "auto", "palette": "classic", "ai_level": "medium", "sound": "on"}


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_game_page_has_a_chat_panel_until_the_player_switches_the_chat_off(people):
    game_id, alice, _, _ = people
    client = logged_in(alice.user)
    page = client.get(f"/play/{game_id}/").content.decode()
    assert 'id="chat"' in page and 'data-preset="good_game"' in page and "css/chat.css" in page
    assert client.post("/settings/", SETTINGS).status_code == HTTPStatus.FOUND  # the box left unticked
    assert Preferences.objects.get(user=alice.user).chat is False
    assert 'id="chat"' not in client.get(f"/play/{game_id}/").content.decode()
    client.post("/settings/", {**SETTINGS, "chat": "on"})
    assert 'id="chat"' in client.get(f"/play/{game_id}/").content.decode()


def test_a_guest_switches_the_chat_off_for_their_session(people):
    game_id, *_ = people
    guest = Client()
    assert 'id="chat"' in guest.get(f"/play/{game_id}/").content.decode()
    guest.post("/settings/", SETTINGS)
    assert 'id="chat"' not in guest.get(f"/play/{game_id}/").content.decode()


def test_the_replay_shows_the_players_lines_the_reader_may_see_as_plain_text(people, user_factory):
    game_id, alice, bob, carol = people
    services.post_line(game_id=game_id, identity=alice, text='<a href="https://x.test">win</a>')
    services.post_line(game_id=game_id, identity=bob, preset="good_game")
    services.post_line(game_id=game_id, identity=carol, text="a spectator's line")
    hidden = services.post_line(game_id=game_id, identity=bob, text="hidden line").line
    services.hide_line(line_id=hidden.pk)
    page = Client().get(f"/play/{game_id}/replay/").content.decode()
    assert (
        "&lt;a href=&quot;https://x.test&quot;&gt;win&lt;/a&gt;" in page
        and '<a href="https://x.test"' not in page
    )
    assert "Good game" in page
    assert "a spectator&#x27;s line" not in page and "hidden line" not in page
    blocks.block(by=carol.user, user=alice.user)
    page = logged_in(carol.user).get(f"/play/{game_id}/replay/").content.decode()
    assert "x.test" not in page and "Good game" in page


def test_the_replay_shows_presets_in_the_readers_language(people):
    game_id, alice, _, _ = people
    services.post_line(game_id=game_id, identity=alice, preset="thanks")
    client = Client()
    client.post("/i18n/setlang/", {"language": "hi", "next": "/"})
    assert "धन्यवाद" in client.get(f"/play/{game_id}/replay/").content.decode()


def test_the_replay_without_lines_says_so_and_a_muted_line_is_shown_to_its_author_only(people):
    game_id, alice, bob, _ = people
    assert "Nobody chatted in this game." in Client().get(f"/play/{game_id}/replay/").content.decode()
    services.mute_user(user_id=alice.user.pk, duration=timedelta(hours=1))
    services.post_line(game_id=game_id, identity=alice, text="muted words")
    assert "muted words" in logged_in(alice.user).get(f"/play/{game_id}/replay/").content.decode()
    assert "muted words" not in logged_in(bob.user).get(f"/play/{game_id}/replay/").content.decode()


@pytest.fixture
def moderator(user_factory):
    return logged_in(user_factory("root", is_staff=True, is_superuser=True))


def test_the_admin_shows_a_report_with_the_lines_around_it_escaped(people, moderator):
    game_id, alice, bob, carol = people
    for n in range(3):
        services.post_line(game_id=game_id, identity=bob, text=f"before {n}")
    line = services.post_line(game_id=game_id, identity=alice, text="<script>bad()</script>").line
    services.post_line(game_id=game_id, identity=carol, text="after")
    services.report_line(game_id=game_id, identity=bob, line_id=line.pk, reason="insult")
    report = ChatReport.objects.get()
    listing = moderator.get("/admin/chat/chatreport/").content.decode()
    assert "insult" in listing and "alice" in listing
    page = moderator.get(f"/admin/chat/chatreport/{report.pk}/change/").content.decode()
    assert "&lt;script&gt;bad()&lt;/script&gt;" in page and "<script>bad()" not in page
    for text in ("before 0", "before 2", "after"):
        assert text in page
    assert page.index("before 2") < page.index("&lt;script&gt;") < page.index("after")


@pytest.mark.parametrize(("action", "hours"), [("mute_1h", 1), ("mute_24h", 24), ("mute_7d", 168)])
def test_a_moderator_mutes_the_author_of_a_reported_line(people, moderator, action, hours):
    game_id, alice, bob, _ = people
    line = services.post_line(game_id=game_id, identity=alice, text="rude").line
    services.report_line(game_id=game_id, identity=bob, line_id=line.pk)
    report = ChatReport.objects.get()
    response = moderator.post(
        "/admin/chat/chatreport/", {"action": action, "_selected_action": [report.pk]}, follow=True
    )
    assert response.status_code == HTTPStatus.OK
    mute = ChatMute.objects.get(user=alice.user)
    assert (
        timedelta(hours=hours) - timedelta(minutes=1) < mute.until - mute.created_at <= timedelta(hours=hours)
    )
    assert ChatReport.objects.get().handled is True
    assert services.is_muted(alice.user.pk) and not services.is_muted(bob.user.pk)


def test_a_moderator_hides_a_reported_line(people, moderator):
    game_id, alice, bob, _ = people
    line = services.post_line(game_id=game_id, identity=alice, text="rude").line
    services.report_line(game_id=game_id, identity=bob, line_id=line.pk)
    report = ChatReport.objects.get()
    moderator.post("/admin/chat/chatreport/", {"action": "hide_lines", "_selected_action": [report.pk]})
    assert ChatLine.objects.get().hidden is True and ChatReport.objects.get().handled is True
