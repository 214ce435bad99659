"""Chat in the game, in three browsers: two players and a guest watching."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore
from playwright.sync_api import expect

from accounts.identity import Identity
from chat.models import ChatReport
from games import services
from games.models import Game
from tests.browser.conftest import PHONE, screenshot
from tests.browser.pages import in_thread, open_game
from tests.chat.conftest import finish_games

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

NASTY = '<img src=x onerror="window.__owned=1"> see https://evil.test'


def game_between(alice, bob) -> Game:
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    return game


def guest_session() -> str:
    """A browser session holding a guest identity, as one has after playing as a guest."""
    session = SessionStore()
    session["guest"] = {"key": "guest-key-chat-browser", "name": "Guest 5250"}
    session.create()
    return session.session_key


def test_players_chat_safely_a_guest_spectator_uses_phrases_and_a_line_is_reported(
    new_context, login_session, user_factory
):
    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    finish_games(alice_user, bob_user)
    game = in_thread(game_between, alice_user, bob_user)
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob = new_context(session_cookie=login_session(bob_user)).new_page()
    guest = new_context(session_cookie=guest_session()).new_page()
    visitor = new_context().new_page()  # has neither played nor signed in
    for page in (alice, bob, guest, visitor):
        open_game(page, f"/play/{game.pk}/")
        expect(page.locator("#chat")).to_be_visible()

    alice.fill("#chat-text", NASTY)
    alice.press("#chat-text", "Enter")
    line = bob.locator("#chat-lines .chat-line").first
    expect(line.locator(".chat-text")).to_have_text(NASTY)
    expect(line.locator(".chat-name")).to_have_text("alice")
    # Shown as text: no image was made, no link to click, no script ran.
    assert bob.locator("#chat-lines img, #chat-lines a").count() == 0
    assert bob.evaluate("window.__owned") is None
    expect(alice.locator("#chat-text")).to_have_value("")

    # A guest watching sees the players' lines and may only send the phrases.
    expect(guest.locator("#chat-lines .chat-line .chat-text")).to_have_text([NASTY])
    expect(guest.locator("#chat-form")).to_be_hidden()
    expect(guest.locator("#chat-presets-note")).to_be_visible()
    guest.click('[data-preset="hello"]')
    expect(guest.locator("#chat-lines .chat-line.mine .chat-text")).to_have_text("Hello")
    # A visitor who has not acted reads along, with nothing to send.
    expect(visitor.locator("#chat-lines .chat-line .chat-text")).to_have_text([NASTY, "Hello"])
    expect(visitor.locator(".chat-presets")).to_be_hidden()
    expect(visitor.locator("#chat-form")).to_be_hidden()
    expect(visitor.locator("#chat-reader-note")).to_be_visible()

    # Players see the spectators' room only once they tick the box.
    bob.click('[data-preset="good_game"]')
    expect(alice.locator("#chat-lines .chat-line .chat-text")).to_have_text([NASTY, "Good game"])
    alice.check("#chat-show-spectators")
    expect(alice.locator("#chat-lines .chat-line .chat-text")).to_have_text([NASTY, "Hello", "Good game"])
    expect(alice.locator('#chat-lines .chat-line[data-room="spectators"] .chat-room')).to_have_text(
        "spectator"
    )
    screenshot(alice, "chat-player-desktop")
    screenshot(guest, "chat-guest-spectator-desktop")
    alice.reload()
    expect(alice.locator("#chat-show-spectators")).to_be_checked()  # remembered in her settings

    # Bob reports alice's line.
    line.hover()
    line.locator(".chat-report").click()
    expect(bob.locator("#chat-status")).to_contain_text("Reported")
    report = ChatReport.objects.get()
    assert (report.reporter_id, report.line.text) == (bob_user.pk, NASTY)


def shown(report) -> bool:
    """Whether a person sees the button (computed style: hidden, or fully transparent, is not seen)."""
    return report.evaluate(
        "(el) => { const s = getComputedStyle(el); return s.visibility === 'visible' && Number(s.opacity) > 0; }"
    )


def tappable(report) -> bool:
    return report.evaluate(
        "(el) => { const s = getComputedStyle(el); return s.visibility === 'visible' && s.pointerEvents !== 'none'; }"
    )


@pytest.mark.page_only
def test_report_is_reached_by_tab_on_a_computer_and_by_a_tap_on_the_line_on_a_phone(
    new_context, login_session, user_factory
):
    """No hover needed: Shift+Tab from the phrases lands on the last line's Report (shown while focused),
    and on a touch screen a tap on a line shows its Report, which an unseen Report never takes by accident."""
    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    finish_games(alice_user, bob_user)
    game = in_thread(game_between, alice_user, bob_user)
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob_desk = new_context(session_cookie=login_session(bob_user)).new_page()
    bob_phone = new_context(
        session_cookie=login_session(bob_user), viewport=PHONE, has_touch=True, is_mobile=True
    ).new_page()
    for page in (alice, bob_desk, bob_phone):
        open_game(page, f"/play/{game.pk}/")
    for text in ("first line", "second line"):
        alice.fill("#chat-text", text)
        alice.press("#chat-text", "Enter")
    for page in (bob_desk, bob_phone):
        expect(page.locator("#chat-lines .chat-line .chat-text")).to_have_text(["first line", "second line"])
    first, second = (bob_desk.locator("#chat-lines .chat-line").nth(k) for k in (0, 1))
    assert not shown(second.locator(".chat-report"))  # out of the way until wanted

    # A keyboard: back from the first phrase button to the last line's Report, shown, and Enter reports.
    bob_desk.locator("[data-preset]").first.focus()
    bob_desk.keyboard.press("Shift+Tab")
    report = second.locator(".chat-report")
    expect(report).to_be_focused()
    assert shown(report)
    bob_desk.keyboard.press("Enter")
    expect(bob_desk.locator("#chat-status")).to_contain_text("Reported")
    assert not shown(first.locator(".chat-report"))

    # A phone: the unseen Report takes no tap; a tap on the line shows it; a tap on it reports.
    line = bob_phone.locator("#chat-lines .chat-line").first
    report = line.locator(".chat-report")
    assert not shown(report) and not tappable(report)
    line.locator(".chat-text").tap()
    assert shown(report) and tappable(report)
    screenshot(bob_phone, "chat-report-tapped-phone")
    report.tap()
    expect(bob_phone.locator("#chat-status")).to_contain_text("Reported")
    assert sorted(ChatReport.objects.values_list("line__text", flat=True)) == ["first line", "second line"]
    assert set(ChatReport.objects.values_list("reporter_id", flat=True)) == {bob_user.pk}
