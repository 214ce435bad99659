"""An arena in three browsers: alice creates it, bob joins, they are sent to their game, carol watches the standings."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.pages import READY, in_thread
from tournaments import services
from tournaments.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_create_join_play_and_the_standings_follow_live(new_context, login_session, user_factory):
    alice, bob, carol = (
        new_context(session_cookie=login_session(user_factory(name))).new_page()
        for name in ("alice", "bob", "carol")
    )
    alice.goto("/")
    alice.click('[data-nav="tournaments"]')
    form = alice.locator("[data-create-tournament]")
    form.locator("#id_name").fill("Tea-time arena")
    form.locator("#id_kind").select_option("arena")
    form.locator("#id_game").select_option("reversi")
    form.locator("#id_minutes").select_option("1")
    form.locator("#id_starts_in").select_option("0")
    form.locator('button[type="submit"]').click()
    alice.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    tournament = Tournament.objects.get(name="Tea-time arena")
    in_thread(services.start_if_due, tournament.pk)  # beat's job, every 2 s on the site
    expect(alice.locator("[data-standings] tr")).to_have_count(1)

    carol.goto(f"/tournaments/{tournament.pk}/")
    expect(carol.locator("[data-standings] [data-player='alice']")).to_be_visible()
    bob.goto(f"/tournaments/{tournament.pk}/")
    bob.click('[data-action="join"]')

    # Paired at once: both pages go to the game, and carol sees it among the games being played.
    bob.wait_for_url("**/play/*/")
    alice.wait_for_url("**/play/*/")
    bob.wait_for_function(READY)
    alice.wait_for_function(READY)
    expect(carol.locator("[data-games] a")).to_have_count(1)
    expect(carol.locator("[data-standings] tr")).to_have_count(2)
    loser = bob if bob.evaluate("window.__game.you") == 0 else alice
    winner_name = "alice" if loser is bob else "bob"

    loser.click('[data-action="resign"]')
    loser.locator('#confirm-resign button[value="confirm"]').click()
    expect(loser.locator("#result")).to_contain_text("You lost.")

    # Carol's page follows without a reload: the winner leads with 2 points, the game is gone from the list.
    first_row = carol.locator("[data-standings] tr").first
    expect(first_row).to_have_attribute("data-player", winner_name)
    expect(first_row.locator("[data-points]")).to_have_text("2")
    expect(carol.locator("[data-no-games]")).to_be_visible()
    expect(carol.locator("[data-countdown]")).to_have_text(re.compile(r"^\d+:\d\d$"))
