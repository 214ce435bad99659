"""Quick game: two registered players press the same button on the home page and land in the same game.

Live pools and correspondence pools (days per move; that seek waits while the player is away).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from games.models import Game, Seek
from games.services import pairing
from tests.browser.conftest import screenshot
from tests.browser.pages import NOTIFY_OPEN, READY, in_thread

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def press_and_wait(page, button: str) -> None:
    """Press a quick-game button and wait for the server's answer to the seek.

    The page says "Waiting for an opponent" at once, before its request arrives: a second
    player pressing next might otherwise reach the server first (and take the first seat), and a
    page left at once might never send it."""
    with page.expect_response(lambda response: response.url.endswith("/quick/seek/")):
        page.click(button)


def test_two_players_pressing_the_same_quick_game_button_play_each_other(
    new_context, login_session, user_factory
):
    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob = new_context(session_cookie=login_session(bob_user)).new_page()
    for page in (alice, bob):
        page.goto("/")
    button = '[data-quick-game="ataxx"][data-quick-minutes="3"][data-quick-increment="2"]'
    press_and_wait(alice, button)
    expect(alice.locator("#quick-waiting")).to_be_visible()
    expect(alice.locator("#quick-waiting-text")).to_contain_text("3+2")
    bob.click(button)
    for page in (alice, bob):
        page.wait_for_url("**/play/*/")
        page.wait_for_function(READY)
    assert alice.url == bob.url
    assert (
        alice.evaluate("window.__game.you") == 0 and bob.evaluate("window.__game.you") == 1
    )  # alice waited longer
    expect(alice.locator(".play-title .time-control")).to_have_text("3+2")
    expect(alice.locator(".play-title .casual-tag")).to_have_count(0)  # nobody asked for casual


def test_a_player_asking_for_casual_lands_in_a_casual_game_with_the_pool_s_increment(
    new_context, login_session, user_factory
):
    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob = new_context(session_cookie=login_session(bob_user)).new_page()
    for page in (alice, bob):
        page.goto("/")
    button = '[data-quick-game="reversi"][data-quick-minutes="10"][data-quick-increment="5"]'
    expect(alice.locator(button)).to_have_text("10+5")
    alice.check("#quick-casual")
    press_and_wait(alice, button)
    expect(alice.locator("#quick-waiting-text")).to_contain_text("10+5, casual")
    expect(alice.locator(button)).to_have_attribute("aria-pressed", "true")
    bob.click(button)  # bob did not ask for casual: "rated unless either asks for casual"
    for page in (alice, bob):
        page.wait_for_url("**/play/*/")
        page.wait_for_function(READY)
        expect(page.locator(".play-title .time-control")).to_have_text("10+5")
        expect(page.locator(".play-title .casual-tag")).to_be_visible()
    assert bob.evaluate("window.__game.snapshot.casual") is True


def test_stop_waiting_means_nobody_is_paired_with_you(new_context, login_session, user_factory):
    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob = new_context(session_cookie=login_session(bob_user)).new_page()
    alice.goto("/")
    bob.goto("/")
    button = '[data-quick-game="reversi"][data-quick-minutes="1"][data-quick-increment="0"]'
    press_and_wait(alice, button)
    expect(alice.locator("#quick-waiting")).to_be_visible()
    alice.click("#quick-cancel")
    expect(alice.locator("#quick-waiting")).to_be_hidden()
    alice.wait_for_timeout(300)  # the cancel's request on its way
    bob.click(button)
    expect(bob.locator("#quick-waiting")).to_be_visible()
    bob.wait_for_timeout(1000)
    assert "/play/" not in bob.url and "/play/" not in alice.url


def test_a_correspondence_seek_waits_while_alice_is_away_and_both_land_in_the_three_day_game(
    new_context, login_session, user_factory
):
    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob = new_context(session_cookie=login_session(bob_user)).new_page()
    alice.goto("/")
    button = '[data-quick-game="reversi"][data-quick-days="3"]'
    expect(alice.locator(button)).to_have_text("3 days")
    press_and_wait(alice, button)
    expect(alice.locator("#quick-waiting-text")).to_contain_text(
        "Waiting for a correspondence game: Reversi, 3 days per move."
    )
    expect(alice.locator(button)).to_have_attribute("aria-pressed", "true")
    # She leaves for her settings, then comes back: still waiting, and the page says so.
    alice.goto("/settings/")
    alice.wait_for_timeout(500)  # her home page's socket has closed by now: a live seek would be gone
    alice.goto("/")
    expect(alice.locator("#quick-waiting")).to_be_visible()
    expect(alice.locator("#quick-waiting-text")).to_contain_text("Reversi, 3 days per move")
    expect(alice.locator(button)).to_have_attribute("aria-pressed", "true")
    screenshot(alice, "quick-correspondence-waiting")
    alice.wait_for_function(NOTIFY_OPEN)  # so that she hears the pairing
    bob.goto("/")
    expect(bob.locator("#quick-waiting")).to_be_hidden()
    bob.click(button)
    for page in (alice, bob):
        page.wait_for_url("**/play/*/")
        page.wait_for_function(READY)
        expect(page.locator(".play-title .time-control")).to_have_text("3 days")
    assert alice.url == bob.url
    assert alice.evaluate("window.__game.you") == 0  # she waited longer: she moves first
    expect(alice.locator("#deadline")).to_contain_text("Your move, by")
    expect(bob.locator("#deadline")).to_contain_text("alice must move by")


def test_paired_by_the_sweep_while_both_read_other_pages_each_gets_a_notice_linking_to_the_game(
    new_context, login_session, user_factory, redis_layer
):
    # redis_layer: the sweep runs in this process, and its notices must reach the site's sockets.
    from ratings.models import Rating

    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    in_thread(Rating.objects.create, user=bob_user, game="ataxx", value=1800, correspondence=True)
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob = new_context(session_cookie=login_session(bob_user)).new_page()
    button = '[data-quick-game="ataxx"][data-quick-days="7"]'
    for page in (alice, bob):
        page.goto("/")
        page.click(button)
        expect(page.locator("#quick-waiting-text")).to_contain_text("Ataxx, 7 days per move")
    # 300 apart: too far for now. Both go and read their settings.
    for page in (alice, bob):
        page.goto("/settings/")
        page.wait_for_function(NOTIFY_OPEN)  # a notice sent before the socket is open reaches no page
    assert in_thread(lambda: Seek.objects.filter(days_per_move=7).count()) == 2
    # A minute later the ranges have widened; the sweep pairs them.
    in_thread(lambda: Seek.objects.update(created_at=pairing.now() - timedelta(minutes=1)))
    in_thread(pairing.sweep)
    game = in_thread(lambda: Game.objects.get(days_per_move=7))
    # Alice waited longer: she moves first, and her notice says so. Bob's says the game has started.
    expect(alice.locator(f'[data-your-turn="{game.pk}"] a')).to_have_text("Your move against bob")
    started = bob.locator(f'[data-paired="{game.pk}"] a')
    expect(started).to_have_text("Your correspondence game against alice has started")
    expect(alice.locator(f'[data-paired="{game.pk}"]')).to_have_count(0)  # one notice for one game
    started.click()
    bob.wait_for_url(f"**/play/{game.pk}/")
    bob.wait_for_function(READY)
    expect(bob.locator(".play-title .time-control")).to_have_text("7 days")
    expect(bob.locator("#deadline")).to_contain_text("alice must move by")
