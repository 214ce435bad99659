"""The tab says when the game waits for you (title and icon), and a notification does while it is hidden."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.pages import click_move
from tests.browser.test_two_players import invite_game, wait_ply

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

# A page whose visibility the test sets, and a Notification API that records
# what would be shown (headless Chromium shows none) and when permission was asked.
FAKE_BROWSER = """
Object.defineProperty(document, "hidden", { get: () => window.__hidden === true });
window.__asked = 0;
window.__shown = [];
class FakeNotification {
  static permission = "default";
  static async requestPermission() { window.__asked += 1; FakeNotification.permission = "granted"; return "granted"; }
  constructor(title, options) { window.__shown.push({ title, tag: options.tag }); }
  close() {}
}
window.Notification = FakeNotification;
"""


def test_the_tab_title_and_icon_show_your_move_and_a_hidden_tab_notifies(new_context):
    alice = new_context().new_page()
    bob_context = new_context()
    bob_context.add_init_script(FAKE_BROWSER)
    bob = bob_context.new_page()
    invite_game(alice, bob)

    expect(alice).to_have_title("(Your move) Reversi · Five Boards")
    expect(bob).to_have_title("Reversi · Five Boards")
    assert "favicon-turn" not in bob.get_attribute('link[rel="icon"]', "href")
    assert bob.evaluate("window.__asked") == 0  # never asked on load

    bob.check("#notify-toggle")
    assert bob.evaluate("window.__asked") == 1
    bob.evaluate("window.__hidden = true")  # bob looks at another tab
    click_move(alice, "reversi", "d3")
    wait_ply(bob, 1)
    expect(bob).to_have_title("(Your move) Reversi · Five Boards")
    assert "/favicon-turn." in bob.get_attribute('link[rel="icon"]', "href")
    expect(alice).to_have_title("Reversi · Five Boards")
    shown = bob.evaluate("window.__shown")
    assert [n["title"] for n in shown] == ["Your move"]

    # An offer from the opponent is something to answer too.
    alice.click('[data-action="offer_draw"]')
    expect(bob).to_have_title("(Draw offered) Reversi · Five Boards")
    assert [n["title"] for n in bob.evaluate("window.__shown")] == ["Your move", "Draw offered"]


@pytest.mark.page_only
def test_no_notification_unless_the_player_switched_it_on(new_context):
    alice = new_context().new_page()
    bob_context = new_context()
    bob_context.add_init_script(FAKE_BROWSER)
    bob = bob_context.new_page()
    invite_game(alice, bob)
    bob.evaluate("window.__hidden = true")
    click_move(alice, "reversi", "d3")
    wait_ply(bob, 1)
    expect(bob).to_have_title("(Your move) Reversi · Five Boards")
    assert bob.evaluate("window.__shown") == [] and bob.evaluate("window.__asked") == 0
