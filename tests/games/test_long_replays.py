"""Long replays cost a bounded amount per request (issue #38, finding 8).

A 3,000-ply Ataxx game made a 6.56 MB replay page: every position's view was on
it. The page now carries the moves and one page of positions; the others come
from positions.json, a page at a time, kept in the cache once the game is over.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from games import services
from games.engines import get
from games.engines.ataxx import AtaxxEngine
from games.engines.base import replay
from games.models import Analysis
from games.services import replays
from tests.games.test_pages import json_script
from tests.long_games import long_ataxx_game, long_ataxx_tokens
from tests.people import me

pytestmark = [pytest.mark.django_db]

PAGE_BOUND = 200_000  # bytes: the 3,000-ply page was 6.56 MB


@pytest.fixture
def views_made(monkeypatch):
    """How many Ataxx board views were built (the replay's cost per position)."""
    made = []
    original = AtaxxEngine.view

    def counted(self, state):
        made.append(1)
        return original(self, state)

    monkeypatch.setattr(AtaxxEngine, "view", counted)
    return made


def test_a_3000_ply_replay_page_is_small_and_builds_one_page_of_positions(views_made):
    cache.clear()
    game = long_ataxx_game(3000)
    engine = get("ataxx")
    views_made.clear()
    response = Client().get(f"/play/{game.pk}/replay/")
    assert response.status_code == 200
    assert len(response.content) < PAGE_BOUND, len(response.content)
    # One page of positions, plus the snapshot's own final view.
    assert len(views_made) <= replays.PAGE + 1
    data = json_script(response.content.decode(), "replay-data")
    assert data["moves"] == game.tokens and data["start"] == 3000
    (page,) = data["pages"]
    last = replay(engine, game.tokens)
    assert page["from"] <= 3000 < page["from"] + replays.PAGE
    assert page["positions"][3000 - page["from"]] == engine.view(last)
    assert page["fens"][3000 - page["from"]] == engine.fen(last)
    # The game is over: the second viewer's page is read from the cache.
    views_made.clear()
    again = Client().get(f"/play/{game.pk}/replay/")
    assert json_script(again.content.decode(), "replay-data")["pages"] == [page]
    assert len(views_made) <= 1  # the snapshot's final position only


def test_the_pages_put_together_are_every_position_of_the_game(views_made):
    cache.clear()
    game = long_ataxx_game(100)
    engine = get("ataxx")
    client = Client()
    positions, fens = [], []
    for index in range(replays.last_page(game) + 1):
        response = client.get(f"/play/{game.pk}/replay/positions.json", {"page": index})
        assert response.status_code == 200
        assert "max-age" in response["Cache-Control"]  # a finished game's pages never change
        page = response.json()
        assert page["page"] == index and page["from"] == len(positions)
        positions += page["positions"]
        fens += page["fens"]
    state = engine.initial()
    expected, expected_fens = [engine.view(state)], [engine.fen(state)]
    for token in game.tokens:
        state = engine.play(state, token)
        expected.append(engine.view(state))
        expected_fens.append(engine.fen(state))
    assert positions == expected and fens == expected_fens
    # Asked again: from the cache, no board built.
    views_made.clear()
    assert (
        client.get(f"/play/{game.pk}/replay/positions.json", {"page": 1}).json()["positions"]
        == expected[30:60]
    )
    assert views_made == []


def test_bad_page_requests_are_refused_clearly():
    game = long_ataxx_game(100)
    client = Client()
    url = f"/play/{game.pk}/replay/positions.json"
    bad = client.get(url, {"page": "x"})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_page"
    assert client.get(url).status_code == 400
    beyond = client.get(url, {"page": replays.last_page(game) + 1})
    assert beyond.status_code == 404 and beyond.json()["error"] == "bad_page"
    assert client.get("/play/999999/replay/positions.json", {"page": 0}).status_code == 404


def test_a_replay_opens_at_the_ply_asked_for_with_that_page():
    game = long_ataxx_game(400)
    engine = get("ataxx")
    html = Client().get(f"/play/{game.pk}/replay/", {"ply": 123}).content.decode()
    data = json_script(html, "replay-data")
    (page,) = data["pages"]
    assert data["start"] == 123 and page["page"] == replays.page_of(123)
    assert page["positions"][123 - page["from"]] == engine.view(replay(engine, game.tokens[:123]))
    # Past the end or not a number: the last position, as without it.
    assert (
        json_script(Client().get(f"/play/{game.pk}/replay/", {"ply": 9999}).content.decode(), "replay-data")[
            "start"
        ]
        == 400
    )
    assert (
        json_script(Client().get(f"/play/{game.pk}/replay/", {"ply": "-1"}).content.decode(), "replay-data")[
            "start"
        ]
        == 400
    )


def test_a_game_in_play_gives_its_pages_with_the_moves_they_were_made_from(user_factory):
    alice, bob = user_factory("alice"), user_factory("bob")
    game = services.create_human_game(identity=me(alice), game="ataxx", kind="link", side=0)
    services.join_game(game_id=game.pk, identity=me(bob), token=game.invite_token)
    tokens = long_ataxx_tokens(40)
    for ply, token in enumerate(tokens[:35]):
        services.play_move(game_id=game.pk, identity=me(alice if ply % 2 == 0 else bob), token=token, ply=ply)
    client = Client()
    data = json_script(client.get(f"/play/{game.pk}/replay/").content.decode(), "replay-data")
    assert data["over"] is False and data["pages"][0]["fens"] is None
    url = f"/play/{game.pk}/replay/positions.json"
    first = client.get(url, {"page": 0, "moves": "1"})
    assert first.status_code == 200 and "max-age" not in first.get("Cache-Control", "")
    assert (
        len(first.json()["positions"]) == replays.PAGE and first.json()["moves"] == tokens[: replays.PAGE - 1]
    )
    # A move since: the next page is made from the new moves, and says so.
    services.play_move(game_id=game.pk, identity=me(bob), token=tokens[35], ply=35)
    second = client.get(url, {"page": 1, "moves": "1"}).json()
    assert second["moves"] == tokens[:36] and len(second["positions"]) == 36 - replays.PAGE + 1
    engine = get("ataxx")
    assert second["positions"][-1] == engine.view(replay(engine, tokens[:36]))
    assert "moves" not in client.get(url, {"page": 1}).json()


def test_the_analysis_json_leaves_out_the_better_boards_and_gives_one_by_ply():
    game = long_ataxx_game(60)
    engine = get("ataxx")
    board = engine.view(engine.initial())
    judgements = [
        {
            "ply": ply,
            "move": token,
            "kind": "blunder" if ply == 7 else None,
            "best": "b6" if ply == 7 else None,
            "line": [],
            "label": "best",
            "only": False,
            "exact_loss": None,
            "side": ply % 2,
            **({"better_position": board} if ply == 7 else {}),
        }
        for ply, token in enumerate(game.tokens)
    ]
    Analysis.objects.create(
        game=game,
        status=Analysis.Status.DONE,
        done=61,
        total=61,
        judgements=judgements,
        positions=[{"chances": 0.0, "exact": None}] * 61,
        summary=[],
        finished_at=timezone.now(),
    )
    client = Client()
    data = client.get(f"/play/{game.pk}/analysis.json").json()
    assert all("better_position" not in row for row in data["judgements"])
    assert [row["has_better"] for row in data["judgements"]].count(True) == 1 and data["judgements"][7][
        "has_better"
    ]
    page = json_script(client.get(f"/play/{game.pk}/replay/").content.decode(), "analysis-data")
    assert page["judgements"] == data["judgements"]
    assert client.get(f"/play/{game.pk}/analysis.json", {"ply": 7}).json() == {
        "ply": 7,
        "better_position": board,
    }
    assert client.get(f"/play/{game.pk}/analysis.json", {"ply": 8}).json()["better_position"] is None
    assert client.get(f"/play/{game.pk}/analysis.json", {"ply": 999}).json()["better_position"] is None
    assert client.get(f"/play/{game.pk}/analysis.json", {"ply": "x"}).status_code == 400
