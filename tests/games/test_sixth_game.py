"""A sixth game, tic-tac-toe, lives only in tests/kinds/tictactoe/ and the whole site serves it once
registered: the lobby and its rules page, a game against the computer, a rated game between two
people, the board page and the replay, and the computer's analysis of a finished game (its hooks
live in that folder too). Nothing outside that folder names it."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from games import services
from games.kinds import register, unregister
from games.models import Game
from ratings.models import Rating
from tests.kinds import tictactoe
from tests.people import me


@pytest.fixture
def tic_tac_toe(settings):
    """The game registered for one test, its rules page and renderer found where they live."""
    templates = [dict(engine) for engine in django_settings.TEMPLATES]
    templates[0]["DIRS"] = [*templates[0]["DIRS"], tictactoe.TEMPLATES]
    settings.TEMPLATES = templates
    settings.STATICFILES_DIRS = [*django_settings.STATICFILES_DIRS, tictactoe.STATIC]
    kind = register(tictactoe.kind())
    yield kind
    unregister(kind.slug)


def play(game: Game, moves: list[str], seats: dict[int, object]) -> Game:
    """These moves, each by the seat whose turn it is."""
    for token in moves:
        game.refresh_from_db()
        services.play_move(game_id=game.pk, identity=seats[game.to_move], token=token, ply=game.ply)
    game.refresh_from_db()
    return game


def play_out(game: Game, moves: dict[int, object]) -> Game:
    """Each side in turn plays its first legal move (the player whose seat is in ``moves``)."""
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        side = game.to_move
        legal = game.engine.legal_moves(game.engine_state())
        services.play_move(game_id=game.pk, identity=moves[side], token=legal[0], ply=game.ply)


@pytest.mark.django_db
def test_the_lobby_offers_tic_tac_toe_and_its_rules_page_explains_it(tic_tac_toe, client):
    home = client.get("/").content.decode()
    assert 'data-game="tictactoe"' in home and "Three in a row, on a board of nine." in home
    assert 'href="/rules/tictactoe/"' in home
    rules = client.get("/rules/tictactoe/").content.decode()
    assert "How to play Tic-Tac-Toe" in rules and "Three of your marks in a row" in rules


@pytest.mark.django_db(transaction=True)
def test_alice_plays_the_computer_to_the_end_then_opens_the_board_and_the_replay(tic_tac_toe, alice):
    game = services.create_computer_game(identity=me(alice), game="tictactoe", level="easy", side=0)
    game = play_out(game, {0: me(alice)})  # the computer answers each move (its task runs at once here)
    assert game.status == Game.Status.FINISHED and game.end_reason in {"line", "board_full"}
    assert game.ply >= 5 and game.ai1 == "easy"

    from django.test import Client

    browser = Client()
    browser.force_login(alice)
    board = browser.get(f"/play/{game.pk}/").content.decode()
    assert '"tictactoe": {"module": "/static/tictactoe/tictactoe.js"' in board
    replay = browser.get(f"/play/{game.pk}/replay/")
    assert replay.status_code == 200 and "tictactoe/tictactoe.js" in replay.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_rated_game_between_two_people_rates_them_at_tic_tac_toe(tic_tac_toe, alice, bob):
    created = services.create_human_game(
        identity=me(alice), game="tictactoe", kind=Game.Kind.INVITE_LINK, side=0
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    game = play_out(game, {0: me(alice), 1: me(bob)})  # X fills the top row first: a3 b3 c3... X wins
    assert game.winner == 0 and game.end_reason == "line"
    ratings = {r.user.username: r.value for r in Rating.objects.filter(game="tictactoe")}
    assert ratings == {"alice": 1530, "bob": 1470}  # two new players, K 60 (ratings/elo.py)

    from django.test import Client

    browser = Client()
    browser.force_login(bob)
    assert "Tic-Tac-Toe" in browser.get("/history/").content.decode()  # bob's rated games list it
    assert browser.get("/rankings/tictactoe/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_bob_answers_a_corner_with_a_corner_and_the_analysis_calls_it_a_blunder(tic_tac_toe, alice, bob):
    created = services.create_human_game(
        identity=me(alice), game="tictactoe", kind=Game.Kind.INVITE_LINK, side=0
    )
    game = services.join_game(game_id=created.pk, identity=me(bob), token=created.invite_token)
    game = play(game, ["a3", "a1", "b3", "b1", "c3"], {0: me(alice), 1: me(bob)})
    assert game.status == Game.Status.FINISHED and game.winner == 0

    from django.test import Client

    browser = Client()
    browser.force_login(alice)
    url = f"/play/{game.pk}/analysis.json"
    assert browser.get(url).json() == {"status": "none"}
    assert browser.post(url).status_code == 200  # queued, and the analysis task runs at once here
    result = browser.get(url).json()
    assert result["status"] == "done" and result["budget"] == {"depth": 9}
    # Even at the start and after Alice's corner; won for X (Alice) once Bob took the other corner.
    assert result["chances"] == [0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    corner = result["judgements"][1]
    assert (corner["move"], corner["label"], corner["best"]) == ("a1", "blunder", "b2")
    assert corner["line"] == ["b2", "b3", "c3", "a1"]  # the centre, then blocking Alice's row
    assert [j["label"] for j in result["judgements"] if j["side"] == 0] == ["best", "best", "best"]
    alice_summary, bob_summary = result["summary"]
    assert alice_summary["accuracy"] == 100.0 and bob_summary["counts"]["blunder"] == 1
    replay = browser.get(f"/play/{game.pk}/replay/").content.decode()
    assert '"status": "done"' in replay and '"label": "blunder"' in replay


def test_no_file_of_the_site_names_tic_tac_toe():
    from tests.test_game_slugs import ROOT, SITE

    naming = [
        str(path.relative_to(ROOT))
        for package in SITE
        for path in (ROOT / package).rglob("*")
        if path.suffix in {".py", ".html", ".js", ".css"} and "tictactoe" in path.read_text(encoding="utf-8")
    ]
    assert naming == []


@pytest.mark.django_db(transaction=True)
async def test_two_people_play_it_over_the_game_socket_on_a_clock(tic_tac_toe, human_game):
    from channels.db import database_sync_to_async

    from tests.games.test_consumers import next_of, open_socket

    game_id, (_, alice), (_, bob) = await database_sync_to_async(human_game)(game="tictactoe", minutes=3)
    a, state = await open_socket(game_id, alice)
    b, _ = await open_socket(game_id, bob)
    assert state["you"] == 0 and len(state["game"]["position"]["legal_moves"]) == 9
    assert state["game"]["clock"]["timed"] and state["game"]["clock"]["ms"] == [180_000, 180_000]
    for ply, (ws, token) in enumerate([(a, "a3"), (b, "a1"), (a, "b3"), (b, "b1"), (a, "c3")]):
        await ws.send_json_to({"type": "move", "move": token, "ply": ply, "id": f"m{ply}"})
        assert (await next_of(ws, "ack"))["ply"] == ply
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.winner == 0 and game.end_reason == "line"
    for ws in (a, b):
        await ws.disconnect()
