"""BOT accounts (issue #41) stay out of tournaments unless the tournament allows them."""

from __future__ import annotations

import pytest

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
