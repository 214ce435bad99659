"""A refused analysis request over HTTP: every refusal gets its status code, none a server error."""

from __future__ import annotations

import pytest
from django.test import Client

from games.services import analysis
from tests.games.conftest import capture_analysis_tasks
from tests.games.test_analysis import finished_game

pytestmark = pytest.mark.django_db


def test_a_guest_asking_while_too_many_guests_analyse_is_told_to_wait(guest_factory, monkeypatch, settings):
    capture_analysis_tasks(monkeypatch, "analyse_game")
    settings.ANALYSIS_GUESTS_AT_ONCE = 1
    analysis.request_analysis(game_id=finished_game().pk, identity=guest_factory()[0])
    refused = Client().post(f"/play/{finished_game().pk}/analysis.json")
    assert refused.status_code == 429
    assert refused.json()["code"] == "guests_busy" and "log in" in refused.json()["error"]
