"""A player across devices and tabs (issue #37, defect 15): their language follows them to another device,
a form left open in a tab from before a logout says why it started nothing, and a guest is not offered the
correspondence field they cannot use while a player is."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.utils import translation
from playwright.sync_api import expect

from accounts.models import Preferences
from games.models import Game
from tests.browser.conftest import DESKTOP, PHONE, screenshot

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


def _t(text: str, lang: str) -> str:
    with translation.override(lang):
        return translation.gettext(text)


def test_the_language_chosen_on_one_device_is_the_one_the_player_gets_on_the_next(
    new_context, login_session, user_factory
):
    # Before, the choice lived in one browser's cookie: Greek on the laptop, English on the phone.
    alice = user_factory("alice")
    # The site's processes check passwords with the real hashers, not the tests' quick MD5.
    alice.password = PBKDF2PasswordHasher().encode("secret-pass", PBKDF2PasswordHasher().salt())
    alice.save(update_fields=["password"])
    laptop = new_context(session_cookie=login_session(alice)).new_page()
    laptop.goto("/")
    with laptop.expect_navigation():
        laptop.select_option("#lang-select", label="Ελληνικά")
    expect(laptop.locator("html")).to_have_attribute("lang", "el")
    assert Preferences.objects.get(user=alice).language == "el"

    phone = new_context(viewport=PHONE, locale="en-GB").new_page()  # a fresh browser, in English
    phone.goto("/accounts/login/")
    expect(phone.locator("html")).to_have_attribute("lang", "en")
    phone.fill("#id_login", "alice")
    phone.fill("#id_password", "secret-pass")
    phone.click("main form button[type=submit]")
    phone.wait_for_url(re.compile(r"^https?://[^/]+/$"))  # the home page, logged in
    expect(phone.locator("html")).to_have_attribute("lang", "el")
    greek_logout = _t("Log out", "el")
    assert greek_logout != "Log out"
    expect(phone.locator(".site-header")).to_contain_text(greek_logout)
    expect(phone.locator("#lang-select option:checked")).to_have_text("Ελληνικά")
    phone.goto("/watch/")  # and it stays on every page: the language cookie is this browser's now
    expect(phone.locator("html")).to_have_attribute("lang", "el")
    screenshot(phone, "language-follows-phone")


def test_a_form_left_open_before_a_logout_in_another_tab_starts_nothing_and_says_why(
    new_context, login_session, user_factory
):
    # Before, the old tab's form (its CSRF token survives a logout) silently started a guest's game.
    alice = user_factory("alice")
    context = new_context(session_cookie=login_session(alice))
    old_tab = context.new_page()
    old_tab.goto("/")
    old_tab.click('.game-card[data-game="ataxx"]')
    old_tab.select_option("#id_opponent", "computer")
    old_tab.select_option("#id_level", "easy")
    old_tab.click('.clock-choice[data-clock="untimed"]')
    old_tab.select_option("#id_side", "0")

    other_tab = context.new_page()
    other_tab.goto("/")
    with other_tab.expect_navigation():
        other_tab.click(".site-header form[action*='logout'] button")
    expect(other_tab.locator(".site-header")).to_contain_text("Log in")

    old_tab.click("#new-game-form button[type=submit]")
    error = old_tab.locator("#new-game-form .errorlist[role=alert]")
    expect(error).to_contain_text(
        "This page was opened while you were logged in as alice, and you have logged out since. Nothing was started"
    )
    assert not re.search(r"/play/\d+/", old_tab.url)
    assert not Game.objects.exists(), "no guest game behind the player's back"
    # The page is the guest's now, with the choices kept: pressing Start again is a knowing choice.
    expect(old_tab.locator(".site-header")).to_contain_text("Log in")
    expect(old_tab.locator('input[name="as_player"]')).to_have_count(0)
    expect(old_tab.locator('.game-card[data-game="ataxx"] input')).to_be_checked()
    expect(old_tab.locator("#id_opponent")).to_have_value("computer")
    screenshot(old_tab, "stale-form-after-logout-desktop")

    old_tab.click("#new-game-form button[type=submit]")
    old_tab.wait_for_url(re.compile(r"/play/\d+/$"))
    game = Game.objects.get()
    assert game.game == "ataxx" and game.user0 is None and game.guest0_key


def test_a_guest_is_offered_no_correspondence_field_and_a_player_is_at_both_sizes(
    new_context, login_session, user_factory
):
    # Before, a guest could pick "3 days per move" for a game they could not come back to.
    guest = new_context().new_page()
    player = new_context(session_cookie=login_session(user_factory("alice"))).new_page()
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        for page in (guest, player):
            page.set_viewport_size(viewport)
            page.goto("/")
            page.select_option("#id_opponent", "link")  # a game between people: where the field would be
        expect(guest.locator('[data-field="clock"]')).to_be_visible()  # the live clock, as for everyone
        expect(guest.locator('[data-field="days"]')).to_have_count(0)
        expect(guest.locator('[name="days"]')).to_have_count(0)
        days = player.locator("#id_days")
        expect(days).to_be_visible()
        expect(days.locator('option[value="3"]')).to_have_text("3 days per move")
        assert guest.evaluate("document.documentElement.scrollWidth") <= viewport["width"], size
        screenshot(guest, f"home-guest-no-days-{size}")
