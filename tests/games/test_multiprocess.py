"""Real processes: two daphne servers sharing the channel layer and the database.

In CI these run against PostgreSQL and Redis; with `make test` against SQLite
and the embedded Redis. Either way nothing about a game may live in one
process's memory. With SITE_URL (CI's deploy stage) the players connect through
nginx to the layout's daphne processes instead of ones started here.
"""

from __future__ import annotations

import asyncio
import signal
import time

import pytest
from django.test import Client

from accounts.identity import Identity
from games import services
from games.live.bot import GameBot
from games.models import Game, Move
from tests.processes import EXTERNAL_SITE, site_ws_url

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


@pytest.fixture
def two_players(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = services.create_human_game(
        identity=Identity(alice, None), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=15
    )
    services.join_game(game_id=game.pk, identity=Identity(bob, None), token=game.invite_token)
    return game.pk, session_cookie(alice), session_cookie(bob)


def wait_for_the_worker(game_id: int, timeout: float = 30) -> None:
    """The game's end queues its rating task; let the worker finish before the
    test's tables are emptied (on PostgreSQL a TRUNCATE racing that task deadlocks)."""
    from ratings.models import AppliedGame

    deadline = time.monotonic() + timeout
    while not AppliedGame.objects.filter(game_id=game_id).exists():
        assert time.monotonic() < deadline, "the worker never applied the finished game"
        time.sleep(0.2)


def ws_url(port: int, game_id: int) -> str:
    return f"ws://127.0.0.1:{port}/ws/game/{game_id}/"


def test_two_players_on_two_daphne_processes_play_a_whole_game(
    services, celery_worker, database_url_for_processes, two_players
):
    game_id, alice, bob = two_players
    if EXTERNAL_SITE:  # nginx spreads the two sockets over the layout's daphne processes
        url = site_ws_url(f"/ws/game/{game_id}/")
        black = GameBot(url, cookie=alice, origin=EXTERNAL_SITE)
        white = GameBot(url, cookie=bob, origin=EXTERNAL_SITE)
    else:
        _, port_a = services.start_daphne(database_url_for_processes)
        _, port_b = services.start_daphne(database_url_for_processes)
        black = GameBot(ws_url(port_a, game_id), cookie=alice)
        white = GameBot(ws_url(port_b, game_id), cookie=bob)

    async def play():
        return await asyncio.gather(black.play(timeout=180), white.play(timeout=180))

    seen_a, seen_b = asyncio.run(play())
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.end_reason in ("board_full", "no_moves")
    assert seen_a["v"] == seen_b["v"] == game.version
    assert seen_a["moves"] == seen_b["moves"] == game.tokens
    assert list(Move.objects.filter(game=game).values_list("token", flat=True)) == game.tokens
    assert not black.errors and not white.errors
    wait_for_the_worker(game_id)


@pytest.mark.skipif(
    bool(EXTERNAL_SITE),
    reason="starts and kills its own daphne; through nginx, "
    "tests/deploy kills one of the layout's processes instead",
)
def test_a_killed_daphne_process_loses_no_move(
    services, celery_worker, database_url_for_processes, two_players
):
    game_id, alice, bob = two_players
    proc_a, port_a = services.start_daphne(database_url_for_processes)
    _, port_b = services.start_daphne(database_url_for_processes)
    black = GameBot(ws_url(port_a, game_id), cookie=alice, think=lambda: 0.05)
    white = GameBot(ws_url(port_b, game_id), cookie=bob, think=lambda: 0.05)
    moves_before_kill: list[str] = []

    async def kill_mid_game():
        while not (black.snapshot and black.snapshot["ply"] >= 10):
            await asyncio.sleep(0.02)
        moves_before_kill.extend(black.snapshot["moves"])
        proc_a.send_signal(signal.SIGKILL)  # black's server dies with black's socket open
        await asyncio.to_thread(proc_a.wait)
        await asyncio.sleep(0.5)
        await asyncio.to_thread(services.start_daphne, database_url_for_processes, port=port_a)

    async def play():
        await asyncio.gather(black.play(timeout=180), white.play(timeout=180), kill_mid_game())

    asyncio.run(play())
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    assert black.reconnects >= 1, "black's socket was cut by the kill and came back"
    assert game.tokens[: len(moves_before_kill)] == moves_before_kill, (
        "every move from before the crash is kept"
    )
    assert list(Move.objects.filter(game=game).values_list("token", flat=True)) == game.tokens
    assert black.snapshot["moves"] == white.snapshot["moves"] == game.tokens
    wait_for_the_worker(game_id)
