"""Games to watch over a real daphne: the Watch page's feed on /ws/notify/ follows games that start, move and
end, and every game socket hears how many people watch, counted once per person."""

from __future__ import annotations

import asyncio
import json

import pytest

from accounts.identity import Identity
from games import services
from games.models import Game
from tests.config.test_real_sockets import open_socket, session_cookie

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def watch_port(services, database_url_for_processes):
    # A refresh a second rather than two, so the story takes a few seconds.
    _, port = services.start_daphne(database_url_for_processes, env={"GAMES_WATCH_SECONDS": "1"})
    return port


async def until(ws, kind: str, check, timeout: float = 15) -> dict:
    """The first message of ``kind`` for which ``check`` is true."""
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind and check(message):
                return message


def row_of(message: dict, game_id: int) -> dict | None:
    return next((row for row in message["games"] if row["id"] == game_id), None)


def people_game(alice, bob) -> Game:
    game = services.create_human_game(
        identity=Identity(alice, None),
        game="reversi",
        kind=Game.Kind.INVITE_LINK,
        side=0,
        minutes=5,
        increment=3,
    )
    return services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)


def test_a_visitor_s_watch_page_sees_a_game_start_move_and_end_without_reloading(watch_port, user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")

    async def scenario():
        async with open_socket(watch_port, "/ws/notify/") as page:  # a visitor: no cookie, no session
            await page.send(json.dumps({"type": "watch"}))
            empty = await until(page, "watch", lambda m: True)
            game = await asyncio.to_thread(people_game, alice, bob)
            started = await until(page, "watch", lambda m: row_of(m, game.pk) is not None)
            await asyncio.to_thread(
                services.play_move, game_id=game.pk, identity=Identity(alice, None), token="d3", ply=0
            )
            moved = await until(page, "watch", lambda m: (row_of(m, game.pk) or {}).get("ply") == 1)
            await asyncio.to_thread(services.resign, game_id=game.pk, identity=Identity(bob, None))
            ended = await until(page, "watch", lambda m: row_of(m, game.pk) is None)
        return game, empty, started, moved, ended

    game, empty, started, moved, ended = asyncio.run(scenario())
    assert empty["games"] == [] and set(empty["tv"]) == {
        "reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe",
    }  # fmt: skip
    row = row_of(started, game.pk)
    assert [p["name"] for p in row["players"]] == ["alice", "bob"] and row["time_control"] == "5+3"
    assert started["tv"]["reversi"]["id"] == game.pk, "the only Reversi game in play is on TV"
    assert row_of(moved, game.pk)["ply"] == 1
    assert ended["tv"]["reversi"] is None, "the TV has nothing more to show once it ended"


def test_spectators_are_counted_once_per_person_and_the_count_drops_when_one_leaves(watch_port, user_factory):
    alice, bob, carol, dan = (user_factory(name) for name in ("alice", "bob", "carol", "dan"))
    game = people_game(alice, bob)
    cookies = {user.username: session_cookie(user) for user in (alice, carol, dan)}
    path = f"/ws/game/{game.pk}/"

    async def scenario():
        async with open_socket(watch_port, path, cookies["alice"]) as player:
            first_state = await until(player, "state", lambda m: True)
            async with (
                open_socket(watch_port, path, cookies["carol"]) as carol_tab,
                open_socket(watch_port, path, cookies["carol"]) as carol_other_tab,
            ):
                await until(carol_tab, "state", lambda m: True)
                await until(carol_other_tab, "state", lambda m: True)
                async with open_socket(watch_port, path, cookies["dan"]) as dan_ws:
                    dan_state = await until(dan_ws, "state", lambda m: True)
                    two = await until(player, "watchers", lambda m: m["count"] == 2)
                    async with open_socket(watch_port, "/ws/notify/") as page:
                        await page.send(json.dumps({"type": "watch"}))
                        listed = await until(
                            page, "watch", lambda m: (row_of(m, game.pk) or {}).get("spectators") == 2
                        )
                one = await until(player, "watchers", lambda m: m["count"] == 1)
            none = await until(player, "watchers", lambda m: m["count"] == 0)
        return first_state, dan_state, two, listed, one, none

    first_state, dan_state, two, listed, one, none = asyncio.run(scenario())
    assert first_state["watchers"] == 0, "the players are not spectators"
    assert dan_state["watchers"] == 2, "carol's two tabs count once, and dan"
    assert row_of(listed, game.pk)["spectators"] == 2, "the Watch list shows the same count"
    assert two["seq"] < one["seq"] < none["seq"], "each notice is numbered newer than the one before"
