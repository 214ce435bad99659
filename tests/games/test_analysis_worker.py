"""The analysis task on a real Celery worker process, through queue ``analysis``."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from games.models import Analysis
from tests.games.test_analysis import SHORT_REVERSI, finished_game

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_real_worker_analyses_a_game_from_the_analysis_queue(celery_worker, user_factory):
    ann = user_factory("ann")
    game = finished_game(user=ann)
    client = Client()
    client.force_login(ann)
    assert client.post(f"/play/{game.pk}/analysis.json").json()["status"] == "queued"
    deadline = time.monotonic() + 60
    while (data := client.get(f"/play/{game.pk}/analysis.json").json())["status"] != "done":
        assert data["status"] in ("queued", "running"), data
        assert time.monotonic() < deadline, f"the worker never finished the analysis: {data}"
        time.sleep(0.2)
    stored = Analysis.objects.get(game=game)
    assert stored.done == stored.total == len(SHORT_REVERSI) + 1
    assert [j["move"] for j in stored.judgements] == SHORT_REVERSI
    # White's eighth move lets black wipe it out: a blunder, with the move that avoids it.
    white_last = stored.judgements[7]
    assert white_last["kind"] == "blunder" and white_last["best"] not in (None, SHORT_REVERSI[7])
    assert data["summary"][1]["counts"]["blunder"] >= 1
