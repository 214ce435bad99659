"""Two people in two browsers: an invite link, a draw by agreement, a resignation,
and a game that survives one player closing and reopening the page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot
from tests.browser.pages import READY, click_move, open_game, snapshot, start_game_from_home

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def invite_game(alice, bob) -> int:
    """Alice (black) sends an invite link, Bob opens it and joins; returns the game id."""
    start_game_from_home(alice, "reversi", opponent="link", clock="5+0", side="0")
    expect(alice.locator("#invite")).to_be_visible()
    expect(alice.locator("#status")).to_have_text("Waiting for an opponent to join.")
    alice.click("#copy-invite")
    expect(alice.locator("#status")).to_have_text("Invite link copied.")
    url = alice.input_value("#invite-url")
    bob.goto(url)
    bob.click(".join button[type=submit]")
    bob.wait_for_url("**/play/*/")
    bob.wait_for_function(READY)
    alice.wait_for_function("() => window.__game.snapshot.status === 'active'")
    expect(alice.locator("#invite")).to_be_hidden()
    assert alice.evaluate("window.__game.you") == 0 and bob.evaluate("window.__game.you") == 1
    return snapshot(alice)["id"]


def wait_ply(page, ply: int) -> None:
    page.wait_for_function(f"() => window.__game.snapshot.ply >= {ply}")


def test_a_draw_offered_by_one_player_and_accepted_by_the_other(new_context):
    alice, bob = new_context().new_page(), new_context().new_page()
    invite_game(alice, bob)
    click_move(alice, "reversi", "d3")
    wait_ply(bob, 1)
    expect(bob.locator("#status")).to_contain_text("played d3")
    expect(bob.locator("#move-list li.last")).to_have_text("d3")
    # No clock runs until each side has moved (docs/decisions.md); then the mover's runs, on both
    # screens, counted down locally between messages.
    expect(alice.locator(".clock.running")).to_have_count(0)
    click_move(bob, "reversi", "c5")
    wait_ply(alice, 2)
    clock = bob.locator('.player[data-side="0"] .clock')
    expect(clock).to_have_class("clock running")
    before = clock.text_content()
    bob.wait_for_timeout(1200)
    assert (
        clock.text_content() != before
        and bob.locator('.player[data-side="1"] .clock').text_content() == "5:00"
    )

    bob.click('[data-action="offer_draw"]')
    expect(bob.locator("#draw-pending")).to_be_visible()
    expect(alice.locator('[data-action="accept_draw"]')).to_be_visible()
    expect(alice.locator("#status")).to_contain_text("offers a draw")
    screenshot(alice, "reversi-draw-offer-desktop")
    alice.click('[data-action="accept_draw"]')

    for page in (alice, bob):
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#result")).to_have_attribute("data-reason", "draw_agreed")
        expect(page.locator("#result")).to_contain_text("Draw.")
        expect(page.locator('[data-action="offer_draw"]')).to_be_hidden()


def test_resigning_asks_first_and_ends_the_game_for_both(new_context):
    alice, bob = new_context().new_page(), new_context().new_page()
    invite_game(alice, bob)
    click_move(alice, "reversi", "d3")
    wait_ply(bob, 1)

    alice.click('[data-action="resign"]')
    dialog = alice.locator("#confirm-resign")
    expect(dialog).to_be_visible()
    dialog.locator('button[value="cancel"]').click()  # changed her mind: nothing happens
    expect(dialog).to_be_hidden()
    assert snapshot(alice)["status"] == "active"

    alice.click('[data-action="resign"]')
    dialog.locator('button[value="confirm"]').click()
    expect(alice.locator("#result")).to_contain_text("You lost.")
    expect(bob.locator("#result")).to_contain_text("You won!")
    expect(bob.locator("#result")).to_have_attribute("data-reason", "resign")
    expect(bob.locator("#result")).to_have_attribute("data-outcome", "win")


def test_closing_the_page_is_not_a_loss_and_the_game_continues_after_reopening(new_context):
    alice = new_context().new_page()
    bob_context = new_context()
    bob = bob_context.new_page()
    game_id = invite_game(alice, bob)
    click_move(alice, "reversi", "d3")
    wait_ply(bob, 1)

    bob.close()
    opponent = alice.locator('.player[data-side="1"] .presence')
    expect(opponent).to_have_text("disconnected")
    expect(alice.locator("#status")).to_contain_text("disconnected")
    assert snapshot(alice)["status"] == "active"

    bob = bob_context.new_page()  # same browser session: still the same player
    open_game(bob, f"/play/{game_id}/")
    expect(opponent).to_have_text("")
    state = snapshot(bob)
    assert state["ply"] == 1 and state["position"]["to_move"] == 1 and bob.evaluate("window.__game.you") == 1
    move = state["position"]["legal_moves"][0]
    click_move(bob, "reversi", move)
    wait_ply(alice, 2)
    expect(alice.locator("#move-list li.last")).to_have_text(move)
    expect(alice.locator("#status")).to_contain_text("Your move.")
