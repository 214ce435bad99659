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


def test_a_page_left_open_through_the_end_switches_to_the_finished_state(
    new_context, login_session, user_factory
):
    # Issue #37, defect 4: a player's page open when the last game ended still
    # said "You are in..." with a Leave button until it was loaded again.
    from games import services as play
    from tests.people import me
    from tournaments.models import Pairing, Participant

    alice, bob, carol = (user_factory(name) for name in ("alice", "bob", "carol"))
    swiss = in_thread(
        services.create,
        user=alice,
        name="One-round Swiss",
        kind="swiss",
        game="ataxx",
        minutes=3,
        starts_in=0,
        rounds=1,
    )
    for user in (alice, bob, carol):
        in_thread(services.join, tournament_id=swiss.pk, user=user)
    in_thread(services.start_if_due, swiss.pk)
    in_thread(services.advance, swiss.pk)  # round 1: two play, the third has the bye
    game = Pairing.objects.get(tournament=swiss, black__isnull=False)
    bye = Pairing.objects.get(tournament=swiss, black__isnull=True).white.user
    page = new_context(session_cookie=login_session(bye)).new_page()
    page.goto(f"/tournaments/{swiss.pk}/")
    expect(page.locator("[data-my-state]")).to_contain_text("You are in")
    expect(page.locator('[data-action="leave"]')).to_be_visible()
    expect(page.locator("[data-countdown]")).to_have_text("1 / 1")

    in_thread(play.resign, game_id=game.game_id, identity=me(game.black.user))

    # The end reaches the open page: its place as a reload would say it, no buttons left.
    swiss.refresh_from_db()
    expect(page.locator("[data-countdown-label]")).to_have_text("Finished")
    place = Participant.objects.get(tournament=swiss, user=bye).place
    expect(page.locator("[data-my-place]")).to_have_text(f"You finished in place {place}.")
    expect(page.locator('[data-action="leave"]')).to_have_count(0)
    expect(page.locator("[data-my-state]")).to_have_count(0)
    expect(page.locator("[data-winner]")).to_be_visible()
    page.reload()
    expect(page.locator("#you-title + p")).to_have_text(f"You finished in place {place}.")


def test_a_player_with_a_correspondence_game_running_is_paired_like_everyone_else(
    new_context, login_session, user_factory
):
    # Issue #37, defect 3: any running game of a player's, even a three-day
    # correspondence game, kept them out of every arena pairing ("you will be
    # paired as soon as another player is free", for days).
    from games import services as play
    from games.models import Game
    from tournaments.models import Participant

    alice, bob, carol, erin = (user_factory(name) for name in ("alice", "bob", "carol", "erin"))
    letters = in_thread(
        play.create_paired_game, game="ataxx", users=(alice, erin), minutes=0, days_per_move=3
    )
    assert letters.status == Game.Status.ACTIVE and letters.days_per_move == 3
    arena = in_thread(
        services.create,
        user=carol,
        name="Busy people's arena",
        kind="arena",
        game="reversi",
        minutes=3,
        starts_in=0,
    )
    in_thread(services.start_if_due, arena.pk)
    pages = {
        user.username: new_context(session_cookie=login_session(user)).new_page()
        for user in (alice, bob, carol)
    }
    for page in pages.values():
        page.goto(f"/tournaments/{arena.pk}/")

    def playing(name: str) -> int:
        """The arena game ``name``'s page went to by itself, once it is there and connected."""
        page = pages[name]
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        page.wait_for_function(READY)
        game_id = int(re.search(r"/play/(\d+)/$", page.url).group(1))
        assert Participant.objects.get(tournament=arena, user__username=name).playing_id == game_id
        return game_id

    # Alice (with her correspondence game) and bob join: they are paired at once.
    pages["alice"].click('[data-action="join"]')
    expect(pages["alice"].locator("[data-my-state]")).to_contain_text("you will be paired as soon as")
    pages["bob"].click('[data-action="join"]')
    first = playing("alice")
    assert playing("bob") == first

    # Carol, the third, waits for a player to be free...
    pages["carol"].click('[data-action="join"]')
    expect(pages["carol"].locator("[data-my-state]")).to_contain_text("you will be paired as soon as")
    expect(pages["carol"].locator("[data-games] a")).to_have_count(1)
    # ...and is paired with the winner as soon as the first game ends: all three have played in the arena.
    pages["bob"].click('[data-action="resign"]')
    pages["bob"].locator('#confirm-resign button[value="confirm"]').click()
    second = playing("carol")
    assert second != first
    winner = pages["alice"]
    winner.wait_for_url(f"**/play/{second}/")  # the game page that ended went to the next game by itself
    winner.wait_for_function(READY)
    second_game = Game.objects.get(pk=second)
    assert {second_game.user0, second_game.user1} == {alice, carol}
    letters.refresh_from_db()
    assert letters.status == Game.Status.ACTIVE  # the correspondence game goes on, untouched


def test_a_bot_that_joins_shows_its_bot_mark_in_the_live_standings(new_context, login_session, user_factory):
    # Issue #41: the standings the page redraws from the socket (tournament.js) showed a bot's name bare.
    carol, bob = user_factory("carol"), user_factory("bob")
    robot = user_factory("robot", is_bot=True)
    arena = in_thread(
        services.create,
        user=carol,
        name="Engines welcome",
        kind="arena",
        game="reversi",
        minutes=3,
        starts_in=0,
        allow_bots=True,
    )
    in_thread(services.start_if_due, arena.pk)
    page = new_context(session_cookie=login_session(carol)).new_page()
    page.goto(f"/tournaments/{arena.pk}/")
    expect(page.locator("[data-no-players]")).to_be_visible()  # the rows below come over the socket

    in_thread(services.join, tournament_id=arena.pk, user=robot)
    in_thread(services.join, tournament_id=arena.pk, user=bob)

    standings = page.locator("[data-standings]")
    expect(standings.locator("tr")).to_have_count(2)
    mark = standings.locator("[data-player='robot'] .bot-mark")
    expect(mark).to_be_visible()
    expect(mark).to_have_text("BOT")
    expect(mark).to_have_attribute("title", "A program plays this account")
    expect(standings.locator("[data-player='bob'] .bot-mark")).to_have_count(0)
