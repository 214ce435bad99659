"""Whole games in the screen-reader mode, one per game, played with the keyboard and the text
field alone and decided by reading only the log (#sr-output): never the page's state, never a
mouse click. (Apart from test_screen_reader.py so that the suite's processes share them: each is
a whole game against the computer.)

Three games are played on a phone's screen and two on a computer's; each finished game is then
checked at the other size too. The keys, the text field and the log are the same at both sizes,
and a whole game costs the suite seconds of CPU (issue #39): the mode's pages are also swept by
axe-core at both sizes in every game (test_axe_sweep.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.browser.pages import (
    start_game_from_home,
)
from tests.browser.screen_reader import (
    GAMES,
    MY_TURN,
    RESULT,
    cells_of,
    choose,
    heard_since,
    legal_moves,
    press_cells,
    said,
    switch_on_from_the_first_control,
    to_the_board,
    type_line,
    wait_for_log,
)

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.heavy,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


# The 9x9 boards and Othello's on the phone, where they are the tightest; Ataxx and Quantum on a computer.
SIZE_PLAYED = {
    "reversi": "phone",
    "ataxx": "desktop",
    "ultimate_ttt": "phone",
    "quantum_ttt": "desktop",
    "four_tac_toe": "phone",
}
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}


@pytest.mark.parametrize(("game", "size"), [(game, SIZE_PLAYED[game]) for game in GAMES])
def test_a_whole_game_with_the_keyboard_and_the_text_field_reading_only_the_log(new_context, game, size):
    page = new_context(viewport=VIEWPORTS[size]).new_page()
    switch_on_from_the_first_control(page)
    start_game_from_home(page, game, opponent="computer", level="easy", clock="untimed", side="0")
    expect(page.locator("table.sr-grid[role=grid]")).to_be_visible()
    wait_for_log(page, MY_TURN, 0)
    turns = 0
    while True:
        moves = legal_moves(page)
        move = choose(game, moves)
        seen = said(page)
        if turns % 2 == 0:
            to_the_board(page)  # every other move with the board's keys
            press_cells(page, cells_of(game, move))
        else:
            assert type_line(page, move) == f"Sending {move}."
        if turns == 2:
            screenshot(page, f"screen-reader-{game}-playing-{size}")
        turns += 1
        assert turns < 200, "the game should have ended"
        news = wait_for_log(page, re.compile(f"{MY_TURN.pattern}|{RESULT.pattern}|Game over"), seen)
        # Moves are credited in the log ("Computer (Easy) played …"): the computer's reply is heard.
        assert "played" in " ".join(heard_since(page, seen)) or game == "quantum_ttt"
        if not MY_TURN.search(news):
            break
    result = wait_for_log(page, RESULT, seen)
    assert re.search(r"You won!|You lost\.|Draw\.", result)
    answer = type_line(page, "moves")
    assert answer.startswith("Moves: 1. ")
    # The finished game fits both sizes: the one it was played at, then the other.
    for shown in (size, *(other for other in VIEWPORTS if other != size)):
        page.set_viewport_size(VIEWPORTS[shown])
        expect(page.locator("table.sr-grid[role=grid]")).to_be_visible()
        screenshot(page, f"screen-reader-{game}-finished-{shown}")
        assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORTS[shown]["width"], shown
