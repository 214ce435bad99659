"""The lobby's filters: a player narrows the open challenges, the list stays live, and casual ones say so."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.models import Game
from ratings.models import Rating
from tests.browser.pages import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def post_challenge(user, game: str, *, minutes: int, increment: int = 0, casual: bool = False) -> Game:
    return in_thread(
        services.create_human_game,
        identity=Identity(user, None),
        game=game,
        kind=Game.Kind.LOBBY,
        minutes=minutes,
        increment=increment,
        casual=casual,
    )


def test_a_player_filters_the_lobby_and_new_challenges_appear_only_when_they_fit(
    new_context, login_session, user_factory, redis_layer
):
    alice, bob, carol, me = (user_factory(n) for n in ("alice", "bob", "carol", "erin"))
    Rating.objects.create(user=bob, game="reversi", value=1900, rated_games=30)
    post_challenge(alice, "reversi", minutes=5, increment=3, casual=True)
    post_challenge(bob, "reversi", minutes=5, increment=3)
    post_challenge(carol, "ataxx", minutes=1)
    page = new_context(session_cookie=login_session(me)).new_page()
    page.goto("/")
    challenges = page.locator("#challenges li[data-game-id]")
    expect(challenges).to_have_count(3)
    casual_row = challenges.filter(has_text="alice")
    expect(casual_row).to_contain_text("Reversi against alice (1500?), 5+3")  # a newcomer's "?"
    expect(casual_row.locator(".casual-tag")).to_have_text("casual")
    expect(challenges.filter(has_text="bob").locator(".casual-tag")).to_have_count(0)
    expect(page.locator("[data-filter-submit]")).to_be_hidden()  # every change applies at once

    page.select_option("#id_game", "reversi")
    expect(challenges).to_have_count(2)
    page.select_option("#id_mode", "rated")
    expect(challenges).to_have_count(1)
    expect(challenges.first).to_contain_text("bob (1900)")
    assert "game=reversi" in page.url and "mode=rated" in page.url
    page.fill("#id_rating_max", "1800")
    page.press("#id_rating_max", "Enter")
    expect(page.locator("#challenges .empty")).to_be_visible()
    page.fill("#id_rating_max", "")
    page.press("#id_rating_max", "Enter")
    expect(challenges).to_have_count(1)

    # Live: a new challenge that fits the filter appears, one that does not stays out.
    post_challenge(carol, "reversi", minutes=3, increment=2)
    expect(challenges).to_have_count(2)
    post_challenge(user_factory("dora"), "reversi", minutes=3, increment=2, casual=True)
    page.wait_for_timeout(1000)
    expect(challenges).to_have_count(2)

    page.select_option("#id_speed", "bullet")
    expect(page.locator("#challenges .empty")).to_be_visible()

    # The filter is kept for the next visit.
    page.goto("/")
    expect(page.locator("#id_speed")).to_have_value("bullet")
    expect(page.locator("#challenges .empty")).to_be_visible()


@pytest.mark.page_only
def test_a_rating_range_upside_down_is_refused_with_a_clear_message(new_context, login_session, user_factory):
    alice, me = user_factory("alice"), user_factory("erin")
    post_challenge(alice, "ataxx", minutes=3, increment=2)
    page = new_context(session_cookie=login_session(me)).new_page()
    page.goto("/")
    page.fill("#id_rating_max", "1600")
    page.press("#id_rating_max", "Enter")
    expect(page.locator("#challenges li[data-game-id]")).to_have_count(1)  # alice: 1500
    page.fill("#id_rating_min", "1800")
    page.press("#id_rating_min", "Enter")
    # Said under the field it is about (tests/browser/test_polish.py measures where).
    expect(page.locator("#filter-error-rating_max")).to_have_text(
        "The highest rating cannot be below the lowest."
    )
    expect(page.locator("#challenges li[data-game-id]")).to_have_count(1)  # the list as it was
