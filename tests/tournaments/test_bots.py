"""BOT accounts (issue #41) stay out of tournaments unless the tournament allows them."""

from __future__ import annotations

import re

import pytest

from tests.accounts.test_bot_mark import MARK
from tournaments import services
from tournaments.models import Participant, Tournament
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db


def test_a_bot_cannot_join_a_tournament_for_people_and_nothing_changes(arena, user_factory):
    robot = user_factory("robot", is_bot=True)
    assert not arena.allow_bots  # the default: tournaments are for people
    with pytest.raises(TournamentError) as refused:
        services.join(tournament_id=arena.pk, user=robot)
    assert refused.value.code == "no_bots" and "BOT" in refused.value.message
    assert not Participant.objects.filter(tournament=arena, user=robot).exists()


def test_a_tournament_that_allows_bots_takes_them_and_people_alike(alice, bob, user_factory):
    robot = user_factory("robot", is_bot=True)
    open_to_bots = services.create(
        user=alice, name="Engines welcome", kind="arena", game="ataxx", minutes=3, allow_bots=True
    )
    services.join(tournament_id=open_to_bots.pk, user=robot)
    services.join(tournament_id=open_to_bots.pk, user=bob)
    assert set(open_to_bots.participants.values_list("user__username", flat=True)) == {"robot", "bob"}


def test_the_create_form_offers_the_choice_and_the_tournament_keeps_it(client, alice):
    client.force_login(alice)
    page = client.get("/tournaments/").content.decode()
    assert 'name="allow_bots"' in page and "BOT accounts may join" in page
    fields = {
        "name": "Bot night",
        "kind": "arena",
        "game": "ataxx",
        "minutes": 3,
        "increment": 0,
        "starts_in": 10,
        "duration": 30,
        "rounds": 4,
    }
    client.post("/tournaments/new/", {**fields, "allow_bots": "on"})
    client.post("/tournaments/new/", {**fields, "name": "People night"})
    assert dict(Tournament.objects.values_list("name", "allow_bots")) == {
        "Bot night": True,
        "People night": False,
    }


@pytest.mark.django_db(transaction=True)
def test_the_standings_mark_a_bot_on_the_page_and_in_the_live_feed(client, alice, bob, user_factory):
    from tests.tournaments.conftest import on_the_page
    from tournaments import selectors

    robot = user_factory("robot", is_bot=True)
    open_to_bots = services.create(
        user=alice,
        name="Engines welcome",
        kind="arena",
        game="reversi",
        minutes=1,
        starts_in=0,
        allow_bots=True,
    )
    services.start_if_due(open_to_bots.pk)
    on_the_page(open_to_bots, robot, bob)
    services.join(tournament_id=open_to_bots.pk, user=robot)
    services.join(tournament_id=open_to_bots.pk, user=bob)  # paired with the robot at once

    # The feed the page's script redraws from (tournament.js): which player and which side is a BOT.
    feed = selectors.snapshot(open_to_bots.pk)
    assert {row["name"]: row["bot"] for row in feed["players"]} == {"robot": True, "bob": False}
    (game,) = feed["games"]
    assert {game["white"]: game["white_bot"], game["black"]: game["black_bot"]} == {
        "robot": True,
        "bob": False,
    }

    # The page as it is first served marks the same rows.
    page = client.get(open_to_bots.get_absolute_url()).content.decode()
    rows = dict(re.findall(r'<tr data-player="(\w+)">(.*?)</tr>', page, re.S))
    assert MARK.search(rows["robot"]) and not MARK.search(rows["bob"])
