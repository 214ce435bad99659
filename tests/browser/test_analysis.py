"""A player analyses a finished game on its replay page: progress, the graph, a marked blunder.

In all four languages; the registered player follows the progress over the
notification socket, guests by polling.
"""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from games.models import Analysis
from tests.browser.conftest import PHONE, screenshot
from tests.browser.pages import open_replay
from tests.browser.test_languages import _js
from tests.games.test_analysis import SHORT_REVERSI, finished_game

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

BLUNDER_PLY = 7  # white's e3 lets black wipe white out with f4


def _page_text(lang: str, text: str) -> str:
    return text if lang == "en" else _js(lang, text)


@pytest.mark.parametrize("lang", ["en", "hi", "bn", "el"])
def test_a_player_analyses_a_game_and_reads_the_graph_and_the_blunder(
    new_context, login_session, user_factory, lang
):
    registered = lang == "en"
    ann = user_factory(f"ann_{lang}")
    game = finished_game(user=ann)
    context = new_context(session_cookie=login_session(ann) if registered else None)
    page = context.new_page()
    page.goto("/")
    if lang != "en":
        with page.expect_navigation():
            page.select_option("#lang-select", lang)
    open_replay(page, game.pk)
    analyse = page.locator("#analyse")
    with translation.override(lang):
        expect(analyse).to_have_text(translation.gettext("Analyse"))
    if registered:  # the page watches the analysis over the notification socket
        expect(page.locator("#analysis")).to_have_attribute("data-watching", "1")
    page.evaluate("""() => {
        window.__progress = [];
        const bar = document.querySelector('#analysis-progress');
        new MutationObserver(() => window.__progress.push(Number(bar.getAttribute('value'))))
            .observe(bar, { attributes: true, attributeFilter: ['value'] });
    }""")
    analyse.click()
    expect(page.locator("#analysis-status")).to_have_text(
        _page_text(lang, "Analysis complete."), timeout=60_000
    )
    expect(page.locator("#analysis-progress")).to_be_hidden()
    expect(analyse).to_be_hidden()
    total = len(SHORT_REVERSI) + 1
    if registered:
        seen = page.evaluate("window.__progress")
        assert any(0 < value <= total for value in seen), f"no live progress seen: {seen}"

    # The graph: one point per position, the current one marked.
    graph = page.locator("#analysis-graph svg.eval-graph")
    expect(graph).to_be_visible()
    expect(graph.locator(".eval-hit")).to_have_count(total)
    # Each point's chances read as a percentage, never a negative number.
    for title in graph.locator(".eval-hit title").all_text_contents():
        chances = int(re.search(r"(\d{1,3}) %$", title).group(1))
        assert 0 <= chances <= 100 and "-" not in title, title
    expect(graph.locator(".eval-current")).to_have_attribute("data-current", str(len(SHORT_REVERSI)))
    graph.locator('.eval-hit[data-ply="3"]').hover()
    expect(graph.locator(".eval-current")).to_have_attribute("data-current", "3")
    assert page.evaluate("window.__replay.ply") == 3

    # White's blunder is marked, and its better move shown on the board.
    stored = Analysis.objects.get(game=game)
    blunder = stored.judgements[BLUNDER_PLY]
    assert blunder["kind"] == "blunder"
    mark = page.locator(f'#move-list li[data-ply="{BLUNDER_PLY}"] .judgement.kind-blunder')
    expect(mark).to_have_text("??")
    expect(mark).to_have_attribute("title", _page_text(lang, "Blunder"))
    expect(graph.locator(".eval-error.kind-blunder")).to_have_count(
        sum(1 for j in stored.judgements if j["kind"] == "blunder")
    )
    page.locator(f'#move-list li[data-ply="{BLUNDER_PLY}"] .better-move').click()
    better = page.locator("#analysis-better")
    expect(better).to_be_visible()
    expect(better).to_contain_text(blunder["best"])
    assert page.evaluate("window.__replay.ply") == BLUNDER_PLY

    # The summary: white's accuracy, per phase too (a 9-move game never leaves the opening), one blunder.
    white = page.locator('#analysis-summary tr[data-side="1"]')
    expect(white.locator("td").nth(0)).to_have_text(f"{stored.summary[1]['accuracy']:.1f} %")
    expect(white.locator("td").nth(1)).to_have_text(f"{stored.summary[1]['phases']['opening']:.1f} %")
    expect(white.locator("td").nth(2)).to_have_text("–")  # no middle game, no endgame
    expect(white.locator("td").nth(3)).to_have_text("–")
    expect(white.locator("td").nth(6)).to_have_text(str(stored.summary[1]["counts"]["blunder"]))
    with translation.override(lang):
        expect(page.locator("#analysis-summary thead th").nth(2)).to_have_text(translation.gettext("Opening"))

    # Every move carries its label; the errors their marks.
    names = {"best": "Best", "excellent": "Excellent", "good": "Good", "forced": "Forced"}
    for judged in stored.judgements:
        item = page.locator(f'#move-list li[data-ply="{judged["ply"]}"]')
        if judged["kind"] is None:
            expect(item.locator(f'.judgement[data-label="{judged["label"]}"]')).to_have_text(
                _page_text(lang, names[judged["label"]])
            )
        if judged["only"]:
            expect(item.locator(".only-move")).to_have_text(_page_text(lang, "Only move"))

    # The winning chances of the position shown, 0-100 % for each player named.
    page.click("[data-step='last']")
    chances = page.locator("#analysis-chances")
    expect(chances).to_be_visible()
    expect(chances).to_contain_text("100 %")  # black wiped white out
    assert re.findall(r"(\d{1,3}) %", chances.text_content()) == ["100", "0"]
    screenshot(page, f"analysis-{lang}-desktop")

    # Coming back: the stored result at once, without asking again.
    page.set_viewport_size(PHONE)
    page.reload()
    expect(page.locator("#analysis-status")).to_have_text(_page_text(lang, "Analysis complete."))
    expect(page.locator(f'#move-list li[data-ply="{BLUNDER_PLY}"] .judgement.kind-blunder')).to_have_text(
        "??"
    )
    screenshot(page, f"analysis-{lang}-phone")


