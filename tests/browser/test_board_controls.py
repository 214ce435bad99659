"""The board's own controls: keyboard play, refusals, hints, sounds, undo/redo,
a new game, the reconnect banner, and the home page's live lists."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Preferences
from games.models import Game
from tests.browser.conftest import screenshot
from tests.browser.pages import READY, snapshot, start_game_from_home, wait_my_turn_or_over

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

# Records the sounds a page asks for instead of playing them (headless has no speakers).
RECORD_SOUNDS = """
window.__sounds = [];
window.Audio = class { constructor(url) { window.__sounds.push(url); } play() { return Promise.resolve(); } };
"""


@pytest.mark.page_only
def test_keyboard_play_refusals_hints_sounds_and_undo_redo(new_context):
    context = new_context()
    context.add_init_script(RECORD_SOUNDS)
    page = context.new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="untimed", side="0")
    expect(page.locator('[data-action="abort"]')).to_be_visible()
    expect(page.locator(".hint.on")).to_have_count(4)  # hints are on by default: d3, c4, f5, e6
    page.uncheck("#hints-toggle")
    expect(page.locator(".hint.on")).to_have_count(0)
    page.check("#hints-toggle")
    expect(page.locator(".hint.on")).to_have_count(4)
    assert page.get_attribute('[data-cell="d3"]', "aria-label") == "d3, empty, legal move"
    assert page.get_attribute('[data-cell="d4"]', "aria-label") == "d4, White disc"

    # The keyboard: the cursor starts on e5; up, up, left is d3; Enter plays it.
    page.focus(".board-svg")
    for key in ("ArrowUp", "ArrowUp", "ArrowLeft", "Enter"):
        page.keyboard.press(key)
    page.wait_for_function("() => window.__game.snapshot.ply >= 1")
    assert snapshot(page)["moves"][0] == "d3"
    state = wait_my_turn_or_over(page)
    assert state["ply"] == 2

    # An illegal click is refused by the server, whose message is shown.
    page.click('[data-cell="a1"]')
    expect(page.locator("#status")).to_have_text("That move is not legal here.")
    expect(page.locator("#status")).to_have_class("status error")
    assert snapshot(page)["ply"] == 2

    sounds = page.evaluate("window.__sounds")
    assert any("capture" in url for url in sounds), sounds  # d3 turns d4 over
    for url in set(sounds):
        assert page.request.get(url).ok

    page.click('[data-action="undo"]')
    page.wait_for_function("() => window.__game.snapshot.ply === 0")
    expect(page.locator('[data-action="redo"]')).to_be_visible()
    page.click('[data-action="redo"]')
    page.wait_for_function("() => window.__game.snapshot.ply === 2")
    expect(page.locator('[data-action="abort"]')).to_be_hidden()

    old_url = page.url
    page.click('[data-action="new_game"]')
    page.click('#confirm-new_game button[value="confirm"]')  # this game is still running
    page.wait_for_url(lambda url: url != old_url and "/play/" in url)
    page.wait_for_function(READY)
    assert snapshot(page)["ply"] in (0, 1)  # sides swapped: the computer may have opened


def test_a_dropped_connection_reconnects(new_context):
    # The banner waits 3 s (a moment's drop is not announced): tests/browser/test_live_clocks.py shows it.
    page = new_context().new_page()
    start_game_from_home(page, "ultimate_ttt", opponent="computer", clock="untimed", side="0")
    page.evaluate("window.__game.client.socket.close()")
    page.wait_for_function("() => document.querySelector('[data-play]').dataset.connection === 'lost'")
    page.wait_for_function(READY, timeout=10_000)
    expect(page.locator("#connection-banner")).to_be_hidden(timeout=10_000)
    page.click('[data-cell="e5"]')
    page.wait_for_function("() => window.__game.snapshot.ply >= 1")


def test_the_home_page_lists_challenges_and_invitations_live(new_context, user_factory, login_session):
    alice, bob = user_factory("alice"), user_factory("bob")
    alice_page = new_context(session_cookie=login_session(alice)).new_page()
    bob_page = new_context(session_cookie=login_session(bob)).new_page()
    with bob_page.expect_websocket(lambda ws: ws.url.endswith("/ws/notify/")):
        bob_page.goto("/")
    expect(bob_page.locator("#challenges")).to_contain_text("No open challenges")
    bob_page.wait_for_timeout(300)  # the socket's handshake: events before it would be missed

    start_game_from_home(alice_page, "ataxx", opponent="lobby", clock="3+0")
    challenge = bob_page.locator("#challenges li[data-game-id]")
    expect(challenge).to_contain_text("alice")
    expect(challenge.locator("button")).to_have_text("Take")

    alice_page.goto("/")
    alice_page.select_option("#id_opponent", "direct")
    alice_page.fill("#id_invitee", "bob")
    alice_page.click('.game-card[data-game="four_tac_toe"]')
    alice_page.click("#new-game-form button[type=submit]")
    alice_page.wait_for_url("**/play/*/")
    invitation = bob_page.locator("#invitations li")
    expect(invitation).to_contain_text("alice invites you to play Four Tac Toe")
    expect(bob_page.locator("#home-status")).to_contain_text("alice invited you")
    invitation.locator("button", has_text="Decline").click()
    bob_page.wait_for_url("**/")
    expect(bob_page.locator("#invitations-section")).to_be_hidden()

    bob_page.locator("#challenges li[data-game-id] button", has_text="Take").click()
    bob_page.wait_for_url("**/play/*/")
    bob_page.wait_for_function(READY)
    assert snapshot(bob_page)["status"] == "active" and snapshot(bob_page)["game"] == "ataxx"


@pytest.mark.page_only
def test_a_refused_new_game_shows_the_form_again_with_the_reason(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.select_option("#id_opponent", "lobby")  # guests cannot post open challenges
    page.click("#new-game-form button[type=submit]")
    expect(page.locator(".errorlist")).to_contain_text("Log in to post an open challenge.")
    expect(page.locator("#new-game-form")).to_be_visible()
    assert not Game.objects.exists()


@pytest.mark.page_only
def test_the_players_settings_take_effect_on_the_board(new_context, user_factory, login_session):
    carol = user_factory("carol")
    Preferences.objects.create(user=carol, theme="dark", palette="ocean", hints=False, sound=False)
    page = new_context(session_cookie=login_session(carol)).new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="untimed", side="0")
    assert page.get_attribute("html", "data-theme") == "dark"
    assert page.get_attribute("[data-play]", "data-palette") == "ocean"
    expect(page.locator("#hints-toggle")).not_to_be_checked()
    expect(page.locator("#sound-toggle")).not_to_be_checked()
    expect(page.locator(".hint.on")).to_have_count(0)
    # The palette reaches the SVG through CSS variables.
    fill = page.eval_on_selector(".cell-bg", "n => getComputedStyle(n).fill")
    assert fill == "rgb(31, 111, 139)"  # ocean's board colour
    screenshot(page, "reversi-dark-ocean-desktop")


@pytest.mark.page_only
@pytest.mark.parametrize(
    ("motion", "animations"), [("no-preference", {"placed", "flip"}), ("reduce", {"none"})]
)
def test_discs_turn_at_once_for_a_player_whose_system_asks_for_less_motion(new_context, motion, animations):
    """WCAG 2.3.3: with prefers-reduced-motion, a placed disc and the discs it turns over change without
    moving; without it they still pop in and flip."""
    page = new_context(reduced_motion=motion).new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="untimed", side="0")
    page.click('[data-cell="d3"]')  # places d3 and turns d4 over
    page.wait_for_function("() => document.querySelectorAll('.disc.flip').length > 0")
    shown = page.evaluate(
        "() => [...document.querySelectorAll('.disc.placed, .disc.flip')].map((d) => getComputedStyle(d).animationName)"
    )
    assert set(shown) == animations, shown
