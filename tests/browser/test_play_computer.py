"""A guest plays each of the five games against the computer, to the end, by clicking."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, screenshot
from tests.browser.pages import open_replay, play_move, snapshot, start_game_from_home, wait_my_turn_or_over

pytestmark = [
    pytest.mark.heavy,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]

GAMES = ["reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"]


@pytest.mark.parametrize("game", GAMES)
def test_a_guest_plays_a_whole_game_against_the_computer(new_context, game):
    page = new_context().new_page()
    start_game_from_home(page, game, opponent="computer", level="easy", clock="untimed", side="0")
    state = snapshot(page)
    assert (
        state["kind"] == "computer"
        and state["status"] == "active"
        and page.evaluate("window.__game.you") == 0
    )
    expect(page.locator("#status")).to_have_text("Your move.")

    moves = 0
    while True:
        state = wait_my_turn_or_over(page)
        if state["status"] != "active":
            break
        # The first legal move, read from the page's own state and played by clicking.
        play_move(page, game, state["position"]["legal_moves"][0])
        moves += 1
        if moves == 3:
            screenshot(page, f"{game}-desktop")
        assert moves < 200, "the game should have ended"

    result = page.locator("#result")
    expect(result).to_be_visible()
    expect(result).to_contain_text(("You won!", "You lost.", "Draw.")[_outcome(state)])
    assert state["result"]["reason"] in (
        "board_full",
        "no_moves",
        "wipeout",
        "line",
        "all_boards_decided",
        "count",
    )
    expect(page.locator("#after-game")).to_be_visible()
    expect(page.locator('[data-action="resign"]')).to_be_hidden()
    screenshot(page, f"{game}-finished-desktop")
    page.set_viewport_size(PHONE)
    # Nothing may stick out sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, f"{game}-phone")


def _outcome(state) -> int:
    winner = state["result"]["winner"]
    return 2 if winner is None else (0 if winner == 0 else 1)


@pytest.mark.page_only
def test_a_finished_game_can_be_replayed_move_by_move(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "quantum_ttt", opponent="computer", clock="untimed", side="0")
    while (state := wait_my_turn_or_over(page))["status"] == "active":
        play_move(page, "quantum_ttt", state["position"]["legal_moves"][0])
    open_replay(page, state["id"])
    total = len(state["moves"])
    assert page.evaluate("window.__replay.ply") == total
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("window.__replay.ply") == total - 1
    page.click("[data-step='first']")
    assert page.evaluate("window.__replay.ply") == 0
    assert page.locator(".mark").count() == 0  # the empty start position
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.__replay.snapshot.last_move") == state["moves"][0]
    expect(page.locator("a[href$='/record.txt']")).to_be_visible()
    screenshot(page, "replay-desktop")


@pytest.mark.page_only
def test_the_home_page_and_the_rules_pages_fit_a_phone(new_context):
    page = new_context(viewport=PHONE).new_page()
    page.goto("/")
    expect(page.locator(".game-card")).to_have_count(5)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "home-phone")
    for game in GAMES:
        expect(page.locator(f'.game-card[data-game="{game}"] .game-card-rules')).to_have_attribute(
            "href", f"/rules/{game}/"
        )
    for game in GAMES:
        page.goto(f"/rules/{game}/")
        expect(page.locator(".rules .diagram").first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        screenshot(page, f"rules-{game}-phone")
