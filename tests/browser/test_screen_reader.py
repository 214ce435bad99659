"""The screen-reader mode (issue #27), as a blind player meets it: the first control of
the page switches it on; the board is a table to move over with the keyboard; moves and
commands are typed; and everything the game says arrives in one live log.

The whole games here are played with the keyboard and the text field alone, and decided
by reading only the log (#sr-output): never the page's state, never a mouse click."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, screenshot
from tests.browser.pages import (
    READY,
    open_replay,
    start_game_from_home,
)
from tests.browser.screen_reader import (
    LAST_ENTRY,
    MY_TURN,
    RESULT,
    focused,
    heard_since,
    press_cells,
    said,
    switch_on_from_the_first_control,
    to_the_board,
    type_line,
    type_only,
    wait_for_log,
)

pytestmark = [
    pytest.mark.heavy,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


def test_the_table_is_walked_with_arrows_home_end_pages_and_jumps(new_context):
    page = new_context().new_page()
    switch_on_from_the_first_control(page)
    start_game_from_home(page, "reversi", opponent="computer", level="easy", clock="untimed", side="0")
    grid = page.locator("table[role=grid]")
    expect(grid).to_have_attribute("aria-label", "Reversi board")
    expect(grid.locator("[role=row]")).to_have_count(8)
    expect(grid.locator("[role=gridcell]")).to_have_count(64)
    # The picture is for sighted helpers: hidden from the screen reader, out of the Tab order.
    assert page.get_attribute(".board-svg", "aria-hidden") == "true"
    to_the_board(page)
    assert focused(page) == "e5, White disc"  # the cursor starts in the centre
    for key, label in (
        ("ArrowUp", "e4, Black disc"),
        ("ArrowLeft", "d4, White disc"),
        ("Home", "a4, empty"),
        ("End", "h4, empty"),
        ("PageUp", "h1, empty"),
        ("PageDown", "h8, empty"),
        ("Control+Home", "a1, empty"),
        ("Control+End", "h8, empty"),
        ("c", "c8, empty"),
        ("3", "c3, empty"),
    ):
        page.keyboard.press(key)
        assert focused(page) == label, key
    # Only the focused cell is in the Tab order, so Tab leaves the board at once.
    assert grid.locator("td[tabindex='0']").count() == 1
    entries = said(page)
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")  # c1, then the edge
    assert focused(page) == "c1, empty"
    expect(page.locator(LAST_ENTRY)).to_have_text("Edge of the board.")
    page.keyboard.press("j")  # no j-file on Reversi's board
    expect(page.locator(LAST_ENTRY)).to_have_text("There is no column j.")
    assert said(page) == entries + 2
    # The arrow keys on the table move over it; they do not step back through the game.
    page.keyboard.press("3")
    page.keyboard.press("Enter")  # c3 is not legal at the start: the server says so, nothing changes
    wait_for_log(page, re.compile(r"^That move is not legal here\.$"), entries)
    wait_for_log(page, re.compile(r"^Your move c3 was not played\.$"), entries)
    assert focused(page) == "c3, empty"
    entries = said(page)
    page.keyboard.press("d")
    page.keyboard.press("Enter")  # d3 is
    wait_for_log(page, MY_TURN, entries)
    heard = " ".join(heard_since(page, entries))
    reply = re.search(r"Guest \d{4} played d3\..*Computer \(Easy\) played (\w\d)\. Your move\.", heard)
    assert reply, heard
    assert focused(page) == "d3, Black disc"  # the cell under the focus tells its news
    # The computer's reply (seeded by the game's id) may be c3, which makes b3 a legal move.
    row = type_line(page, "row 3")
    assert row.startswith("Row 3: a3, empty; b3, empty") and "d3, Black disc" in row, row
    assert type_line(page, "column d").startswith("Column d: d1, empty; d2, empty; d3, Black disc")
    assert type_line(page, "last") == f"Last move: {reply[1]}."
    board = page.locator(LAST_ENTRY)
    type_line(page, "board")
    expect(board.locator("p")).to_have_count(8)
    assert type_line(page, "row 12") == "There is no row 12."
    entries = said(page)
    assert type_line(page, "hello") == "Sending hello."
    wait_for_log(page, re.compile("^That move is not legal here"), entries)
    assert type_line(page, "clock") == "This game has no clock."
    assert type_line(page, "help").startswith(
        "Commands: help, board, row, column, last, moves, legal, clock, resign, draw."
    )
    type_only(page, "resign")
    expect(page.locator("#confirm-resign")).to_be_visible()  # asks first, as the button does
    page.keyboard.press("Enter")  # the dialog's first button keeps playing
    expect(page.locator("#confirm-resign")).to_be_hidden()
    screenshot(page, "screen-reader-reversi-commands-desktop")


@pytest.mark.page_only
def test_a_late_first_state_from_the_socket_is_not_said_again(new_context):
    """The page says "Your move." when it loads; the socket's first state says the same a moment
    later. However late that state comes (a busy server), the log says it once: a second
    "Your move." would be heard as news, and would land between whatever the player does next."""
    page = new_context().new_page()
    switch_on_from_the_first_control(page)
    held: list = []  # [the route's socket, the state it holds back]

    def hold_the_first_state(ws) -> None:
        server = ws.connect_to_server()

        def from_server(message) -> None:
            frame = json.loads(message) if isinstance(message, str) else {}
            if frame.get("type") == "state" and not held:
                held.extend([ws, message])
                return
            ws.send(message)

        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/game/\d+/"), hold_the_first_state)
    start_game_from_home(page, "reversi", opponent="computer", level="easy", clock="untimed", side="0")
    wait_for_log(page, MY_TURN, 0)  # said by the page as it loaded
    deadline = time.monotonic() + 20
    while not held:
        assert time.monotonic() < deadline, "the socket never sent its state"
        page.wait_for_timeout(50)
    page.wait_for_timeout(1_200)  # later than the log's one-second window for a line seen twice
    page.evaluate("() => { window.__shown = window.__game.snapshot; }")
    ws, state = held
    ws.send(state)
    page.wait_for_function("() => window.__game.snapshot !== window.__shown")  # the state has arrived
    page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 100))")  # and the log's observer ran
    assert [text for text in heard_since(page, 0) if MY_TURN.search(text)] == ["Your move."]


@pytest.mark.page_only
def test_ataxx_quantum_and_four_tac_toe_read_as_text(new_context, user_factory, login_session):
    # A registered player: four games against the computer at once are more than a guest's two.
    page = new_context(session_cookie=login_session(user_factory("sam"))).new_page()
    switch_on_from_the_first_control(page)

    start_game_from_home(page, "ataxx", opponent="computer", level="easy", clock="untimed", side="0")
    to_the_board(page)
    press_cells(page, ["a7"])  # picking up a piece is said, with where it may go
    expect(page.locator(LAST_ENTRY)).to_have_text(
        "a7, Black piece, selectedClone to: a6, b6, b7.Jump to: a5, b5, c5, c6, c7."
    )
    page.keyboard.press("Escape")

    start_game_from_home(page, "quantum_ttt", opponent="computer", level="easy", clock="untimed", side="0")
    wait_for_log(page, MY_TURN, 0)
    assert type_line(page, "5 1") == "Sending 1-5."  # written either way round
    wait_for_log(page, MY_TURN, said(page) - 1)
    type_line(page, "board")
    text = page.locator(LAST_ENTRY).text_content()
    assert "square 1, spooky marks X1" in text and "square 5, spooky marks X1" in text
    assert "Move 1 (X) is spooky: square 1 or square 5." in text
    assert "Move 2 (O) is spooky: square" in text
    assert type_line(page, "row 4") == "There is no row 4."

    start_game_from_home(page, "four_tac_toe", opponent="computer", level="easy", clock="untimed", side="0")
    type_line(page, "lines a1")
    entry = page.locator(LAST_ENTRY)
    expect(entry.locator("p").first).to_have_text(
        re.compile(r"^\d+ lines through a1 that X can still complete$")
    )
    expect(entry.locator("p").nth(1)).to_have_text(re.compile(r"(^|–)a1(–|$)"))
    assert type_line(page, "row 5").startswith("Row 5: a5, left board, empty, legal move;")
    assert "e5, centre board, closed to both players" in type_line(page, "row 5")
    type_line(page, "board")
    expect(entry).to_contain_text("X has completed no line yet.")

    start_game_from_home(page, "ultimate_ttt", opponent="computer", level="easy", clock="untimed", side="0")
    type_line(page, "board")
    expect(page.locator(LAST_ENTRY)).to_contain_text("The next move goes in: any board.")


def test_an_opponents_move_offers_and_the_result_arrive_in_the_log(new_context, user_factory, login_session):
    alice_user, bob_user = user_factory("alice"), user_factory("bob")
    alice = new_context(session_cookie=login_session(alice_user)).new_page()
    bob = new_context(viewport=PHONE, session_cookie=login_session(bob_user)).new_page()
    for page in (alice, bob):
        switch_on_from_the_first_control(page)
    # The setting is on the account: a fresh browser of Alice's has it too.
    elsewhere = new_context(session_cookie=login_session(alice_user)).new_page()
    elsewhere.goto("/")
    expect(elsewhere.locator("[data-sr-toggle]")).to_have_text("Leave the screen-reader mode")

    start_game_from_home(alice, "reversi", opponent="link", clock="5+0", side="0")
    url = alice.input_value("#invite-url")
    bob.goto(url)
    bob.focus(".join button[type=submit]")
    with bob.expect_navigation():
        bob.keyboard.press("Enter")
    bob.wait_for_function(READY)
    wait_for_log(alice, re.compile("The game has started. Your move."), 0)

    heard = said(bob)
    type_line(alice, "d3")
    assert wait_for_log(bob, MY_TURN, heard) == "alice played d3. Your move."
    assert re.fullmatch(r"alice: \d:\d\d left\.bob: \d:\d\d left\.", type_line(bob, "clock"))

    heard = said(alice)
    type_only(bob, "draw")  # an offer
    assert (
        wait_for_log(alice, re.compile("offers a draw"), heard)
        == "bob offers a draw. Waiting for bob to move."
    )
    heard = said(bob)
    type_only(alice, "draw")  # accepting it
    assert wait_for_log(bob, RESULT, heard) == "Draw. The players agreed to a draw."
    wait_for_log(alice, RESULT, 0)
    screenshot(bob, "screen-reader-reversi-draw-phone")
    assert type_line(alice, "draw") == "That is not possible now."


@pytest.mark.page_only
def test_the_replay_and_the_analysis_board_in_the_mode(new_context):
    page = new_context(viewport=PHONE).new_page()
    switch_on_from_the_first_control(page)
    start_game_from_home(page, "ultimate_ttt", opponent="computer", level="easy", clock="untimed", side="0")
    type_line(page, "e5")
    wait_for_log(page, MY_TURN, 1)
    game_id = page.url.rstrip("/").split("/")[-1]
    open_replay(page, int(game_id))
    expect(page.locator("table[role=grid]")).to_have_attribute("aria-label", "Ultimate Tic-Tac-Toe board")
    assert type_line(page, "start") == "Move 0 of 2"
    assert type_line(page, "next") == "Move 1 of 2: e5."
    assert type_line(page, "row 5").startswith("Row 5: a5, left board, empty")
    assert "e5, centre board, X" in type_line(page, "row 5")
    assert type_line(page, "e5") == "e5 is not a command here. Type help for the list."
    page.focus("#sr-input")
    page.keyboard.press("Tab")  # out of the field: the arrow keys step through the game
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowRight")
    expect(page.locator(LAST_ENTRY)).to_have_text(re.compile(r"^Move 2 of 2: \w\d\.$"))
    screenshot(page, "screen-reader-replay-phone")

    page.goto("/analysis/reversi/")
    page.wait_for_function("() => window.__board !== undefined")
    to_the_board(page)
    press_cells(page, ["d3"])
    expect(page.locator(LAST_ENTRY)).to_have_text("Played d3. White to move.")
    assert type_line(page, "c3") == "Sending c3."
    expect(page.locator(LAST_ENTRY)).to_have_text("Played c3. Black to move.")
    assert type_line(page, "moves") == "Moves: 1. d3, 2. c3."
    assert type_line(page, "back") == "Taken back.White to move."
    type_only(page, "evaluate")  # the answer is the evaluation, when it comes
    wait_for_log(page, re.compile("Winning chances for Black: \\d+ %"), 0)
    screenshot(page, "screen-reader-analysis-board-phone")


@pytest.mark.page_only
@pytest.mark.parametrize(
    "lang, words", [("el", ("ρολόι", "σειρά 3")), ("hi", ("घड़ी", "पंक्ति 3")), ("bn", ("ঘড়ি", "সারি 3"))]
)
def test_the_command_words_are_translated_and_english_still_works(new_context, lang, words):
    page = new_context(locale=lang).new_page()  # the browser asks for the language, as a person's would
    switch_on_from_the_first_control(page)
    assert page.evaluate("document.documentElement.lang") == lang
    start_game_from_home(page, "reversi", opponent="computer", level="easy", clock="5+0", side="0")
    clock, row = words
    translated_answer = type_line(page, clock)
    english_answer = type_line(page, "clock")  # the English word means the same (the clock runs meanwhile)
    assert re.sub(r"\d", "#", english_answer) == re.sub(r"\d", "#", translated_answer)
    assert "left" not in translated_answer and ":" in translated_answer
    assert type_line(page, row) == type_line(page, "row 3")
    assert type_line(page, "row 3").count(";") == 7
