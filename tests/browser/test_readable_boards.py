"""Boards anyone can read (issue #27): coordinates, a phone layout with the clocks
in sight, looking back during a game, a flip button, shipped Indic fonts and drawn
step icons, Four Tac Toe's closed centre, Quantum's collapse in the status line,
guests and open challenges, redo's announcement, the small labels, and a move
that is shown as pending and sent again until its ack arrives.

Every board is photographed at 1280 px and at 360x740 (artifacts/screenshots/). The
axe-core sweep of every page, both views and both sizes, is test_screen_reader.py's
(``axe_violations`` is here, shared)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.browser.pages import (
    READY,
    click_move,
    open_game,
    open_replay,
    snapshot,
    start_game_from_home,
    wait_my_turn_or_over,
)

pytestmark = [
    pytest.mark.heavy,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]

GAMES = ["reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"]
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"


def axe_violations(page) -> list[str]:
    """Serious and critical axe-core findings on the page as it is now.

    Evaluated through the DevTools protocol, which the page's CSP does not govern:
    an injected <script> tag would be refused (and fail the test's CSP check).
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text() + "\n;0")
    results = page.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations"
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results
        if v["impact"] in ("serious", "critical")
    ]


def cell_box(page, token: str) -> dict:
    return page.locator(f'[data-cell="{token}"]').bounding_box()


@pytest.mark.page_only
def test_every_board_names_its_squares_and_turns_round_at_both_sizes(
    new_context, user_factory, login_session
):
    # A registered player: five games against the computer at once are more than a guest's two.
    page = new_context(session_cookie=login_session(user_factory("rita"))).new_page()
    # The text under each board (files) and beside it (ranks), as a player reads them.
    expected = {
        "reversi": ("abcdefgh", [str(n) for n in range(1, 9)]),
        "ataxx": ("abcdefg", [str(n) for n in range(7, 0, -1)]),
        "ultimate_ttt": ("abcdefghi", [str(n) for n in range(9, 0, -1)]),
        "four_tac_toe": ("abcdefghi", [str(n) for n in range(9, 0, -1)]),
    }
    for game in GAMES:
        page.set_viewport_size(DESKTOP)
        start_game_from_home(page, game, opponent="computer", clock="5+0", side="0")
        if game in expected:
            files, ranks = expected[game]
            assert "".join(page.locator(".coord-file").all_text_contents()) == files
            assert page.locator(".coord-rank").all_text_contents() == ranks
        else:  # Quantum's squares are numbered in reading order, each in its corner
            assert page.locator(".coord-square").all_text_contents() == [str(n) for n in range(1, 10)]
        # The text labels sit where their cells are: "e" under the e-file, the first rank beside row one.
        first, last = (
            ("a1", "h8") if game == "reversi" else (("1", "9") if game == "quantum_ttt" else ("a1", None))
        )
        if last is None:
            last = {"ataxx": "g7", "ultimate_ttt": "i9", "four_tac_toe": "i9"}[game]
        before = cell_box(page, first), cell_box(page, last)
        assert page.locator(".board-svg text.coord").first.is_visible()
        for size, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
            page.set_viewport_size(size)
            screenshot(page, f"board-{game}-{name}")
            assert axe_violations(page) == [], (game, name)
        page.set_viewport_size(DESKTOP)

        # Flipped: the same cells swap ends, and the board says it is turned.
        page.click("#flip-board")
        expect(page.locator("#flip-board")).to_have_attribute("aria-pressed", "true")
        after = cell_box(page, first), cell_box(page, last)
        assert (after[0]["x"] - after[1]["x"]) * (before[0]["x"] - before[1]["x"]) < 0
        assert (after[0]["y"] - after[1]["y"]) * (before[0]["y"] - before[1]["y"]) <= 0
        if game == "reversi":
            # The keyboard follows what the eye sees: "up" on a turned board is towards rank 8.
            page.focus(".board-svg")
            page.keyboard.press("ArrowUp")
            assert page.get_attribute(".board-svg", "aria-activedescendant").endswith("-e6")
        screenshot(page, f"board-{game}-flipped-desktop")
        page.click("#flip-board")
        expect(page.locator("#flip-board")).to_have_attribute("aria-pressed", "false")


