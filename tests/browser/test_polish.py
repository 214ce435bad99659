"""What looked amateurish beside lichess or PlayOK (issue #37, item 14), and the lobby's
upside-down rating range (item 11), each checked as a person sees it at 1280x800 and 360x740.

The pages are prepared through the services (a few moves each) and measured in the browser:
boxes that overflow, rows of unequal buttons, marks that overlap, buttons out of sight."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.engines import get
from games.models import Game
from tests.browser.conftest import DESKTOP, PHONE, screenshot
from tests.browser.pages import box_of, in_thread, open_game

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.heavy,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]

SIZES = {"desktop": DESKTOP, "phone": PHONE}
# 44 random legal Ultimate TTT moves (seed 3), the game still on: more than the move list shows at once.
LONG_GAME = (
    "d4 c3 g9 b9 f8 g5 a4 c2 h6 e7 e1 f3 i9 h8 e4 d2 b4 f1 i1 g1 b3 f9 g7 a2 c6 i8 g4 b1 d1 b2 e6 e9 e8 f6 i7 h2 "
    "f5 i4 g3 c7 g2 a5 b5 f4"
)
# Square 1 holds four spooky marks; the fifth move closes a cycle (1-2-3): O chooses where it settles.
QUANTUM_CYCLE = ["1-2", "1-3", "1-4", "1-5", "2-3"]

# Every element inside ``selector`` whose content is wider than its box, or that sticks out of it.
OVERFLOWING = """(selector) => {
  const root = document.querySelector(selector), outer = root.getBoundingClientRect();
  const bad = [];
  for (const node of [root, ...root.querySelectorAll('*')]) {
    const box = node.getBoundingClientRect();
    if (!box.width) continue;
    if (box.left < outer.left - 1 || box.right > outer.right + 1) bad.push(`${node.tagName}#${node.id} out of the box`);
    if (['SELECT', 'INPUT', 'BUTTON', 'LABEL'].includes(node.tagName) && node.scrollWidth > node.clientWidth + 1)
      bad.push(`${node.tagName}#${node.id} cut`);
  }
  return bad;
}"""


@pytest.fixture
def two_players(
    user_factory, login_session, redis_layer
):  # redis_layer: the services' broadcasts reach the pages
    alice, bob = user_factory("alice"), user_factory("bob")
    return {
        "alice": (Identity(alice, None), login_session(alice)),
        "bob": (Identity(bob, None), login_session(bob)),
    }


def prepared(players, game: str, moves: list[str]) -> int:
    """A game between alice (side 0) and bob with ``moves`` played through the services."""

    def play() -> int:
        engine = get(game)
        first, second = players["alice"][0], players["bob"][0]
        created = services.create_human_game(identity=first, game=game, kind="link", side=0, minutes=15)
        services.join_game(game_id=created.pk, identity=second, token=created.invite_token)
        state = engine.initial()
        for ply, token in enumerate(moves):
            mover = (first, second)[engine.to_move(state)]
            if token != "pass":  # the server plays a forced pass itself
                services.play_move(game_id=created.pk, identity=mover, token=token, ply=ply)
            state = engine.play(state, token)
        return created.pk

    return in_thread(play)


def page_for(new_context, cookie: str | None, size: str):
    return new_context(viewport=SIZES[size], session_cookie=cookie).new_page()


@pytest.mark.parametrize("size", SIZES)
def test_quick_game_buttons_form_an_even_grid(new_context, two_players, size):
    page = page_for(new_context, two_players["alice"][1], size)
    page.goto("/")
    rows = page.locator(".quick-games .quick-buttons")
    assert rows.count() == 10  # five games, live and correspondence
    boxes = rows.evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('button')].map(b => b.getBoundingClientRect().toJSON()))"
    )
    for buttons in boxes:
        # One line of buttons, each as wide and as tall as the others.
        assert max(b["top"] for b in buttons) - min(b["top"] for b in buttons) < 1
        assert max(b["width"] for b in buttons) - min(b["width"] for b in buttons) < 1
        assert max(b["height"] for b in buttons) - min(b["height"] for b in buttons) < 1
    # Every row spans the same width, so the columns line up from one game to the next.
    spans = {round(b[-1]["right"] - b[0]["left"]) for b in boxes}
    assert max(spans) - min(spans) <= 1, spans
    assert page.evaluate(OVERFLOWING, ".quick-games") == []
    screenshot(page, f"polish-quick-games-{size}")


@pytest.mark.parametrize("size", SIZES)
def test_lobby_and_history_filters_are_styled_fields(new_context, two_players, size):
    page = page_for(new_context, two_players["alice"][1], size)
    for url, form in (("/", "#lobby-filter"), ("/history/", ".history-filters")):
        page.goto(url)
        controls = page.locator(f"{form} select, {form} input[type=number]")
        assert controls.count() >= 2
        looks = controls.evaluate_all(
            """cs => cs.map(c => { const s = getComputedStyle(c), b = c.getBoundingClientRect();
                 return { font: parseFloat(s.fontSize), radius: parseFloat(s.borderTopLeftRadius), height: b.height }; })"""
        )
        # The page's own font and rounded fields, not the browser's 13 px default controls.
        assert all(look["font"] >= 15 and look["radius"] >= 4 for look in looks), (url, looks)
        heights = [look["height"] for look in looks]
        assert max(heights) - min(heights) < 2, (url, heights)
        assert page.evaluate(OVERFLOWING, form) == [], url
        screenshot(page, f"polish-filters-{url.strip('/') or 'home'}-{size}")


def test_an_upside_down_rating_range_is_refused_at_its_field(new_context, two_players, user_factory):
    carol = Identity(user_factory("carol"), None)
    in_thread(
        services.create_human_game, identity=carol, game="ataxx", kind=Game.Kind.LOBBY, minutes=3, increment=2
    )
    page = page_for(new_context, two_players["alice"][1], "phone")
    page.goto("/")
    challenges = page.locator("#challenges li[data-game-id]")
    expect(challenges).to_have_count(1)
    page.fill("#id_rating_max", "1600")
    page.press("#id_rating_max", "Enter")
    page.fill("#id_rating_min", "1800")
    page.press("#id_rating_min", "Enter")
    error = page.locator("#filter-error-rating_max")
    expect(error).to_have_text("The highest rating cannot be below the lowest.")
    expect(page.locator("#id_rating_max")).to_have_attribute("aria-invalid", "true")
    # Said at the field: right under "Rating to", inside its column; and the list is still there.
    field, said = page.locator("#id_rating_max").bounding_box(), error.bounding_box()
    assert 0 <= said["y"] - (field["y"] + field["height"]) < 20
    assert field["x"] - 1 <= said["x"] and said["x"] + said["width"] <= field["x"] + field["width"] + 1
    expect(challenges).to_have_count(1)
    page.fill("#id_rating_min", "")
    page.press("#id_rating_min", "Enter")
    expect(error).to_be_hidden()
    expect(page.locator("#id_rating_max")).not_to_have_attribute("aria-invalid", "true")

    # Without script (the address typed or kept): the same error at the field, every challenge listed.
    page.goto("/?rating_min=1800&rating_max=1600")
    expect(error).to_have_text("The highest rating cannot be below the lowest.")
    expect(challenges).to_have_count(1)


def test_the_settings_use_the_pages_width(new_context, two_players):
    page = page_for(new_context, two_players["alice"][1], "desktop")
    page.goto("/settings/")
    content = page.locator("main").evaluate(
        "m => m.clientWidth - parseFloat(getComputedStyle(m).paddingLeft) - parseFloat(getComputedStyle(m).paddingRight)"
    )
    form = page.locator("form.settings-form").bounding_box()
    assert form["width"] > 0.85 * content, (form["width"], content)
    # The columns fill side by side: the form is not a long single column.
    lefts = page.locator("form.settings-form > .field").evaluate_all(
        "fs => fs.map(f => Math.round(f.getBoundingClientRect().left))"
    )
    assert len(set(lefts)) >= 2
    screenshot(page, "polish-settings-desktop")
    page.set_viewport_size(PHONE)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def test_an_empty_chat_says_so_instead_of_an_empty_bar(new_context, two_players):
    game_id = prepared(two_players, "reversi", [])
    page = page_for(new_context, two_players["alice"][1], "desktop")
    open_game(page, f"/play/{game_id}/")
    lines = page.locator("#chat-lines")
    expect(lines).to_be_visible()
    shown = lines.evaluate("l => getComputedStyle(l, '::before').content")
    assert shown == '"No messages yet."'
    assert lines.bounding_box()["height"] > 20  # a line of text, not a 2 px bar
    page.click('[data-preset="hello"]')
    expect(lines.locator("li")).to_have_count(1)
    assert lines.evaluate("l => getComputedStyle(l, '::before').content") in ("none", "normal")


@pytest.mark.parametrize("size", SIZES)
def test_the_move_list_shows_its_last_row_whole(new_context, two_players, size):
    game_id = prepared(two_players, "ultimate_ttt", LONG_GAME.split())
    page = page_for(new_context, two_players["alice"][1], size)
    open_game(page, f"/play/{game_id}/")
    page.locator("#move-list").scroll_into_view_if_needed()
    measured = page.locator("#move-list").evaluate(
        """l => { const box = l.getBoundingClientRect(), rows = [...l.children].map(li => li.getBoundingClientRect().toJSON());
                  return { scrolls: l.scrollHeight > l.clientHeight, top: box.top + l.clientTop,
                           bottom: box.top + l.clientTop + l.clientHeight, last: rows[rows.length - 1],
                           visible: rows.filter(r => r.bottom > box.top && r.top < box.bottom) }; }"""
    )
    assert measured["scrolls"]
    assert measured["last"]["bottom"] <= measured["bottom"] + 0.5
    # No half-cut row at the top either: what shows is whole rows.
    assert all(
        r["top"] >= measured["top"] - 0.5 and r["bottom"] <= measured["bottom"] + 0.5
        for r in measured["visible"]
    )


def test_the_computers_name_fits_on_a_phone(new_context, two_players):
    game = in_thread(
        services.create_computer_game,
        identity=two_players["alice"][0],
        game="ataxx",
        level="easy",
        side=0,
        minutes=5,
    )
    page = page_for(new_context, two_players["alice"][1], "phone")
    open_game(page, f"/play/{game.pk}/")
    name = page.locator('.player[data-side="1"] .name')
    expect(name).to_have_text("Computer (Easy)")
    assert name.evaluate("n => n.scrollWidth <= n.clientWidth && n.scrollHeight <= n.clientHeight + 1")
    assert page.evaluate(OVERFLOWING, ".players") == []
    screenshot(page, "polish-computer-name-phone")


def test_four_tac_toes_hint_is_cleared_when_the_game_ends(new_context, two_players):
    game_id = prepared(two_players, "four_tac_toe", ["a9", "b9", "e6", "a8"])
    page = page_for(new_context, two_players["alice"][1], "desktop")
    open_game(page, f"/play/{game_id}/")
    page.hover('[data-cell="c2"]')
    legend = page.locator(".line-legend")
    expect(legend).to_contain_text("through c2")
    in_thread(services.resign, game_id=game_id, identity=two_players["bob"][0])
    page.wait_for_function("() => window.__game.snapshot.status !== 'active'")
    expect(legend).to_have_text("")
    assert page.locator(".live-line").count() == 0
    page.hover('[data-cell="d3"]')  # hovering after the end shows nothing either
    expect(legend).to_have_text("")


def spooky_overlaps(page) -> list[str]:
    return page.evaluate(
        """() => {
      const marks = [...document.querySelectorAll('.spooky')].map(m => [m.textContent, m.getBoundingClientRect()]);
      const bad = [];
      for (let i = 0; i < marks.length; i++) for (let j = i + 1; j < marks.length; j++) {
        const [a, p] = marks[i], [b, q] = marks[j];
        if (p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5)
          bad.push(`${a} over ${b}`);
      }
      return bad;
    }"""
    )


@pytest.mark.parametrize("size", SIZES)
def test_quantum_marks_apart_and_the_collapse_in_sight(new_context, two_players, size):
    game_id = prepared(two_players, "quantum_ttt", QUANTUM_CYCLE)
    chooser = page_for(new_context, two_players["bob"][1], size)
    open_game(chooser, f"/play/{game_id}/")
    expect(chooser.locator('[data-cell="1"]')).to_be_visible()
    assert spooky_overlaps(chooser) == []
    buttons = chooser.locator(".choice-button")
    expect(buttons).to_have_count(2)
    if size == "desktop":  # beside the board, without scrolling
        for box in (box_of(buttons.nth(0)), box_of(buttons.nth(1))):
            assert box["y"] >= 0 and box["y"] + box["height"] <= DESKTOP["height"], box
    # The choice never covers a square of the board.
    board, choice = box_of(chooser.locator("#board svg")), box_of(chooser.locator(".collapse-choice"))
    assert choice["x"] >= board["x"] + board["width"] or choice["y"] >= board["y"] + board["height"]
    screenshot(chooser, f"polish-quantum-{size}")


def test_the_status_line_says_a_collapse_choice_in_words(new_context, two_players):
    game_id = prepared(two_players, "quantum_ttt", QUANTUM_CYCLE)
    alice = page_for(new_context, two_players["alice"][1], "desktop")
    open_game(alice, f"/play/{game_id}/")
    in_thread(services.play_move, game_id=game_id, identity=two_players["bob"][0], token="@2", ply=5)
    status = alice.locator("#status")
    expect(status).to_contain_text("bob chose square 2 for the collapse.")
    assert "@" not in status.inner_text()
