"""The screen-reader mode as the browser tests drive it: switching it on, the log (#sr-output)
that is all a blind player reads, the text field and the board's table (shared by
test_screen_reader*.py and test_axe_sweep.py)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

GAMES = ["reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe"]
RESULT = re.compile(r"You won!|You lost\.|Draw\.")
# What the log says when the player is to move: "Your move." or Quantum's "Your move: a cycle closed…"
MY_TURN = re.compile(r"Your move[.:]")

# The site's pages other than boards, photographed as a player sees them (artifacts/screenshots/).
PHOTOGRAPHED_PAGES = ("/", "/history/", "/rankings/", "/rules/four_tac_toe/", "/settings/")

LOG = "#sr-output"
LAST_ENTRY = "#sr-output .sr-entry:last-child"


def switch_on_from_the_first_control(page) -> None:
    """Tab once from the top of the page and press Enter: the mode is on, the page reloads."""
    page.goto("/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.srToggle") == "off"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("[data-sr-toggle]")).to_have_attribute("data-sr-toggle", "on")
    if page.evaluate("document.documentElement.lang") == "en":
        expect(page.locator("[data-sr-toggle]")).to_have_text("Leave the screen-reader mode")


def said(page) -> int:
    """How many entries the log has said so far (they are numbered; old ones are dropped)."""
    return page.evaluate(
        "() => Number(document.querySelector('#sr-output .sr-entry:last-child')?.dataset.n || 0)"
    )


def heard_since(page, after: int) -> list[str]:
    """The log's entries said after the ``after``-th."""
    return page.evaluate(
        """(after) => [...document.querySelectorAll('#sr-output .sr-entry')]
          .filter((e) => Number(e.dataset.n) > after).map((e) => e.textContent)""",
        after,
    )


def wait_for_log(page, pattern: re.Pattern, after: int, timeout: float = 60_000) -> str:
    """The first entry said after the ``after``-th that matches ``pattern`` (the log is all we read)."""
    page.wait_for_function(
        """([after, source]) => {
          const re = new RegExp(source);
          return [...document.querySelectorAll('#sr-output .sr-entry')]
            .some((e) => Number(e.dataset.n) > after && re.test(e.textContent));
        }""",
        arg=[after, pattern.pattern],
        timeout=timeout,
    )
    return next(text for text in heard_since(page, after) if pattern.search(text))


def type_only(page, text: str) -> None:
    """Type a line whose answer is not the log's but the page's (a dialog, an announcement)."""
    page.focus("#sr-input")
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def type_line(page, text: str) -> str:
    """Type into the text field and press Enter; returns the log's answer to it."""
    before = said(page)
    page.focus("#sr-input")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    # The first answer after what was typed (news from the game may arrive in between).
    return page.wait_for_function(
        """(before) => [...document.querySelectorAll('#sr-output .sr-reply')]
          .find((e) => Number(e.dataset.n) > before)?.textContent""",
        arg=before,
    ).json_value()


def focused(page) -> str:
    """What a screen reader reads for the focused element: its text, less what is aria-hidden."""
    return page.evaluate(
        """() => {
          const copy = document.activeElement.cloneNode(true);
          copy.querySelectorAll('[aria-hidden=true]').forEach((node) => node.remove());
          return copy.textContent;
        }"""
    )


def to_the_board(page) -> None:
    """The skip link (the second control of the page) lands on the board's table."""
    page.focus("[data-sr-toggle]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the board"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.closest('table[role=grid]') !== null")


def press_cells(page, cells: list[str]) -> None:
    """Jump to each cell by its letter and digit (or Quantum's digit) and press Enter on it."""
    for cell in cells:
        for key in cell:
            page.keyboard.press(key)
        assert focused(page).startswith(f"{cell}," if cell[0].isalpha() else f"square {cell},"), focused(page)
        page.keyboard.press("Enter")


def cells_of(game: str, move: str) -> list[str]:
    if game == "quantum_ttt":
        return [move.lstrip("@")] if move.startswith("@") or "-" not in move else move.split("-")
    if game == "ataxx" and len(move) == 4:
        return [move[:2], move[2:]]
    return [move]


def legal_moves(page) -> list[str]:
    answer = type_line(page, "legal")
    found = re.fullmatch(r"Legal moves: (.+)\.", answer)
    assert found, answer
    return found[1].split(", ")


def choose(game: str, moves: list[str]) -> str:
    if game == "ataxx":
        # Clones add a piece, so the board fills and the game ends sooner.
        return next((m for m in moves if len(m) == 2), moves[0])
    return moves[0]
