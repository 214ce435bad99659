"""A spectator whose daphne process is killed stops counting, and the players are told.

kill -9 closes no socket, so no close says the spectator left; the spectators are
kept on presence's processes (games/live/spectators.py): once the killed process's
heartbeat is stale it counts for nobody, and the survivor that reaps it announces
the new count. The TTL is 2 s here instead of 45 s.
"""

from __future__ import annotations

import asyncio
import signal

import pytest

from tests.faults.test_presence import (
    ANNOUNCED_WITHIN,
    TTL,
    next_message,
    services_game,
    session_cookie,
    socket_to,
)

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


async def watchers_until(ws, count: int, timeout: float) -> dict:
    async with asyncio.timeout(timeout):
        while True:
            message = await next_message(ws, "watchers", timeout)
            if message["count"] == count:
                return message


def test_a_spectator_whose_daphne_is_killed_stops_counting_and_the_players_hear_it(
    services, database_url_for_processes, user_factory
):
    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    game = services_game(alice, bob)
    short_ttl = {"PRESENCE_TTL_SECONDS": str(TTL)}
    proc_a, port_a = services.start_daphne(database_url_for_processes, env=short_ttl)
    _, port_b = services.start_daphne(database_url_for_processes, env=short_ttl)
    alice_cookie, carol_cookie = session_cookie(alice), session_cookie(carol)

    async def scenario() -> tuple[dict, dict, int]:
        async with socket_to(port_b, game.pk, alice_cookie) as alice_ws:
            await next_message(alice_ws, "state", 10)
            async with socket_to(port_a, game.pk, carol_cookie) as carol_ws:
                await next_message(carol_ws, "state", 10)
                arrived = await watchers_until(alice_ws, 1, 10)
                await asyncio.sleep(TTL * 2)  # past a few heartbeats, a live process's spectator still counts
                async with socket_to(port_b, game.pk, alice_cookie) as alice_tab:
                    still = (await next_message(alice_tab, "state", 10))["watchers"]
                assert still == 1
                proc_a.send_signal(signal.SIGKILL)  # carol's socket never closes cleanly
                await asyncio.to_thread(proc_a.wait)
                gone = await watchers_until(alice_ws, 0, ANNOUNCED_WITHIN)
            async with socket_to(port_b, game.pk, alice_cookie) as alice_tab:
                later = (await next_message(alice_tab, "state", 10))["watchers"]
        return arrived, gone, later

    arrived, gone, later = asyncio.run(scenario())
    assert gone["seq"] > arrived["seq"], "a newer notice than her arrival, so pages take it"
    assert later == 0, "a page opened afterwards counts nobody"
