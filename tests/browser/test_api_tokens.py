"""A player makes an API token on the settings page: it is shown once, works, and is gone from the page after."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_token_made_on_the_settings_page_is_shown_once(
    new_context, login_session, user_factory, site_url, viewport
):
    player = user_factory(f"tokens_{viewport['width']}")
    page = new_context(viewport=viewport, session_cookie=login_session(player)).new_page()
    page.goto("/settings/")
    section = page.locator("#api-tokens")
    expect(section).to_contain_text("You have no API tokens.")
    section.get_by_label("Token name", exact=True).fill("my analysis script")
    section.get_by_role("button", name="Create a token").click()

    shown = page.locator("#new-api-token")
    expect(shown).to_be_visible()
    secret = shown.inner_text().strip()
    assert re.fullmatch(r"bgt_[A-Za-z0-9_-]{43}", secret)
    # The whole token is on screen, even on a phone: nothing runs off the right edge.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    request = urllib.request.Request(
        f"{site_url}/api/user/{player.username}", headers={"Authorization": f"Bearer {secret}"}
    )
    with urllib.request.urlopen(request, timeout=20) as answer:
        assert json.loads(answer.read())["username"] == player.username

    page.get_by_role("link", name="Back to settings").click()
    expect(section).to_contain_text("my analysis script")
    expect(section).to_contain_text(secret[:12])
    assert secret not in page.content()  # shown once: the settings page never shows it again
