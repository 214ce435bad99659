"""The OpenAPI document against the app itself (schemathesis, in-process over WSGI): no 500, and every
answer matches the document (status, content type, body, headers)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, given, settings

from config.wsgi import application
from games.models import Game
from ratings.models import Rating
from tournaments.models import Participant, Tournament


@pytest.fixture
def seeded(db, alice, bob, settings):
    """A little of everything, so that known names and ids answer 200 with real content."""
    settings.API_RATE_PER_IP = 100_000  # else the limit answers most requests (429 is documented anyway)
    now = timezone.now()
    common = {"game": "reversi", "kind": Game.Kind.DIRECT, "user0": alice, "user1": bob, "started_at": now}
    finished = Game.objects.create(
        **common,
        status=Game.Status.FINISHED,
        winner=0,
        end_reason="resign",
        finished_at=now,
        tokens=["d3"],
        ply=1,
    )
    Game.objects.create(**common, status=Game.Status.ACTIVE)
    Rating.objects.create(user=alice, game="reversi", value=1520, rated_games=3)
    tournament = Tournament.objects.create(name="Arena", game="reversi", starts_at=now - timedelta(minutes=1))
    Participant.objects.create(tournament=tournament, user=alice, score=2)
    return {"name": "alice", "game_id": finished.pk, "tournament_id": tournament.pk, "game": "reversi"}


@pytest.fixture
def api_schema(seeded):
    # As Django's test client does: the test's transaction holds the one connection, which the
    # end of each WSGI request would otherwise close.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/openapi.json", application)
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def test_every_endpoint_keeps_to_the_document(api_schema):
    # schemathesis's own pytest decorator does not run under this pytest; its strategies do.
    for result in api_schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def check(case) -> None:
            case.call_and_validate()

        check()


def test_the_seeded_objects_answer_as_documented(api_schema, seeded):
    for result in api_schema.get_all_operations():
        operation = result.ok()
        if "read" not in operation.definition.raw.get("tags", ()):
            continue  # the Play API needs a token: below
        params = {
            key: seeded[key] for key in ("name", "game_id", "tournament_id", "game") if key in operation.path
        }
        case = operation.Case(path_parameters=params)
        response = case.call_and_validate()
        assert response.status_code == 200, (operation.path, response.text)


def _play_operations(api_schema):
    for result in api_schema.get_all_operations():
        operation = result.ok()
        if "read" not in operation.definition.raw.get("tags", ()):
            yield operation


def test_the_play_endpoints_keep_to_the_document_with_a_token(api_schema, alice):
    """Commands with a real token (challenges, moves in made-up games...): no 500, every answer as documented.

    The streams are left out here: with a valid token they stream without end, which a WSGI
    call cannot read; tests/api/test_play_streams.py runs them on daphne.
    """
    from api import tokens

    secret = tokens.create_token(user=alice, name="contract", scopes=["challenge", "board:play"]).secret
    for operation in _play_operations(api_schema):
        if operation.method.upper() == "GET":
            continue

        @given(case=operation.as_strategy())
        @settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def check(case) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {secret}"}
            # A schema-valid command may still be refused (not your turn, no such challenge): 4xx is its
            # documented answer, so only "accepted" is not demanded; the rest of the checks hold.
            response = case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])
            assert response.status_code < 500

        check()


def test_a_token_without_the_scope_gets_403_from_every_play_endpoint(api_schema, alice, seeded):
    from api import tokens

    secret = tokens.create_token(user=alice, name="read only", scopes=["read"]).secret
    operations = list(_play_operations(api_schema))
    assert len(operations) >= 20  # challenges, the event stream, and each game endpoint twice (bot, board)
    for operation in operations:
        params = {name: "bob" if name == "username" else seeded["game_id"] for name in _path_names(operation)}
        if "move" in params:
            params["move"] = "d3"
        if "answer" in params:
            params["answer"] = "yes"
        case = operation.Case(path_parameters=params, headers={"Authorization": f"Bearer {secret}"})
        if operation.method.upper() == "POST" and operation.body:
            case.body = {}
        response = case.call_and_validate()
        assert response.status_code == 403, (operation.path, response.text)


def _path_names(operation) -> list[str]:
    import re

    return re.findall(r"{(\w+)}", operation.path)
