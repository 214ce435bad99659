"""The Watch page in a browser: a visitor sees games start, move and end without reloading, the TV follows
the best Reversi game move by move and moves on to the next one when it ends, and the players see that
somebody watches."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.models import Game
from ratings.models import Rating
from tests.browser.conftest import screenshot
from tests.browser.pages import READY, in_thread
from tests.browser.test_readable_boards import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}


def people_game(first, second, *, minutes: int = 5, increment: int = 0) -> Game:
    def create() -> Game:
        game = services.create_human_game(
            identity=Identity(first, None),
            game="reversi",
            kind=Game.Kind.INVITE_LINK,
            side=0,
            minutes=minutes,
            increment=increment,
        )
        return services.join_game(game_id=game.pk, identity=Identity(second, None), token=game.invite_token)

    return in_thread(create)


def test_the_watch_page_follows_games_and_its_tv_moves_on_when_the_featured_game_ends(
    new_context, login_session, user_factory, redis_layer
):
    alice, bob, carol, dan = (user_factory(name) for name in ("alice", "bob", "carol", "dan"))
    Rating.objects.create(user=alice, game="reversi", value=1800, rated_games=5)  # provisional
    Rating.objects.create(user=bob, game="reversi", value=1700, rated_games=20)
    visitor = new_context().new_page()  # no account, no guest: watching needs neither
    visitor.goto("/watch/?tv=reversi")
    watch = visitor.locator("[data-watch]")
    expect(visitor.locator("#watch-empty")).to_be_visible()
    expect(visitor.locator("#tv-empty")).to_be_visible()
    expect(visitor.locator('.site-header [data-nav="watch"]')).to_have_text("Watch")

    best = people_game(alice, bob, minutes=5, increment=3)
    best_row = visitor.locator(f'tr[data-game-id="{best.pk}"]')
    expect(best_row).to_contain_text("alice 1800?")
    expect(best_row).to_contain_text("bob 1700")
    expect(best_row.locator(".time-control")).to_have_text("5+3")
    expect(watch).to_have_attribute("data-tv-game", str(best.pk))  # on TV without a reload
    expect(visitor.locator("#tv-status")).to_contain_text("alice to move.")

    other = people_game(carol, dan)  # unrated players: below alice and bob's game, and not on TV yet
    expect(visitor.locator("#watch-rows tr")).to_have_count(2)
    assert visitor.locator("#watch-rows tr").first.get_attribute("data-game-id") == str(best.pk)
    expect(watch).to_have_attribute("data-tv-game", str(best.pk))

    in_thread(services.play_move, game_id=best.pk, identity=Identity(alice, None), token="d3", ply=0)
    expect(watch).to_have_attribute("data-tv-ply", "1")  # the TV's board, move by move
    expect(visitor.locator("#tv-board .disc.p0")).to_have_count(4)  # d3 turned d4: black has four
    expect(best_row.locator(".ply")).to_have_text("1")
    expect(best_row.locator(".spectators")).to_have_text("1")  # the TV's own socket watches it

    player = new_context(session_cookie=login_session(alice)).new_page()
    player.goto(f"/play/{best.pk}/")
    player.wait_for_function(READY)
    expect(player.locator("#watchers")).to_have_text("1 watching")
    screenshot(visitor, "watch-desktop")
    assert axe_violations(visitor) == []
    visitor.set_viewport_size(PHONE)
    assert visitor.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(visitor, "watch-phone")

    in_thread(services.resign, game_id=best.pk, identity=Identity(bob, None))
    expect(best_row).to_have_count(0)
    expect(visitor.locator("#tv-status")).to_contain_text("bob resigned.")
    expect(watch).to_have_attribute("data-tv-game", str(other.pk), timeout=20_000)  # the next best game
    expect(visitor.locator("#tv-status")).to_contain_text("carol to move.")
    visitor.close()
    expect(player.locator("#watchers")).to_be_hidden()  # nobody watches alice's page any more
