"""The live clock as a player sees it, and a connection that goes away (issue #37, defects 1, 12, 15).

Timing is judged against the page's own measurements (``performance.now()`` and
``Date.now()`` read with each sample), never against sleeps, so a busy machine
only makes the samples fewer, not wrong.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.models import Game, Move
from tests.browser.pages import READY, click_move, in_thread, snapshot

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

# Every write of a side's clock, with the snapshot it was computed from and the page's two clocks.
RECORD_CLOCK = """(side) => {
  window.__clockSamples = [];
  const node = document.querySelector(`.player[data-side="${side}"] .clock`);
  new MutationObserver(() => {
    const s = window.__game.snapshot;
    window.__clockSamples.push({
      text: node.textContent, perf: performance.now(), wall: Date.now(),
      ply: s.ply, ms: s.clock.ms[side], at: s.clock.at, running: s.clock.running,
    });
  }).observe(node, { childList: true, characterData: true, subtree: true });
}"""


def shown_seconds(text: str) -> int:
    minutes, seconds = re.fullmatch(r"(\d+):(\d\d)", text).groups()
    return int(minutes) * 60 + int(seconds)


def computer_game(page, user, minutes: int, increment: int) -> Game:
    game = in_thread(
        services.create_computer_game,
        identity=Identity(user, None),
        game="reversi",
        level="easy",
        side=0,
        minutes=minutes,
        increment=increment,
    )
    page.goto(game.get_absolute_url())
    page.wait_for_function(READY)
    return game


def legal_move(game_id: int) -> str:
    game = Game.objects.get(pk=game_id)
    return game.engine.legal_moves(game.engine_state())[0]


def wait_for_ply(page, ply: int) -> None:
    page.wait_for_function(
        f"() => window.__game.snapshot.ply >= {ply} && !window.__game.busy"
        f" && window.__game.snapshot.position.to_move === window.__game.you"
    )


def test_the_running_clock_falls_one_second_a_second_and_agrees_with_the_server(
    new_context, login_session, user_factory
):
    alice = user_factory("alice")
    page = new_context(session_cookie=login_session(alice)).new_page()
    game = computer_game(page, alice, minutes=3, increment=2)
    click_move(page, "reversi", "d3")
    wait_for_ply(page, 2)  # the computer has answered: each side has moved, the clocks run from here
    page.evaluate(RECORD_CLOCK, 0)
    click_move(page, "reversi", legal_move(game.pk))
    # Alice's clock runs again once the computer has answered her second move: 8 s of it, as the page counted.
    page.wait_for_function(
        """() => {
          const after = window.__clockSamples.filter((s) => s.ply >= 3 && s.running === 0);
          return after.length > 0 && after.at(-1).perf - after[0].perf >= 8000;
        }""",
        timeout=60_000,
    )
    samples = [s for s in page.evaluate("window.__clockSamples") if s["ply"] >= 3 and s["running"] == 0]
    # Written when the shown second changes (the page looks every 200 ms): at least every other second.
    assert len(samples) >= 5
    for sample in samples:
        shown = shown_seconds(sample["text"])
        # The server's snapshot says what was left at its moment `at`; the page's wall clock says how long ago.
        truth = (sample["ms"] - (sample["wall"] - sample["at"])) / 1000
        # Shown in whole seconds, rounded down: within half a second of the truth beyond that.
        assert truth - 1.5 < shown <= truth + 0.5, (sample, truth)
    for before, after in zip(samples, samples[1:], strict=False):
        elapsed = (after["perf"] - before["perf"]) / 1000
        fell = shown_seconds(before["text"]) - shown_seconds(after["text"])
        assert 0 <= fell <= elapsed + 1, (before, after)  # never back up, never a leap
    span = (samples[-1]["perf"] - samples[0]["perf"]) / 1000
    fell = shown_seconds(samples[0]["text"]) - shown_seconds(samples[-1]["text"])
    assert abs(fell - span) <= 0.3 * span + 1, (fell, span)


@pytest.mark.page_only
def test_a_clock_is_written_only_when_its_time_shown_changes(new_context, login_session, user_factory):
    """The page looks at the clocks five times a second; rewriting an unchanged clock would have the page
    painted again each time for as long as it is open, and could have a screen reader read it again."""
    alice = user_factory("alice")
    page = new_context(session_cookie=login_session(alice)).new_page()
    game = computer_game(page, alice, minutes=3, increment=2)
    click_move(page, "reversi", "d3")
    wait_for_ply(page, 2)  # both sides have moved: Alice's clock runs, the computer's stands
    page.evaluate(RECORD_CLOCK, 1)
    page.wait_for_timeout(2500)
    assert page.evaluate("window.__clockSamples") == []  # the standing clock: not written once
    page.evaluate(RECORD_CLOCK, 0)
    page.wait_for_timeout(2500)
    writes = page.evaluate("window.__clockSamples")
    assert 1 <= len(writes) <= 4, writes  # the running one: once a second, not every 200 ms
    assert len({write["text"] for write in writes}) == len(writes), writes  # each write a new time
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


@pytest.mark.page_only
def test_no_clock_runs_until_each_side_has_moved(new_context, login_session, user_factory):
    alice = user_factory("alice")
    page = new_context(session_cookie=login_session(alice)).new_page()
    game = computer_game(page, alice, minutes=3, increment=2)
    mine = page.locator('.player[data-side="0"] .clock')
    page.wait_for_timeout(1500)  # what would have run by now, had her clock started
    expect(mine).to_have_text("3:00")
    expect(page.locator(".clock.running")).to_have_count(0)
    click_move(page, "reversi", "d3")
    wait_for_ply(page, 2)
    # Alice's first move cost her nothing and earned no increment, nor did the computer's: both still have 3:00.
    assert list(Move.objects.filter(game=game).order_by("ply").values_list("clock_left_ms", flat=True)) == [
        180_000,
        180_000,
    ]
    clock = snapshot(page)["clock"]
    assert clock["ms"][1] == 180_000 and 179_000 <= clock["ms"][0] <= 180_000  # hers has run since the reply
    click_move(page, "reversi", legal_move(game.pk))
    wait_for_ply(page, 4)
    expect(mine).to_have_class(re.compile(r"\brunning\b"))
    state = snapshot(page)["clock"]
    assert state["running"] == 0 and state["ms"][0] <= 180_000 + 2_000


def test_going_offline_is_said_and_the_move_clicked_meanwhile_waits(new_context, login_session, user_factory):
    alice = user_factory("alice")
    context = new_context(session_cookie=login_session(alice))
    page = context.new_page()
    game = in_thread(
        services.create_computer_game, identity=Identity(alice, None), game="reversi", level="easy", side=0
    )
    page.goto(game.get_absolute_url())
    page.wait_for_function(READY)
    banner = page.locator("#connection-banner")
    note = page.locator("#move-note")
    context.set_offline(True)
    went = page.evaluate("performance.now()")
    click_move(page, "reversi", "d3")
    # The move is kept, and the player is told it waits for the connection.
    expect(note).to_have_text("Connection lost: your move d3 will be sent when the connection is back.")
    expect(banner).to_be_visible(timeout=10_000)
    expect(banner).to_have_text("Connection lost — reconnecting…")
    shown = page.evaluate("performance.now()")
    assert shown - went >= 2900  # a moment's drop is not announced: 3 s without the socket are
    # A second move is refused out loud, not dropped.
    page.click('[data-cell="c4"]')
    expect(note).to_contain_text("c4 was not played")
    assert snapshot(page)["ply"] == 0
    context.set_offline(False)
    page.wait_for_function("() => window.__game.snapshot.ply >= 1")
    expect(banner).to_be_hidden()
    assert snapshot(page)["moves"][0] == "d3"
    page.wait_for_function("() => !window.__game.busy")
    expect(note).to_be_hidden()
