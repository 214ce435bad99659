"""Clocks and ratings in a browser: a Fischer preset, a casual game, a provisional rating's "?"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.models import Game, Move
from ratings.models import Rating
from tests.browser.pages import READY, click_move, in_thread, snapshot, wait_my_turn_or_over

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_player_picks_the_5_plus_3_preset_and_the_computer_game_runs_with_the_increment(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.click('.game-card[data-game="reversi"]')
    page.select_option("#id_opponent", "computer")
    page.select_option("#id_side", "0")
    page.get_by_role("group", name="Time control").get_by_role("radio", name="5+3").check()
    assert page.input_value("#id_minutes") == "5" and page.input_value("#id_increment") == "3"
    expect(page.locator(".clock-readout")).to_have_text("5+3")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url("**/play/*/")
    page.wait_for_function(READY)
    expect(page.locator(".play-title .time-control")).to_have_text("5+3")
    assert snapshot(page)["clock"]["increment_ms"] == 3000
    click_move(page, "reversi", "d3")
    page.wait_for_function("() => window.__game.snapshot.ply >= 2")  # the computer has answered
    state = wait_my_turn_or_over(page)
    first = Move.objects.get(game_id=state["id"], ply=0)
    assert first.clock_left_ms == 300_000, "each side's first move is free: the clocks start after them"


@pytest.mark.page_only
def test_untimed_is_offered_for_the_computer_only(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.select_option("#id_opponent", "computer")
    untimed = page.get_by_role("radio", name="Untimed")
    untimed.check()
    expect(page.locator(".clock-readout")).to_have_text("Untimed")
    page.select_option("#id_opponent", "link")
    expect(untimed).to_be_hidden()
    # A game between people falls back to the default clock rather than to nothing.
    expect(page.get_by_role("radio", name="5+0")).to_be_checked()
    expect(page.locator(".clock-readout")).to_have_text("5+0")


@pytest.mark.page_only
def test_a_player_sets_up_a_casual_game_and_its_page_says_casual(new_context):
    page = new_context().new_page()
    page.goto("/")
    page.select_option("#id_opponent", "computer")
    expect(page.locator('[data-field="rated"]')).to_be_hidden()  # the computer's games are never rated
    page.select_option("#id_opponent", "link")
    page.select_option("#id_rated", "casual")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url("**/play/*/")
    page.wait_for_function(READY)
    expect(page.locator(".play-title .casual-tag")).to_have_text("casual")
    assert snapshot(page)["casual"] is True


@pytest.mark.page_only
def test_a_new_player_s_rating_shows_a_question_mark_on_the_game_page(
    new_context, login_session, user_factory
):
    alice, bob = user_factory("ann"), user_factory("ben")
    Rating.objects.create(user=alice, game="reversi", value=1530, rated_games=1, wins=1)
    Rating.objects.create(user=bob, game="reversi", value=1470, rated_games=40, losses=40)

    def start() -> Game:
        game = services.create_human_game(
            identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0
        )
        return services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)

    game = in_thread(start)
    page = new_context(session_cookie=login_session(alice)).new_page()
    page.goto(game.get_absolute_url())
    page.wait_for_function(READY)
    mine, theirs = page.locator('.player[data-side="0"]'), page.locator('.player[data-side="1"]')
    expect(mine.locator(".player-rating")).to_have_text("1530?")
    expect(mine.locator(".provisional")).to_have_attribute("title", "Provisional: fewer than 10 rated games")
    expect(theirs.locator(".player-rating")).to_have_text("1470")


def test_a_player_asks_to_take_back_a_move_and_the_opponent_accepts(new_context):
    from tests.browser.test_two_players import invite_game, wait_ply

    alice, bob = new_context().new_page(), new_context().new_page()
    invite_game(alice, bob)
    click_move(alice, "reversi", "d3")
    wait_ply(bob, 1)
    alice.click('[data-action="propose_takeback"]')
    expect(alice.locator("#takeback-pending")).to_be_visible()
    expect(bob.locator("#takeback-asked")).to_be_visible()
    expect(bob.locator("#status")).to_contain_text("asks to take back their last move")
    expect(bob.locator('[data-action="decline_takeback"]')).to_be_visible()
    bob.click('[data-action="accept_takeback"]')
    alice.wait_for_function(
        "() => window.__game.snapshot.ply === 0 && window.__game.snapshot.takeback === null"
    )
    expect(alice.locator("#takeback-pending")).to_be_hidden()
    expect(bob.locator('[data-action="accept_takeback"]')).to_be_hidden()
    expect(alice.locator("#status")).to_contain_text("Moves taken back.")
    # The limit: alice may ask again only 4 plies later, so her button waits.
    click_move(alice, "reversi", "d3")
    wait_ply(bob, 1)
    expect(alice.locator('[data-action="propose_takeback"]')).to_be_disabled()


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 360, "height": 740}])
def test_both_game_over_panels_show_the_rating_change_once_it_is_applied(
    new_context, login_session, user_factory, viewport
):
    # Issue #37, defect 13: the game-over panel said nothing of ratings; the
    # change arrives after the end (the ratings task) and is pushed to the pages.
    from ratings.models import RatingChange

    alice, bob = user_factory("ann"), user_factory("ben")
    Rating.objects.create(user=alice, game="reversi", value=1530, rated_games=20, wins=20)
    Rating.objects.create(user=bob, game="reversi", value=1470, rated_games=40, losses=40)

    def start() -> Game:
        game = services.create_human_game(
            identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0
        )
        return services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)

    game = in_thread(start)
    pages = []
    for user in (alice, bob):
        page = new_context(viewport=viewport, session_cookie=login_session(user)).new_page()
        page.goto(game.get_absolute_url())
        page.wait_for_function(READY)
        pages.append(page)
    expect(pages[0].locator("#rating-changes")).to_be_hidden()
    pages[1].click('[data-action="resign"]')
    pages[1].locator('#confirm-resign button[value="confirm"]').click()
    for page in pages:
        expect(page.locator("#result")).to_be_visible()
        # Pushed when the worker has applied the game: no reload.
        expect(page.locator("#rating-changes")).to_be_visible(timeout=20_000)
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    gain = round(changes[alice.pk].after) - round(changes[alice.pk].before)
    loss = round(changes[bob.pk].before) - round(changes[bob.pk].after)
    assert gain > 0 and loss > 0
    for page in pages:
        panel = page.locator("#rating-changes")
        expect(panel.locator('[data-side="0"]')).to_have_text(f"ann: 1530 → {1530 + gain} (+{gain})")
        expect(panel.locator('[data-side="1"]')).to_have_text(f"ben: 1470 → {1470 - loss} (\u2212{loss})")
        expect(page.locator('.player[data-side="0"] .rating-change')).to_have_text(f"+{gain}")
        expect(page.locator('.player[data-side="1"] .rating-change')).to_have_text(f"\u2212{loss}")
    # A page opened later shows the same, from the game's snapshot and the player lines.
    pages[0].reload()
    pages[0].wait_for_function(READY)
    expect(pages[0].locator("#rating-changes [data-side='0']")).to_contain_text(f"(+{gain})")
    expect(pages[0].locator('.player[data-side="1"] .player-rating')).to_have_text("1470")
    assert pages[0].evaluate("document.documentElement.scrollWidth") <= viewport["width"]
