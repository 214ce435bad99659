"""A player switches the site to Hindi, Bengali or Greek with the header's selector."""

from __future__ import annotations

import pytest
from django.utils import translation
from playwright.sync_api import expect

from tests.browser.pages import start_game_from_home
from tests.test_i18n import LOCALE, po_entries

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


def _js(lang: str, text: str) -> str:
    """A translation from the JavaScript catalogue (djangojs), which Python's gettext does not read."""
    path = LOCALE / lang / "LC_MESSAGES" / "djangojs.po"
    return next(e["msgstr"].get("msgstr", "") for e in po_entries(path) if e["msgid"] == text)


def _t(text: str, lang: str) -> str:
    with translation.override(lang):
        return translation.gettext(text)


@pytest.mark.parametrize("lang", ["hi", "bn", "el"])
def test_the_language_switcher_translates_navigation_and_the_board(new_context, lang):
    page = new_context().new_page()
    page.goto("/")
    with page.expect_navigation():
        page.select_option("#lang-select", lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    nav = page.locator("nav.nav")
    expect(nav).to_contain_text(_t("Play", lang))
    expect(nav).to_contain_text(_t("Log in", lang))
    start_game_from_home(page, "reversi", opponent="computer", level="easy", clock="untimed", side="0")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    # Rendered by the template...
    expect(page.locator("[data-action=resign]")).to_have_text(_t("Resign", lang))
    # ...and by the board's JavaScript through the translated catalogue.
    your_move = _js(lang, "Your move.")
    assert your_move and your_move != "Your move."
    expect(page.locator("#status")).to_have_text(your_move)