@pytest.mark.page_only
def test_on_a_phone_the_clocks_status_and_buttons_are_in_sight_with_the_board(
    new_context, user_factory, login_session
):
    alice = user_factory("alice")
    page = new_context(viewport=PHONE, session_cookie=login_session(alice)).new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="5+0", side="0")
    header = page.locator(".site-header").bounding_box()
    assert header["height"] <= 48, header  # one line, not three
    board = page.locator(".board-svg").bounding_box()
    for selector in (
        '.player[data-side="0"] .clock',
        '.player[data-side="1"] .clock',
        "#status",
        '[data-action="resign"]',
    ):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (
            selector,
            box,
        )
    assert (
        page.locator("#status").bounding_box()["y"] < board["y"]
    )  # the clocks and "Your move" above the board
    assert board["y"] + board["height"] <= PHONE["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "play-layout-phone")

    page.click('[data-action="resign"]')
    page.click('#confirm-resign button[value="confirm"]')
    page.wait_for_function("() => window.__game.snapshot.status !== 'active'")
    page.goto("/history/")
    expect(page.locator("table.history")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "history-phone")


def test_a_player_looks_back_through_a_live_game_and_returns_to_it(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="untimed", side="0")
    # Wait for the computer's reply, not only for "my turn": a loaded machine can leave the
    # page on the turn before the click for a moment (a rehearsal read ply 3 here).
    click_move(page, "reversi", "d3")
    page.wait_for_function("() => window.__game.snapshot.ply >= 2")
    wait_my_turn_or_over(page)
    reply = snapshot(page)["moves"][1]
    click_move(page, "reversi", snapshot(page)["position"]["legal_moves"][0])
    page.wait_for_function("() => window.__game.snapshot.ply >= 4")
    state = wait_my_turn_or_over(page)
    assert state["ply"] == 4

    # A click on the first move shows the board after it: d3 black, the reply's square still empty.
    page.locator("#move-list li button").first.click()
    page.wait_for_function("() => window.__game.viewPly === 1")
    expect(page.locator("#history-note")).to_contain_text("move 1 of 4")
    expect(page.locator('[data-cell="d3"]')).to_have_attribute("aria-label", "d3, Black disc")
    expect(page.locator(f'[data-cell="{reply}"]')).to_have_attribute(
        "aria-label", re.compile(f"^{reply}, empty")
    )
    expect(page.locator("#move-list li.viewed")).to_have_text("d3")
    screenshot(page, "reversi-look-back-desktop")

    # The arrow keys step (outside the board, whose cursor they move).
    page.locator("#history-note").click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => window.__game.viewPly === 0")
    expect(page.locator('[data-cell="d3"]')).to_have_attribute("aria-label", re.compile("^d3, empty"))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.__game.viewPly === 2")
    expect(page.locator(f'[data-cell="{reply}"]')).to_have_attribute(
        "aria-label", re.compile(f"^{reply}, White")
    )

    # A click on the old board is not a move: it returns to the live position.
    page.click('[data-cell="a1"]')
    page.wait_for_function("() => window.__game.viewPly === null")
    expect(page.locator("#status")).to_have_text(
        "You were looking at an earlier position: this is the live one."
    )
    assert snapshot(page)["ply"] == 4
    page.click('[data-step="prev"]')
    page.wait_for_function("() => window.__game.viewPly === 3")
    page.click('[data-step="last"]')
    page.wait_for_function("() => window.__game.viewPly === null")
    expect(page.locator("#history-note")).to_be_hidden()


@pytest.mark.page_only
def test_the_replay_draws_its_step_icons_and_hindi_and_bengali_come_with_their_fonts(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "ataxx", opponent="computer", clock="untimed", side="0")
    game_id = snapshot(page)["id"]
    click_move(page, "ataxx", "b6")
    wait_my_turn_or_over(page)
    open_replay(page, game_id)
    for step in ("first", "prev", "next", "last"):
        button = page.locator(f'.replay-controls [data-step="{step}"]')
        expect(button.locator("svg.icon")).to_have_count(1)
        assert button.text_content().strip() == ""  # no ⏮ ⏭ glyph a font may lack
        assert button.get_attribute("aria-label")
    page.click('.replay-controls [data-step="first"]')
    page.wait_for_function("() => window.__replay.ply === 0")
    screenshot(page, "ataxx-replay-desktop")

    for lang, font, sample in (("hi", "Five Boards Devanagari", "खेलें"), ("bn", "Five Boards Bengali", "খেলুন")):
        page.goto("/")
        page.select_option("#lang-select", lang)
        page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
        loaded = page.evaluate(
            'async ([font, sample]) => (await document.fonts.load(`16px "${font}"`, sample)).length',
            [font, sample],
        )
        assert loaded == 1, lang
        assert page.evaluate(
            '([font, sample]) => document.fonts.check(`16px "${font}"`, sample)', [font, sample]
        )
        screenshot(page, f"home-{lang}-desktop")
    page.goto("/")
    page.select_option("#lang-select", "en")
    page.wait_for_function("() => document.documentElement.lang === 'en'")


@pytest.mark.page_only
def test_four_tac_toes_closed_centre_is_no_mark_and_a_tap_leaves_no_lines_behind(new_context):
    page = new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    start_game_from_home(page, "four_tac_toe", opponent="computer", clock="5+0", side="0")
    # e5 is drawn as a "no entry" sign, not as the X that player X plays.
    assert page.locator(".layer-pieces .mark-x").count() == 0
    expect(page.locator(".layer-pieces .closed-sign")).to_have_count(2)
    assert page.get_attribute('[data-cell="e5"]', "aria-label") == "e5, centre board, closed to both players"
    # A tap plays and leaves no hover help behind: neither the tapped cell's lines
    # nor (on the next tap, with the board focused) those of the cell tapped before.
    for ply in (1, 3):
        token = (
            "a1" if ply == 1 else next(t for t in snapshot(page)["position"]["legal_moves"] if t[0] in "ghi")
        )
        page.tap(f'[data-cell="{token}"]')
        page.wait_for_function(f"() => window.__game.snapshot.ply >= {ply}")
        wait_my_turn_or_over(page)
        expect(page.locator(".live-line")).to_have_count(0)
        expect(page.locator(".legend-summary")).to_have_count(0)
    screenshot(page, "four_tac_toe-after-tap-phone")
    # The rules page draws it the same way.
    page.goto("/rules/four_tac_toe/")
    expect(page.locator(".diagram-svg").first.locator(".closed-sign")).to_have_count(2)
    expect(page.locator(".diagram-svg .closed-x")).to_have_count(0)
    screenshot(page, "four_tac_toe-rules-phone")


def invite(alice, bob, game: str) -> int:
    start_game_from_home(alice, game, opponent="link", clock="5+0", side="0")
    bob.goto(alice.input_value("#invite-url"))
    bob.click(".join button[type=submit]")
    bob.wait_for_url("**/play/*/")
    bob.wait_for_function(READY)
    alice.wait_for_function("() => window.__game.snapshot.status === 'active'")
    return snapshot(alice)["id"]


@pytest.mark.page_only
def test_quantum_says_in_the_status_line_where_a_collapse_must_settle_and_spectators_get_their_own_help(
    new_context,
):
    alice, bob = new_context().new_page(), new_context(viewport=PHONE).new_page()
    game_id = invite(alice, bob, "quantum_ttt")
    click_move(alice, "quantum_ttt", "1-2")
    bob.wait_for_function("() => window.__game.snapshot.ply === 1")
    click_move(bob, "quantum_ttt", "1-2")  # closes a cycle: X (alice) chooses where O's move 2 settles
    alice.wait_for_function("() => window.__game.snapshot.position.pending_cycle !== null")
    expect(alice.locator("#status")).to_contain_text(
        "Your move: a cycle closed. Choose where move 2 settles: tap square 1 or 2."
    )
    expect(bob.locator("#status")).to_contain_text("chooses where move 2 settles: square 1 or 2.")
    screenshot(alice, "quantum_ttt-collapse-desktop")
    screenshot(bob, "quantum_ttt-collapse-waiting-phone")

    # A spectator (a third browser) is told how to look back, not "Click or tap a square to play".
    watcher = new_context().new_page()
    open_game(watcher, f"/play/{game_id}/")
    expect(watcher.locator('[data-help="spectator"]')).to_be_visible()
    expect(watcher.locator('[data-help="player"]')).to_be_hidden()
    expect(watcher.locator(".you-tag:visible")).to_have_count(0)
    # Players see their own name tagged with a word, not an unexplained star.
    expect(alice.locator('.player[data-side="0"] .you-tag')).to_have_text("you")
    expect(alice.locator('.player[data-side="1"] .you-tag')).to_be_hidden()
    click_move(alice, "quantum_ttt", "@1")
    watcher.wait_for_function("() => window.__game.snapshot.ply === 3")
    # The collapse is said in words, with who chose it, not as the "@1" token.
    chooser = snapshot(watcher)["players"][0]["name"]
    expect(watcher.locator("#status")).to_contain_text(f"{chooser} chose square 1 for the collapse.")
    expect(watcher.locator("#status")).not_to_contain_text("@1")


@pytest.mark.page_only
def test_a_guest_is_told_to_log_in_before_taking_an_open_challenge(new_context, user_factory, login_session):
    alice = user_factory("alice")
    alice_page = new_context(session_cookie=login_session(alice)).new_page()
    start_game_from_home(alice_page, "ataxx", opponent="lobby", clock="3+0")
    guest = new_context().new_page()
    guest.goto("/")
    challenge = guest.locator("#challenges li[data-game-id]")
    expect(challenge).to_contain_text("alice")
    expect(challenge.locator("button")).to_have_count(0)
    link = challenge.locator("a.login-to-take")
    expect(link).to_have_text("Log in to take")
    link.click()
    guest.wait_for_url("**/accounts/login/**")
    assert "next=/" in guest.url
    screenshot(guest, "guest-login-to-take-desktop")


@pytest.mark.page_only
def test_redo_names_the_moves_played_again_and_credits_nobody_wrongly(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="untimed", side="0")
    click_move(page, "reversi", "d3")
    state = wait_my_turn_or_over(page)
    reply = state["moves"][1]
    page.click('[data-action="undo"]')
    page.wait_for_function("() => window.__game.snapshot.ply === 0")
    page.click('[data-action="redo"]')
    page.wait_for_function("() => window.__game.snapshot.ply === 2")
    status = page.locator("#status")
    expect(status).to_contain_text(f"Moves played again: d3, {reply}.")
    assert "played e3" not in status.text_content() and f"played {reply}" not in status.text_content()


@pytest.mark.page_only
def test_the_skip_link_leads_to_the_board_and_the_analysis_board_gives_chances_in_percent(new_context):
    page = new_context().new_page()
    start_game_from_home(page, "reversi", opponent="computer", clock="untimed", side="0")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Screen-reader mode"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the board"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.classList.contains('board-svg')")

    page.goto("/analysis/reversi/")
    page.click("#evaluate")
    evaluation = page.locator("#evaluation")
    expect(evaluation).to_contain_text("Winning chances for Black:", timeout=30_000)
    text = evaluation.text_content()
    assert re.search(r"Winning chances for Black: (\d{1,3}) %", text), text
    assert int(re.search(r"Black: (\d{1,3}) %", text).group(1)) <= 100 and "-0." not in text


DROP_NEXT_MOVE = """
window.__dropped = [];
const realSend = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  const message = JSON.parse(data);
  if (window.__dropNextMove && message.type === "move") {
    window.__dropNextMove = false;
    window.__dropped.push(message);
    return; // lost on the way: the server never sees it
  }
  return realSend.call(this, data);
};
"""


def test_a_lost_move_stays_pending_on_the_board_and_is_sent_again_with_its_id(new_context):
    context = new_context(viewport=PHONE)
    context.add_init_script(DROP_NEXT_MOVE)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    start_game_from_home(page, "four_tac_toe", opponent="computer", clock="1+0", side="0")
    page.evaluate("window.__dropNextMove = true")
    page.click('[data-cell="a1"]')
    expect(page.locator('[data-cell="a1"].pending')).to_have_count(1)
    # Words come when the ack is late (first "sending", then "sent again").
    expect(page.locator("#move-note")).to_have_text(
        re.compile(r"^(Sending your move a1…|Your move a1 is slow to arrive: it was sent again\.)$")
    )
    screenshot(page, "four_tac_toe-pending-move-phone")
    # No ack: the same message goes again and the move is played once.
    page.wait_for_function("() => window.__game.snapshot.ply >= 1")
    dropped = page.evaluate("window.__dropped")
    assert len(dropped) == 1 and dropped[0]["move"] == "a1"
    assert any(f"move a1 (id {dropped[0]['id']}): no ack after" in text for text in console), console
    state = wait_my_turn_or_over(page)
    assert state["moves"][0] == "a1" and state["moves"].count("a1") == 1
    expect(page.locator(".hit.pending")).to_have_count(0)
    expect(page.locator("#move-note")).to_be_hidden()

    # A refused move is logged and noted, and the board is left as it was.
    page.click('[data-cell="e5"]')
    expect(page.locator("#move-note")).to_have_text("Your move e5 was not played.")
    assert any("move e5" in text and "refused" in text for text in console), console
    assert snapshot(page)["ply"] == state["ply"]
