"""The tournament page's socket over a real daphne: live standings, and your next game's address."""

from __future__ import annotations

import asyncio

import pytest

from games import services as play
from tests.config.test_real_sockets import daphne_port, first, open_socket, session_cookie
from tests.people import me
from tournaments import services
from tournaments.models import Participant

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

__all__ = ["daphne_port"]


def test_a_player_on_the_page_hears_the_pairing_and_the_standings_after_the_result(
    daphne_port, redis_layer, celery_worker, arena, alice, bob
):
    cookie = session_cookie(alice)

    async def scenario():
        async with open_socket(daphne_port, f"/ws/tournament/{arena.pk}/", cookie) as page:
            first_view = await first(page, "standings")
            # The worker pairs and counts; alice's page counts as "on the page" in every process (Redis).
            await asyncio.to_thread(services.join, tournament_id=arena.pk, user=alice)
            await asyncio.to_thread(services.join, tournament_id=arena.pk, user=bob)
            paired = await first(page, "tournament_game")
            game_id = paired["game_id"]
            await asyncio.to_thread(play.resign, game_id=game_id, identity=me(bob))
            while True:  # the standings that carry the result
                update = await first(page, "standings")
                if update["players"] and update["players"][0]["points"] == 2:
                    return first_view, paired, update

    first_view, paired, update = asyncio.run(scenario())
    assert first_view["players"] == [] and first_view["status"] == "running"
    assert paired["url"] == f"/play/{paired['game_id']}/"
    assert update["players"][0]["name"] == "alice" and update["players"][0]["score"] == "2"
    assert Participant.objects.get(user=alice).score == 2


def test_a_player_paired_while_no_page_of_theirs_was_open_is_sent_to_the_game_when_one_opens(
    daphne_port, redis_layer, arena, alice, bob
):
    # Joining is a form: its redirect opens the page only after the pairing was announced to nobody.
    services.join(tournament_id=arena.pk, user=alice)
    services.join(tournament_id=arena.pk, user=bob)
    services.pair_arena(arena.pk)  # unless a worker left by an earlier test did it already
    game_id = Participant.objects.get(tournament=arena, user=bob).playing_id
    assert game_id is not None
    cookie = session_cookie(bob)

    async def scenario():
        async with open_socket(daphne_port, f"/ws/tournament/{arena.pk}/", cookie) as page:
            return await first(page, "tournament_game")

    told = asyncio.run(scenario())
    assert told["game_id"] == game_id and told["url"] == f"/play/{game_id}/"

    play.resign(game_id=game_id, identity=me(bob))

    async def after_the_game():
        async with open_socket(daphne_port, f"/ws/tournament/{arena.pk}/", cookie) as page:
            await first(page, "standings")
            with pytest.raises(TimeoutError):
                await first(page, "tournament_game", timeout=1.5)

    asyncio.run(after_the_game())  # a game that is over sends nobody back to it


def test_the_socket_of_a_tournament_that_does_not_exist_is_refused(daphne_port):
    from websockets.exceptions import InvalidStatus

    async def scenario():
        async with open_socket(daphne_port, "/ws/tournament/999999/"):
            pass

    with pytest.raises(InvalidStatus) as refused:
        asyncio.run(scenario())
    assert refused.value.response.status_code == 403
