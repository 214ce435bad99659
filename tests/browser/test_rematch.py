"""A rematch in two browsers: offered after the game, accepted, both pages move to the new game, colours swapped."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.pages import READY, snapshot
from tests.browser.test_two_players import invite_game

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def resign(page) -> None:
    page.click('[data-action="resign"]')
    page.locator('#confirm-resign button[value="confirm"]').click()


def test_a_rematch_offered_and_accepted_takes_both_players_to_the_new_game(new_context):
    alice, bob = new_context().new_page(), new_context().new_page()
    first_id = invite_game(alice, bob)
    expect(alice.locator('[data-action="rematch"]')).to_be_hidden()  # not while the game runs
    resign(bob)
    expect(alice.locator("#result")).to_contain_text("You won!")

    bob.click('[data-action="rematch"]')
    expect(bob.locator("#rematch-pending")).to_be_visible()
    expect(bob.locator('[data-action="cancel_rematch"]')).to_be_visible()
    expect(alice.locator("#status")).to_contain_text("offers a rematch")
    expect(alice.locator('[data-action="decline_rematch"]')).to_be_visible()
    alice.click('[data-action="accept_rematch"]')

    for page in (alice, bob):
        page.wait_for_url(lambda url: f"/play/{first_id}/" not in url and "/play/" in url)
        page.wait_for_function(READY)
    new = snapshot(alice)
    assert new["id"] != first_id and new["status"] == "active" and new["id"] == snapshot(bob)["id"]
    # Colours swapped: alice played first before, bob now.
    assert alice.evaluate("window.__game.you") == 1 and bob.evaluate("window.__game.you") == 0


def test_a_declined_rematch_is_said_and_the_offer_button_returns(new_context):
    alice, bob = new_context().new_page(), new_context().new_page()
    invite_game(alice, bob)
    resign(alice)
    alice.click('[data-action="rematch"]')
    bob.click('[data-action="decline_rematch"]')
    expect(alice.locator("#status")).to_contain_text("The rematch was declined.")
    expect(alice.locator('[data-action="rematch"]')).to_be_visible()
    expect(alice.locator("#rematch-pending")).to_be_hidden()
