"""axe-core over every page of the site, in the normal and the screen-reader view, at both
sizes, with every board photographed (SCREENSHOTS=1). One long test, in a file of its own so
that the suite's other processes share the rest of the browser tests meanwhile."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.browser.pages import (
    READY,
    click_move,
    open_replay,
    snapshot,
    start_game_from_home,
    wait_my_turn_or_over,
)
from tests.browser.screen_reader import (
    GAMES,
    PHOTOGRAPHED_PAGES,
    switch_on_from_the_first_control,
)
from tests.browser.test_readable_boards import axe_violations
from tests.games.test_analysis import finished_game

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.heavy,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


# Some 170 pages with axe-core on each: over 300 s (the suite's limit per test) when the heavy
# files all run at once on two cores, as `make test` starts them.
def differs_in_the_screen_reader_view(url: str) -> bool:
    """Whether the screen-reader view changes the page beyond the header's switch.

    It changes the game pages (the board's table, its panel) and the settings page (its switch);
    the header's switch is on every page, and the home page carries it for them all. Any other
    page is the same page in both views, so the sweep checks it once (issue #39: 38 fewer of its
    152 axe runs and 19 fewer page loads)."""
    return url in ("/", "/settings/") or url.startswith(("/play/", "/analysis/"))


@pytest.mark.timeout(900)
def test_every_page_passes_axe_in_both_views_and_every_board_is_photographed(
    new_context, user_factory, login_session
):
    """axe-core: no serious or critical violation on any page, in the normal view and, where it
    differs, the screen-reader view, at 1280 px and 360x740; each board is photographed in all
    four ways (artifacts/screenshots/).

    One test for the four ways: the games, the analysed game and the two browsers are set up once
    (four set-ups cost more than the sweeps). Each page is loaded at a phone's size and then
    widened: the other browser tests load their pages at 1280 px."""
    alice = user_factory("alice")
    user_factory("bob")
    page = new_context(session_cookie=login_session(alice)).new_page()
    games = {}
    for game in GAMES:
        # 30 minutes: the player's clock runs through the whole sweep and must not run out.
        start_game_from_home(page, game, opponent="computer", level="easy", clock="30+0", side="0")
        click_move(page, game, snapshot(page)["position"]["legal_moves"][0])
        page.wait_for_function("() => window.__game.snapshot.ply >= 1")
        wait_my_turn_or_over(page)
        games[game] = snapshot(page)["id"]
    # A finished game, analysed as a player asks for it: its replay carries the graph and the accuracy table.
    analysed = finished_game(user=alice).pk
    open_replay(page, analysed)
    page.click("#analyse")
    expect(page.locator("#analysis-status")).to_have_text("Analysis complete.", timeout=60_000)
    pages = [
        "/",
        *(f"/play/{games[game]}/" for game in GAMES),
        *(f"/play/{games[game]}/replay/" for game in GAMES),
        f"/play/{analysed}/replay/",
        *(f"/analysis/{game}/" for game in GAMES),
        *(f"/rules/{game}/" for game in GAMES),
        "/history/",
        "/rankings/",
        "/rankings/reversi/",
        "/settings/",
        "/players/alice/",
        "/players/bob/",
        "/profile/edit/",
        "/messages/",
        "/messages/sent/",
        "/messages/new/",
        "/watch/",
        "/tournaments/",
        "/bots/",
    ]
    guest_pages = ["/accounts/login/", "/accounts/signup/", "/settings/"]
    guest = new_context().new_page()
    problems = {}
    for view in ("normal", "screen-reader"):
        if view == "screen-reader":
            for browser_page in (page, guest):
                switch_on_from_the_first_control(browser_page)
        for browser_page, urls in ((page, pages), (guest, guest_pages)):
            if view == "screen-reader":
                urls = [url for url in urls if differs_in_the_screen_reader_view(url)]
            for url in urls:
                # Loaded at a phone's size, then widened to a laptop's, as a window is: the pages
                # follow a change of width themselves (CSS, and matchMedia where a script places
                # something), and loading each page twice cost the sweep a fifth of its time (#39).
                for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
                    browser_page.set_viewport_size(viewport)
                    if size == "phone":
                        browser_page.goto(url)
                        browser_page.wait_for_load_state("networkidle")
                        if "/play/" in url and "/replay/" not in url:
                            browser_page.wait_for_function(READY)
                    if url == f"/play/{analysed}/replay/":
                        expect(browser_page.locator("#analysis-summary")).to_be_visible()
                        screenshot(browser_page, f"replay-analysed-{view}-{size}")
                    if view == "screen-reader" and ("/play/" in url or "/analysis/" in url):
                        expect(browser_page.locator("table.sr-grid[role=grid]")).to_be_visible()
                        expect(browser_page.locator("#sr-panel")).to_be_visible()
                    if view == "normal" and browser_page is page and url in PHOTOGRAPHED_PAGES:
                        slug = url.strip("/").replace("/", "-") or "home"
                        screenshot(browser_page, f"page-{slug}-{size}")
                    for game in GAMES:
                        if url == f"/play/{games[game]}/":
                            screenshot(browser_page, f"board-{game}-{view}-{size}")
                        elif url.startswith(f"/play/{games[game]}/replay"):
                            screenshot(browser_page, f"replay-{game}-{view}-{size}")
                        elif url == f"/analysis/{game}/":
                            screenshot(browser_page, f"analysis-board-{game}-{view}-{size}")
                    found = axe_violations(browser_page)
                    if found:
                        problems[f"{url} {view} {size}"] = found
                    width = browser_page.evaluate("document.documentElement.scrollWidth")
                    assert width <= viewport["width"], f"{url} {view} {size}"
    assert problems == {}
