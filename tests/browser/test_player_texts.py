"""What the site tells a player, worded so they can act on it: invitations that say what the game is,
and a correspondence deadline written the same way, in the player's language, on every page."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import translation
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.deadline_text import short_month
from games.models import Game
from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.browser.pages import in_thread
from tests.test_i18n import LOCALE, po_entries

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _invite(alice, bob, **terms) -> Game:
    return in_thread(
        services.create_human_game,
        identity=Identity(user=alice, guest=None),
        game="ataxx",
        kind=Game.Kind.DIRECT,
        invited_user=bob,
        **terms,
    )


def test_two_invitations_from_one_player_can_be_told_apart_in_the_toast_and_on_the_home_page(
    new_context, user_factory, login_session, redis_layer
):
    alice, bob = user_factory("alice"), user_factory("bob")
    # Alice plays Black (side 0) in the first, White in the second: bob gets the other colour.
    blitz = _invite(alice, bob, side=0, minutes=5, increment=3)
    slow = _invite(alice, bob, side=1, days_per_move=3, casual=True)
    blitz_terms, slow_terms = "5+3, rated, you play White", "3 days, casual, you play Black"

    page = new_context(viewport=DESKTOP, session_cookie=login_session(bob)).new_page()
    page.goto("/history/")  # any page but the home page: invitations come as toasts
    expect(page.locator(f'.toast[data-invitation="{blitz.pk}"]')).to_contain_text(
        f"alice invites you to play Ataxx ({blitz_terms})"
    )
    expect(page.locator(f'.toast[data-invitation="{slow.pk}"]')).to_contain_text(
        f"alice invites you to play Ataxx ({slow_terms})"
    )

    phone = new_context(viewport=PHONE, session_cookie=login_session(bob)).new_page()
    with phone.expect_websocket(lambda ws: ws.url.endswith("/ws/notify/")):
        phone.goto("/")
    rows = phone.locator("#invitations li")
    expect(rows).to_have_count(2)  # rendered by the server
    expect(phone.locator(f'#invitations li[data-game-id="{blitz.pk}"]')).to_contain_text(blitz_terms)
    expect(phone.locator(f'#invitations li[data-game-id="{slow.pk}"]')).to_contain_text(slow_terms)
    phone.wait_for_timeout(500)  # the notification socket's handshake: an event before it would be missed
    third = _invite(alice, bob, side=0, minutes=1, increment=0)
    # A new invitation: home.js renders the whole list again from /lobby.json.
    expect(rows).to_have_count(3)
    for item, terms in ((blitz, blitz_terms), (slow, slow_terms), (third, "1+0, rated, you play White")):
        expect(phone.locator(f'#invitations li[data-game-id="{item.pk}"]')).to_contain_text(
            f"alice invites you to play Ataxx ({terms})"
        )
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(phone, "invitations-with-terms-phone")


def _local_when(moment: datetime, zone: str, lang: str) -> str:
    """The deadline as the pages must write it, in the reader's time zone and language."""
    local = moment.astimezone(ZoneInfo(zone))
    with translation.override(lang):
        return translation.gettext("%(day)s %(month)s %(year)s, %(time)s") % {
            "day": local.day,
            "month": short_month(local.month),
            "year": local.year,
            "time": f"{local.hour:02d}:{local.minute:02d}",
        }


def _js(lang: str, text: str) -> str:
    """A translation from the JavaScript catalogue (djangojs), which Python's gettext does not read."""
    if lang == "en":
        return text
    path = LOCALE / lang / "LC_MESSAGES" / "djangojs.po"
    return next(e["msgstr"]["msgstr"] for e in po_entries(path) if e["msgid"] == text and "msgctxt" not in e)


@pytest.mark.page_only
def test_the_deadline_reads_the_same_on_the_home_page_and_the_game_page_in_four_languages(
    new_context, user_factory, login_session, site_url
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = in_thread(
        services.create_human_game,
        identity=Identity(alice, None),
        game="reversi",
        kind=Game.Kind.INVITE_LINK,
        side=0,
        days_per_move=3,
    )
    in_thread(services.join_game, game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    game.refresh_from_db()
    zone = "Asia/Kolkata"  # not UTC: the pages write the reader's own time
    context = new_context(viewport=PHONE, session_cookie=login_session(alice), timezone_id=zone)
    page = context.new_page()
    for lang in ("en", "hi", "bn", "el"):
        context.add_cookies([{"name": "django_language", "value": lang, "url": site_url}])
        when = _local_when(game.deadline(), zone, lang)
        with translation.override(lang):
            left = translation.ngettext("%(count)s day left", "%(count)s days left", 2) % {"count": 2}
            home_line = translation.gettext("move by %(when)s (%(left)s)") % {"when": when, "left": left}
        game_line = _js(lang, "Your move, by %(when)s (%(left)s).") % {"when": when, "left": left}
        page.goto("/")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator(f'#your-move li[data-game-id="{game.pk}"] [data-deadline]')).to_have_text(
            home_line
        )
        page.goto(game.get_absolute_url())
        expect(page.locator("#deadline")).to_have_text(game_line)
    screenshot(page, "deadline-greek-phone")


@pytest.mark.page_only
def test_a_form_whose_csrf_cookie_is_gone_gets_the_site_s_page_in_greek_with_a_way_back(
    new_context, site_url
):
    context = new_context(viewport=PHONE)
    context.add_cookies([{"name": "django_language", "value": "el", "url": site_url}])
    page = context.new_page()
    page.goto("/")
    context.clear_cookies(name="csrftoken")  # as a browser that dropped the site's cookies
    page.click("#new-game-form button[type=submit]")
    with translation.override("el"):
        heading, back = (
            translation.gettext("This form has expired"),
            translation.gettext("Back to the previous page"),
        )
        brand = translation.gettext("Five Boards")
    expect(page.locator("h1")).to_have_text(heading)
    expect(page.locator(".site-header .brand")).to_have_text(brand)
    expect(page.locator("#lang-select")).to_be_visible()  # the full layout, language menu included
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "csrf-failure-greek-phone")
    page.locator("[data-way-back]", has_text=back).click()
    page.wait_for_url(f"{site_url}/")
    expect(page.locator("#new-game-form")).to_be_visible()