CORNER_ON_OFFER = "-XOOOOO---XOXO----XXOX----OXOX-----XOO----XXXXXX---X------XXX--- O"


@pytest.mark.page_only
def test_play_from_here_and_the_analysis_board(new_context, login_session, user_factory):
    from games.engines import get
    from games.engines.base import replay
    from games.models import Game
    from tests.browser.pages import click_move

    reversi = get("reversi")
    ann = user_factory("ann_from_here")
    old = finished_game(user=ann)
    page = new_context(session_cookie=login_session(ann)).new_page()
    open_replay(page, old.pk)
    for _ in range(3):
        page.click("[data-step='prev']")
    assert page.evaluate("window.__replay.ply") == 6
    expect(page.locator("#play-from [name=side]")).to_have_value("0")  # the side to move at ply 6
    page.select_option("#play-from [name=level]", "easy")
    with page.expect_navigation():
        page.click("#play-from button")
    new = Game.objects.exclude(pk=old.pk).get()
    assert page.url.endswith(new.get_absolute_url())
    assert new.start_fen == reversi.fen(replay(reversi, SHORT_REVERSI[:6])) and new.ai1 == "easy"
    page.wait_for_function("() => window.__game && window.__game.snapshot.position.to_move === 0")
    expect(page.locator("#status")).to_have_text("Your move.")

    # The analysis board from a replay position: play a move, then ask for the evaluation.
    open_replay(page, old.pk)
    page.click("[data-step='first']")
    page.click("[data-step='next']")
    page.click("[data-step='next']")
    with page.expect_navigation():
        page.click("#board-link")
    after_two = reversi.fen(replay(reversi, SHORT_REVERSI[:2]))
    page.wait_for_function("() => window.__board")
    assert page.evaluate("window.__board.fen") == after_two
    click_move(page, "reversi", "b3")
    after_three = reversi.fen(replay(reversi, SHORT_REVERSI[:3]))
    page.wait_for_function(f"() => window.__board.fen === {after_three!r}")
    page.click("#evaluate")
    expect(page.locator("#evaluation")).to_contain_text("Best move:", timeout=30_000)
    # Set up a position by its FEN: white should take the a1 corner.
    page.fill("#fen-input", CORNER_ON_OFFER)
    page.click("#fen-form button")
    page.wait_for_function(f"() => window.__board.fen === {CORNER_ON_OFFER!r}")
    page.click("#evaluate")
    expect(page.locator("#evaluation")).to_contain_text("Best move: a1", timeout=30_000)
    screenshot(page, "analysis-board-desktop")
    page.fill("#fen-input", "not a position")
    page.click("#fen-form button")
    expect(page.locator("#board-error")).to_contain_text("That position is not valid")
    assert page.evaluate("window.__board.fen") == CORNER_ON_OFFER


@pytest.mark.page_only
def test_analyse_from_the_history_starts_it_on_the_replay(new_context, login_session, user_factory):
    ann = user_factory("ann_history")
    game = finished_game(user=ann)
    page = new_context(session_cookie=login_session(ann)).new_page()
    page.goto("/history/")
    with page.expect_navigation():
        page.click(f'tr[data-game="{game.pk}"] .analysis-cell a')
    expect(page.locator("#analysis-status")).to_have_text("Analysis complete.", timeout=60_000)
    page.goto("/history/")
    stored = Analysis.objects.get(game=game)
    expect(page.locator(f'tr[data-game="{game.pk}"] .analysis-cell a')).to_have_text(
        f"{stored.summary[0]['accuracy']:.1f} % accuracy"
    )
