"""What the boards highlight in prepared positions, checked against the engines."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.engines import get
from tests.browser.conftest import PHONE, screenshot
from tests.browser.pages import in_thread, open_game

pytestmark = [
    pytest.mark.page_only,
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def players(user_factory, login_session):
    """alice (side 0) and bob (side 1): identities and their session cookies."""
    alice, bob = user_factory("alice"), user_factory("bob")
    return [
        (Identity(user=alice, guest=None), login_session(alice)),
        (Identity(user=bob, guest=None), login_session(bob)),
    ]


def prepared_game(players, game: str, moves: list[str]):
    """A human game between alice and bob with ``moves`` played through the services."""
    return in_thread(_play_through_services, players, game, moves)


def _play_through_services(players, game: str, moves: list[str]):
    engine = get(game)
    created = services.create_human_game(identity=players[0][0], game=game, kind="link", side=0, minutes=15)
    services.join_game(game_id=created.pk, identity=players[1][0], token=created.invite_token)
    state = engine.initial()
    for ply, token in enumerate(moves):
        mover = engine.to_move(state)  # not simply alternating: a collapse chooser moves twice
        services.play_move(game_id=created.pk, identity=players[mover][0], token=token, ply=ply)
        state = engine.play(state, token)
    return created.pk, engine, state


def board_page(new_context, players, side: int | None, game_id: int, **kwargs):
    cookie = players[side][1] if side is not None else None
    page = new_context(session_cookie=cookie, **kwargs).new_page()
    open_game(page, f"/play/{game_id}/")
    return page


def shown_lines(page) -> list[int]:
    return page.eval_on_selector_all(".live-line", "nodes => nodes.map(n => Number(n.dataset.line))")


def test_four_tac_toe_hover_shows_exactly_the_live_lines(new_context, players):
    moves = ["a9", "b9", "e6", "a8", "d4", "i1", "c7", "f3"]
    game_id, engine, state = prepared_game(players, "four_tac_toe", moves)
    alice = board_page(new_context, players, 0, game_id)
    # An empty cell, one of alice's own marks, and one of bob's (then bob's lines are shown).
    for cell in ("b8", "a9", "b9", "g3"):
        alice.hover(f'[data-cell="{cell}"]')
        expected = engine.live_lines(state, cell, 0)
        assert sorted(shown_lines(alice)) == sorted(expected), cell
        styles = alice.eval_on_selector_all(".live-line", "ns => ns.map(n => n.getAttribute('style'))")
        symbols = alice.eval_on_selector_all(
            ".live-line", "ns => ns.map(n => n.querySelector('.line-symbol').textContent)"
        )
        assert len(set(styles)) == len(styles) and len(set(symbols)) == len(symbols), (
            "each line its own colour and symbol"
        )
        if cell == "a9":
            screenshot(alice, "four_tac_toe-hover-desktop")
    expect(alice.locator(".line-legend .legend-item")).to_have_count(len(engine.live_lines(state, "g3", 0)))

    # The closed centre shows nothing; the keyboard cursor shows the same help as the mouse.
    alice.hover('[data-cell="e5"]')
    assert shown_lines(alice) == []
    alice.mouse.move(0, 0)
    alice.focus(".board-svg")
    alice.keyboard.press("ArrowLeft")  # the cursor starts on e5: one step left is d5
    assert sorted(shown_lines(alice)) == sorted(engine.live_lines(state, "d5", 0))
    label = alice.get_attribute('[data-cell="d5"]', "aria-label")
    assert label.startswith("d5") and "empty" in label

    bob = board_page(new_context, players, 1, game_id, viewport=PHONE)
    bob.hover('[data-cell="a9"]')  # alice's mark, seen by bob: alice's lines through it
    assert sorted(shown_lines(bob)) == sorted(engine.live_lines(state, "a9", 1))
    screenshot(bob, "four_tac_toe-hover-phone")


def test_ultimate_highlights_exactly_the_boards_allowed(new_context, players):
    game_id, engine, state = prepared_game(players, "ultimate_ttt", ["e5", "d6"])
    page = board_page(new_context, players, 0, game_id)
    open_boards = page.eval_on_selector_all(".small-board.open", "ns => ns.map(n => Number(n.dataset.board))")
    assert open_boards == engine.view(state)["open_boards"] == [0]


def test_ultimate_sent_to_a_decided_board_opens_every_open_board(new_context, players):
    engine = get("ultimate_ttt")
    moves, view = _free_choice_position(engine)
    game_id, _, state = prepared_game(players, "ultimate_ttt", moves)
    page = board_page(new_context, players, engine.to_move(state), game_id)
    open_boards = page.eval_on_selector_all(".small-board.open", "ns => ns.map(n => Number(n.dataset.board))")
    assert sorted(open_boards) == sorted(view["open_boards"]) and len(open_boards) > 1
    won = page.eval_on_selector_all("[data-won]", "ns => ns.map(n => Number(n.dataset.won))")
    assert sorted(won) == [b for b, status in enumerate(view["board_status"]) if status in (0, 1)]
    expect(page.locator(".tie-cover")).to_have_count(view["board_status"].count("tie"))
    screenshot(page, "ultimate_ttt-free-choice-desktop")


def _free_choice_position(engine):
    """Random play until a move sends the opponent to a decided board (seeded, so always the same)."""
    rng = random.Random(7)
    while True:
        state, moves = engine.initial(), []
        while engine.outcome(state) is None:
            token = rng.choice(engine.legal_moves(state))
            state = engine.play(state, token)
            moves.append(token)
            view = engine.view(state)
            if (
                engine.outcome(state) is None
                and any(s in (0, 1) for s in view["board_status"])
                and len(view["open_boards"]) > 1
            ):
                return moves, view


def test_quantum_collapse_choice_is_offered_to_the_chooser_only(new_context, players):
    game_id, engine, state = prepared_game(players, "quantum_ttt", ["1-5", "5-9", "1-9"])
    view = engine.view(state)
    assert view["to_move"] == 1 and view["legal_moves"] == ["@1", "@9"]  # bob chooses: alice closed the cycle

    alice = board_page(new_context, players, 0, game_id)
    bob = board_page(new_context, players, 1, game_id)
    spectator = board_page(new_context, players, None, game_id)
    for page in (alice, spectator):
        expect(page.locator(".choice-button")).to_have_count(0)
        expect(page.locator(".collapse-choice")).to_be_hidden()
    for page in (alice, bob, spectator):
        expect(page.locator(".square-mark.cycle")).to_have_count(3)
    buttons = bob.locator(".choice-button")
    expect(buttons).to_have_count(2)
    expect(buttons.nth(0)).to_have_text("Settle move 3 in square 1")
    expect(buttons.nth(1)).to_have_text("Settle move 3 in square 9")
    screenshot(bob, "quantum_ttt-collapse-desktop")

    buttons.nth(1).click()
    alice.wait_for_function("() => window.__game.snapshot.ply === 4")
    settled = alice.evaluate("window.__game.snapshot.position")
    assert settled["pending_cycle"] is None
    assert settled["cells"] == engine.view(engine.play(state, "@9"))["cells"]
    assert settled["cells"][8]["classical"] == {"side": 0, "move": 3}  # move 3 settled in square 9
    expect(bob.locator(".choice-button")).to_have_count(0)
    expect(alice.locator(".square-mark.cycle")).to_have_count(0)
