"""Two registered players set up and play a correspondence game (3 days per move) in two browsers."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot
from tests.browser.pages import READY, click_move, snapshot

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_alice_invites_bob_to_three_days_per_move_and_each_sees_whose_move_it_is(
    new_context, user_factory, login_session
):
    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob = new_context(session_cookie=login_session(bob_user)).new_page()

    # Alice picks Reversi, a direct invitation to Bob, and 3 days per move: the live clock steps aside.
    alice.goto("/")
    alice.click('.game-card[data-game="reversi"]')
    alice.select_option("#id_opponent", "direct")
    alice.fill("#id_invitee", "bob")
    expect(alice.locator('[data-field="clock"]')).to_be_visible()
    alice.select_option("#id_days", "3")
    expect(alice.locator('[data-field="clock"]')).to_be_hidden()
    alice.select_option("#id_side", "0")
    alice.click("#new-game-form button[type=submit]")
    alice.wait_for_url("**/play/*/")
    expect(alice.locator(".play-title .time-control")).to_have_text("3 days")

    bob.goto("/")
    invitation = bob.locator("#invitations li[data-game-id]")
    expect(invitation).to_contain_text("alice")
    invitation.locator("button", has_text="Accept").click()
    bob.wait_for_url("**/play/*/")
    bob.wait_for_function(READY)
    alice.wait_for_function("() => window.__game.snapshot.status === 'active'")

    # Alice's deadline is three days away; the clocks count days.
    expect(alice.locator("#deadline")).to_contain_text("Your move, by")
    expect(alice.locator("#deadline")).to_contain_text("2 days left")
    expect(alice.locator('.player[data-side="0"] .clock')).to_have_text("2 d 23 h")
    expect(bob.locator("#deadline")).to_contain_text("alice must move by")
    screenshot(alice, "correspondence-deadline-desktop")

    click_move(alice, "reversi", "d3")
    bob.wait_for_function("() => window.__game.snapshot.ply >= 1")
    expect(bob.locator("#deadline")).to_contain_text("Your move, by")
    game_id = snapshot(bob)["id"]

    # Alice goes to the home page; Bob's reply reaches her there as a notice, and her header counts it.
    alice.goto("/")
    expect(alice.locator("#your-move li.muted")).to_have_text("No game is waiting for your move.")
    expect(alice.locator('[data-nav="your-move"]')).to_be_hidden()
    click_move(bob, "reversi", "c5")
    notice = alice.locator(f'[data-your-turn="{game_id}"] a')
    expect(notice).to_have_text("Your move against bob")
    expect(alice.locator('[data-nav="your-move"] .badge')).to_have_text("1")
    alice.reload()
    row = alice.locator(f'#your-move li[data-game-id="{game_id}"]')
    expect(row).to_contain_text("3 days")
    expect(row).to_contain_text("move by")
    notice = alice.locator('[data-nav="your-move"]')
    expect(notice).to_be_visible()
    row.locator("a").click()
    alice.wait_for_url(f"**/play/{game_id}/")
    alice.wait_for_function(READY)
    click_move(alice, "reversi", "e6")
    bob.wait_for_function("() => window.__game.snapshot.ply >= 3")
    expect(bob.locator("#deadline")).to_contain_text("Your move, by")
