"""The free analysis board: positions by FEN or by moves, evaluations on request."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.identity import Identity
from games.engines import get
from games.engines.base import replay
from games.models import PositionEvaluation
from games.services import analysis, analysis_board
from tests.games.conftest import capture_analysis_tasks

REVERSI = get("reversi")
CORNER_ON_OFFER = "-XOOOOO---XOXO----XXOX----OXOX-----XOO----XXXXXX---X------XXX--- O"


@pytest.fixture
def queued(monkeypatch):
    """Tasks the service queues (after commit), instead of a broker."""
    return capture_analysis_tasks(monkeypatch, "evaluate_position")


def test_positions_come_from_a_fen_and_moves_and_bad_input_is_refused():
    start = analysis_board.board_position("reversi")
    assert start["fen"] == REVERSI.fen(REVERSI.initial())
    after = analysis_board.board_position("reversi", start["fen"], ["d3", "c3"])
    assert after["fen"] == REVERSI.fen(replay(REVERSI, ["d3", "c3"]))
    assert after["position"]["to_move"] == 0
    with pytest.raises(analysis.AnalysisRefused, match="That position is not valid") as bad:
        analysis_board.board_position("reversi", "not a position")
    assert bad.value.code == "bad_position"
    with pytest.raises(analysis.AnalysisRefused, match="That move is not legal here"):
        analysis_board.board_position("reversi", "", ["a1"])
    with pytest.raises(analysis.AnalysisRefused) as unknown:
        analysis_board.board_position("chess")
    assert unknown.value.code == "not_found"


@pytest.mark.django_db
def test_an_evaluation_is_queued_once_then_served_from_the_store(
    user_factory, queued, django_capture_on_commit_callbacks
):
    ann, bob = user_factory("ann"), user_factory("bob")
    with django_capture_on_commit_callbacks(execute=True):
        pending = analysis_board.request_board_evaluation(
            slug="reversi", fen=CORNER_ON_OFFER, identity=Identity(ann, None)
        )
    assert pending["status"] == "pending" and len(queued) == 1
    # Asked again while it runs: nothing new is queued.
    with django_capture_on_commit_callbacks(execute=True):
        analysis_board.request_board_evaluation(
            slug="reversi", fen=CORNER_ON_OFFER, identity=Identity(bob, None)
        )
    assert len(queued) == 1
    assert analysis_board.board_evaluation("reversi", CORNER_ON_OFFER)["status"] == "pending"
    analysis_board.run_board_evaluation(queued[0])
    done = analysis_board.board_evaluation("reversi", CORNER_ON_OFFER)
    assert done["status"] == "done" and done["best"] == "a1" and done["chances"] < -0.3
    again = analysis_board.request_board_evaluation(
        slug="reversi", fen=CORNER_ON_OFFER, identity=Identity(bob, None)
    )
    assert again == done and PositionEvaluation.objects.count() == 1


@pytest.mark.django_db
def test_board_limits_one_at_a_time_and_a_daily_quota(user_factory, queued, settings):
    settings.BOARD_DAILY_QUOTA = 2
    ann = user_factory()
    me = Identity(ann, None)
    first = analysis_board.board_position("reversi", "", ["d3"])["fen"]
    second = analysis_board.board_position("reversi", "", ["c4"])["fen"]
    third = analysis_board.board_position("reversi", "", ["f5"])["fen"]
    analysis_board.request_board_evaluation(slug="reversi", fen=first, identity=me)
    with pytest.raises(analysis.AnalysisRefused, match="Wait for the evaluation"):
        analysis_board.request_board_evaluation(slug="reversi", fen=second, identity=me)
    analysis_board.run_board_evaluation(PositionEvaluation.objects.get(fen=first).pk)
    analysis_board.request_board_evaluation(slug="reversi", fen=second, identity=me)
    analysis_board.run_board_evaluation(PositionEvaluation.objects.get(fen=second).pk)
    with pytest.raises(analysis.AnalysisRefused, match="your 2 evaluations") as over:
        analysis_board.request_board_evaluation(slug="reversi", fen=third, identity=me)
    assert over.value.code == "quota" and over.value.retry_at is not None
    # Positions already evaluated cost nothing.
    assert analysis_board.request_board_evaluation(slug="reversi", fen=first, identity=me)["status"] == "done"
    finished = REVERSI.fen(replay(REVERSI, ["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"]))
    with pytest.raises(analysis.AnalysisRefused, match="already over"):
        analysis_board.request_board_evaluation(slug="reversi", fen=finished, identity=me)


@pytest.mark.django_db
def test_board_pages_and_endpoints(user_factory, queued, django_capture_on_commit_callbacks):
    client = Client()
    page = client.get(f"/analysis/reversi/?fen={CORNER_ON_OFFER.replace(' ', '+')}")
    assert page.status_code == 200 and CORNER_ON_OFFER.encode() in page.content
    bad = client.get("/analysis/reversi/?fen=nonsense")
    assert bad.status_code == 200 and b"That position is not valid" in bad.content
    assert client.get("/analysis/chess/").status_code == 404
    moved = client.post("/analysis/reversi/position.json", {"fen": "", "moves": "d3 c3"})
    assert moved.status_code == 200 and moved.json()["fen"] == REVERSI.fen(replay(REVERSI, ["d3", "c3"]))
    refused = client.post("/analysis/reversi/position.json", {"fen": "", "moves": "a1"})
    assert refused.status_code == 400 and refused.json()["code"] == "illegal"
    with django_capture_on_commit_callbacks(execute=True):  # a guest is made on the spot
        asked = client.post("/analysis/reversi/evaluate.json", {"fen": CORNER_ON_OFFER})
    assert asked.status_code == 200 and asked.json()["status"] == "pending" and queued
    analysis_board.run_board_evaluation(queued[0])
    answer = client.get("/analysis/reversi/evaluate.json", {"fen": CORNER_ON_OFFER}).json()
    assert answer["status"] == "done" and answer["best"] == "a1"
    assert client.put("/analysis/reversi/evaluate.json").status_code == 405
