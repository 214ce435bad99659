"""The site works in Chromium under its own strict Content-Security-Policy (issue #24, item 7).

Every browser test fails at teardown when the policy refused anything
(conftest.py's ``new_context``); these visit what the others do not (the admin,
the rules diagrams) and prove the watch itself catches a refusal.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.engines import ENGINES
from tests.browser.pages import in_thread
from tests.browser.test_player_issues import _human_game

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _wait_for(page, violations: list[str]) -> None:
    for _ in range(100):
        if violations:
            return
        page.wait_for_timeout(50)


def test_a_style_or_script_slipped_into_a_page_is_refused_and_reported(new_context, csp_violations):
    page = new_context().new_page()
    page.goto("/")
    page.evaluate("""() => {
      document.body.setAttribute("style", "color: rgb(255, 0, 0)");
      const script = document.createElement("script");
      script.textContent = "window.__injected = true";
      document.head.append(script);
    }""")
    _wait_for(page, csp_violations)
    assert page.evaluate("() => getComputedStyle(document.body).color") != "rgb(255, 0, 0)"
    assert page.evaluate("() => window.__injected") is None
    refused = "\n".join(csp_violations)
    assert "style-src" in refused and "script-src" in refused, refused
    csp_violations.clear()  # seen: this test's teardown has nothing left to fail on


def test_a_staff_member_works_in_the_admin_under_the_policy(new_context, user_factory, login_session):
    root = user_factory("root", is_staff=True, is_superuser=True)
    user_factory("alice")
    page = new_context(session_cookie=login_session(root)).new_page()
    page.goto("/admin/")
    expect(page.locator("#site-name")).to_be_visible()
    page.goto("/admin/accounts/user/")
    page.fill("#searchbar", "ali")
    page.press("#searchbar", "Enter")
    expect(page.locator("#result_list")).to_contain_text("alice")
    page.click("#result_list a:text('alice')")
    expect(page.locator("#id_username")).to_have_value("alice")
    page.goto("/admin/accounts/user/add/")
    expect(page.locator("#id_password1")).to_be_visible()


def test_the_rules_diagrams_and_avatars_keep_their_colours_and_sizes(
    new_context, user_factory, login_session
):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = _human_game(alice, bob, "reversi")
    in_thread(services.resign, game_id=game.pk, identity=Identity(user=bob, guest=None))
    page = new_context(session_cookie=login_session(alice)).new_page()
    for slug in ENGINES:
        page.goto(f"/rules/{slug}/")
        expect(page.locator(".diagram").first).to_be_visible()
    page.goto("/rules/four_tac_toe/")
    first_line = page.locator(".diagram-svg .path-stroke.line-0").first
    assert first_line.evaluate("(el) => getComputedStyle(el).stroke") == "rgb(215, 38, 61)"  # the seed's red
    three_wide = page.locator('.diagram[data-cols="3"]').first
    assert three_wide.evaluate("(el) => getComputedStyle(el).maxWidth") == "174px"  # 3 x 58px

    page.goto("/history/")
    initial = page.locator(".avatar-initial").first
    expect(initial).to_have_text("B")
    assert initial.evaluate("(el) => [el.offsetWidth, el.offsetHeight]") == [20, 20]
