"""A 3,000-ply Ataxx replay: the page fetches its positions as the viewer steps (issue #38, 8)."""

from __future__ import annotations

import pytest

from games.engines import get
from games.engines.base import replay
from tests.browser.pages import open_replay
from tests.long_games import long_ataxx_game

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]

PLIES = 3000


def _pieces(position: dict) -> list[list[str | None]]:
    return [[cell["piece"] for cell in row] for row in position["cells"]]


def test_a_long_replay_steps_to_any_ply_and_shows_its_position(new_context):
    game = long_ataxx_game(PLIES)
    engine = get("ataxx")
    page = new_context().new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "positions.json" in request.url else None)
    open_replay(page, game.pk)
    assert page.evaluate("window.__replay.ply") == PLIES
    assert page.locator("#move-list li").count() == PLIES

    # Home: the first page is fetched, and the start position drawn.
    page.keyboard.press("Home")
    page.wait_for_function("() => window.__replay.ply === 0")
    assert _pieces(page.evaluate("window.__replay.snapshot.position")) == _pieces(
        engine.view(engine.initial())
    )
    assert page.locator("#replay-position").text_content() == f"Move 0 of {PLIES}"

    # A move in the middle of the list, then back one with the arrow key.
    page.locator('#move-list li[data-ply="1499"] button').click()
    page.wait_for_function("() => window.__replay.ply === 1500")
    middle = replay(engine, game.tokens[:1500])
    assert _pieces(page.evaluate("window.__replay.snapshot.position")) == _pieces(engine.view(middle))
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => window.__replay.ply === 1499")
    shown = page.evaluate("window.__replay.snapshot")
    assert shown["last_move"] == game.tokens[1498]
    assert _pieces(shown["position"]) == _pieces(engine.view(replay(engine, game.tokens[:1499])))
    # The analysis board opens the position shown.
    assert engine.fen(replay(engine, game.tokens[:1499])).split()[0] in page.locator(
        "#board-link"
    ).get_attribute("href").replace("%2F", "/")

    # End: the last position, the game's final board and score.
    page.keyboard.press("End")
    page.wait_for_function(f"() => window.__replay.ply === {PLIES}")
    last = engine.view(replay(engine, game.tokens))
    position = page.evaluate("window.__replay.snapshot.position")
    assert _pieces(position) == _pieces(last) and position["score"] == last["score"]
    score = page.locator('.player[data-side="0"] .score').text_content()
    assert score == str(last["score"][0])
    # Only pages were fetched, each once: never the whole game.
    assert asked and len(asked) == len(set(asked)) and len(asked) < 10
