"""A page's scripts and styles come by hashed names, as production collects them: after a
release a browser never runs a new module with an old one it had cached (config/static_storage.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.pages import READY, start_game_from_home
from tests.browser.screen_reader import switch_on_from_the_first_control

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

HASHED = re.compile(r"\.[0-9a-f]{12}\.(js|css)$")


def test_every_module_and_stylesheet_a_game_page_loads_has_a_hashed_name(new_context):
    page = new_context().new_page()
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url.split("?")[0]))
    start_game_from_home(page, "reversi", opponent="computer", clock="5+0", side="0")
    game = page.url
    # The screen-reader view's module is imported only when the mode is on.
    switch_on_from_the_first_control(page)
    page.goto(game)
    page.wait_for_function(READY)
    expect(page.locator("#sr-panel")).to_be_visible()
    static = [url for url in fetched if "/static/" in url and url.endswith((".js", ".css"))]
    assert any("/play/play." in url for url in static) and any("screen-reader." in url for url in static)
    assert [url for url in static if not HASHED.search(url)] == []
