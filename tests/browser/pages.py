"""What a player does on the pages, in Playwright terms (shared by the browser tests)."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.db import connection

READY = (
    "() => window.__game !== undefined && document.querySelector('[data-play]').dataset.connection === 'open'"
)
# The page's notification socket (/ws/notify/) is open: what it is sent from now on, it hears.
NOTIFY_OPEN = "() => document.documentElement.dataset.notifySocket === 'open'"
MY_TURN_OR_OVER = """() => {
  const g = window.__game, s = g.snapshot;
  return !g.busy && (s.status !== 'active' || s.position.to_move === g.you);
}"""


def in_thread(func, /, *args, **kwargs):
    """Call a service outside Playwright's thread: its running event loop forbids the broadcasts' async_to_sync."""

    def call():
        try:
            return func(*args, **kwargs)
        finally:
            connection.close()  # the pool thread's own connection

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def open_game(page, url: str) -> None:
    page.goto(url)
    page.wait_for_function(READY)


def open_replay(page, game_id: int) -> None:
    """Open a replay and wait for its module: the step buttons do nothing until it has loaded."""
    page.goto(f"/play/{game_id}/replay/")
    page.wait_for_function("() => window.__replay !== undefined")


def snapshot(page) -> dict[str, Any]:
    return page.evaluate("() => window.__game.snapshot")


def you(page) -> int | None:
    return page.evaluate("() => window.__game.you")


def start_game_from_home(
    page, game: str, *, opponent: str, level: str = "easy", clock: str = "5+0", side: str = "0"
) -> None:
    """Fill in "choose an opponent" like a person and wait for the board.

    ``clock``: a time control's button as the page shows it ("5+3"), or "untimed" (the computer's games)."""
    page.goto("/")
    page.click(f'.game-card[data-game="{game}"]')
    page.select_option("#id_opponent", opponent)
    if opponent == "computer":
        page.select_option("#id_level", level)
    page.click(f'.clock-choice[data-clock="{clock}"]')
    page.select_option("#id_side", side)
    with page.expect_navigation():
        page.click("#new-game-form button[type=submit]")
    if not re.search(r"/play/\d+/$", page.url):
        # Refused (the form again at /play/new/, e.g. a guest's computer-game limit): say why.
        errors = page.locator("#new-game-form .errorlist").all_inner_texts()
        raise AssertionError(f"the new game was refused: {errors}")
    page.wait_for_function(READY)


def resign(page) -> None:
    """Resign the game on the page as a player does (the button, then the confirmation) and wait for the end."""
    # The pointer leaves the board first, as a hand does: Four Tac Toe's hover help under
    # the board goes when it does, and would otherwise move the button between aiming and clicking.
    page.mouse.move(0, 0)
    page.click('[data-action="resign"]')
    page.locator('#confirm-resign button[value="confirm"]').click()
    page.wait_for_function("() => window.__game.snapshot.status !== 'active'")


def click_move(page, game: str, token: str) -> None:
    """Play ``token`` by clicking the board (and the collapse buttons) as a person would."""
    cell = '[data-cell="{}"]'.format
    if game == "ataxx" and len(token) == 4:
        page.click(cell(token[:2]))  # select the piece, then its jump target
        page.click(cell(token[2:]))
    elif game == "quantum_ttt" and token.startswith("@"):
        page.click(f'.choice-button[data-choice="{token}"]')
    elif game == "quantum_ttt" and "-" in token:
        first, second = token.split("-")
        page.click(cell(first))
        page.click(cell(second))
    else:
        page.click(cell(token))


def play_move(page, game: str, token: str) -> None:
    ply = snapshot(page)["ply"]
    click_move(page, game, token)
    page.wait_for_function(f"() => window.__game.snapshot.ply > {ply}")


def wait_my_turn_or_over(page, timeout: float = 30_000) -> dict[str, Any]:
    page.wait_for_function(MY_TURN_OR_OVER, timeout=timeout)
    return snapshot(page)


def box_of(locator, timeout: float = 20) -> dict[str, float]:
    """The element's box on the page, once it is drawn.

    ``bounding_box()`` answers None for an element not drawn at that instant, and the play page
    draws its board and buttons again on each state from the socket: asked right then, a test
    read None (seen with Quantum's collapse buttons under load)."""
    deadline = time.monotonic() + timeout
    while (box := locator.bounding_box()) is None:
        assert time.monotonic() < deadline, f"{locator} was never drawn"
        time.sleep(0.05)
    return box
