"""The new-game form's clocks in a browser: a Fischer preset fills in the fields, the game shows "5+3"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Move
from tests.browser.pages import READY, click_move, snapshot, wait_my_turn_or_over

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_player_picks_the_5_plus_3_preset_and_the_computer_game_runs_with_the_increment(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.click('.game-card[data-game="reversi"]')
    page.select_option("#id_opponent", "computer")
    page.select_option("#id_side", "0")
    presets = page.locator(".clock-presets")
    expect(presets).to_be_visible()  # shown by home.js; hidden without scripts
    presets.get_by_role("button", name="5+3").click()
    assert page.input_value("#id_minutes") == "5" and page.input_value("#id_increment") == "3"
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url("**/play/*/")
    page.wait_for_function(READY)
    expect(page.locator(".play-title .time-control")).to_have_text("5+3")
    assert snapshot(page)["clock"]["increment_ms"] == 3000
    click_move(page, "reversi", "d3")
    page.wait_for_function("() => window.__game.snapshot.ply >= 2")  # the computer has answered
    state = wait_my_turn_or_over(page)
    first = Move.objects.get(game_id=state["id"], ply=0)
    assert first.clock_left_ms == 300_000 - first.time_used_ms + 3_000


def test_an_untimed_game_has_no_increment_to_choose(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.select_option("#id_opponent", "computer")
    page.select_option("#id_minutes", "0")
    expect(page.locator("#id_increment")).to_be_disabled()
    page.select_option("#id_minutes", "3")
    expect(page.locator("#id_increment")).to_be_enabled()


def test_a_player_sets_up_a_casual_game_and_its_page_says_casual(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.select_option("#id_opponent", "computer")
    expect(page.locator('[data-field="rated"]')).to_be_hidden()  # the computer's games are never rated
    page.select_option("#id_opponent", "link")
    page.select_option("#id_rated", "casual")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url("**/play/*/")
    page.wait_for_function(READY)
    expect(page.locator(".play-title .casual-tag")).to_have_text("casual")
    assert snapshot(page)["casual"] is True
