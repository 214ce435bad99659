"""Personal API tokens: made on the settings page, shown once, stored hashed, scoped, revocable, rate-limited."""

from __future__ import annotations

import hashlib
import re
import time
from http import HTTPStatus

import pytest
from django.test import Client

from api.models import ApiToken

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r"bgt_[A-Za-z0-9_-]{43}")


def _create(client: Client, name: str = "my bot", scopes: tuple[str, ...] = ("read",)):
    return client.post("/settings/api-tokens/new/", {"name": name, "scopes": list(scopes)})


def test_a_token_is_made_on_the_settings_page_shown_once_and_only_its_hash_is_kept(alice, client):
    client.force_login(alice)
    page = client.get("/settings/").content.decode()
    assert 'id="api-tokens"' in page and "You have no API tokens." in page

    response = _create(client, "analysis script", ("read", "challenge"))
    assert response.status_code == HTTPStatus.OK
    assert "no-store" in response["Cache-Control"]
    (secret,) = TOKEN.findall(response.content.decode())

    token = ApiToken.objects.get(user=alice)
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    stored = [str(getattr(token, field.attname)) for field in ApiToken._meta.fields]
    assert not any(secret in value for value in stored)  # the secret itself is nowhere in the row
    assert token.scope_list == ["challenge", "read"]
    assert token.last_used_at is None

    settings_page = client.get("/settings/").content.decode()
    assert secret not in settings_page  # shown once: never again
    assert token.prefix in settings_page and "analysis script" in settings_page

    answer = Client().get("/api/user/alice", headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == HTTPStatus.OK
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_revoked_token_is_refused_by_the_very_next_request(alice, client):
    client.force_login(alice)
    (secret,) = TOKEN.findall(_create(client).content.decode())
    program = Client()
    headers = {"Authorization": f"Bearer {secret}"}
    assert program.get("/api/user/alice", headers=headers).status_code == HTTPStatus.OK

    token = ApiToken.objects.get(user=alice)
    response = client.post(f"/settings/api-tokens/{token.pk}/revoke/")
    assert response.status_code == HTTPStatus.FOUND

    refused = program.get("/api/user/alice", headers=headers)
    assert refused.status_code == HTTPStatus.UNAUTHORIZED
    assert "revoked" in refused.json()["error"]
    assert "my bot" not in client.get("/settings/").content.decode()


def test_a_player_cannot_revoke_another_players_token(alice, bob, client, token_for, api):
    secret = token_for(alice)
    client.force_login(bob)
    client.post(f"/settings/api-tokens/{ApiToken.objects.get(user=alice).pk}/revoke/")
    assert api.get("/api/user/alice", secret).status_code == HTTPStatus.OK


def test_guests_cannot_make_tokens(client):
    page = client.get("/settings/").content.decode()
    assert 'id="api-tokens"' not in page
    response = _create(client)
    assert response.status_code == HTTPStatus.FOUND and "/accounts/login/" in response["Location"]
    assert not ApiToken.objects.exists()


def test_a_token_needs_a_name_and_a_known_scope(alice, client):
    client.force_login(alice)
    cases = [
        ({"name": "  ", "scopes": ["read"]}, "Give the token a name"),
        ({"name": "bot"}, "Choose at least one scope."),
        ({"name": "bot", "scopes": ["admin"]}, "Unknown scope."),
    ]
    for form, message in cases:
        page = client.post("/settings/api-tokens/new/", form, follow=True)
        assert page.redirect_chain[-1][0].startswith("/settings/")
        assert message in page.content.decode()
    assert not ApiToken.objects.exists()


def test_a_token_without_the_scope_gets_403_with_a_json_error(alice, token_for, api):
    secret = token_for(alice, "challenge", "bot:play")
    response = api.get("/api/user/alice", secret)
    assert response.status_code == HTTPStatus.FORBIDDEN
    body = response.json()
    assert body["scope"] == "read" and "lacks the scope 'read'" in body["error"]
    assert body["token_scopes"] == ["bot:play", "challenge"]


def test_a_malformed_or_unknown_token_is_401(alice, api):
    for header in ("Bearer nonsense", "Bearer bgt_" + "A" * 43, "Basic YWxpY2U6c2VjcmV0"):
        response = api.client.get("/api/user/alice", headers={"Authorization": header})
        assert response.status_code == HTTPStatus.UNAUTHORIZED
        assert response.json()["error"]


def test_the_api_does_not_act_on_the_session_cookie(alice, client, token_for):
    # A logged-in browser without a token is an anonymous caller: no cookie-borne
    # request can use a player's rights, so the API needs no CSRF token.
    token_for(alice, "challenge")
    client.force_login(alice)
    response = client.get("/api/user/alice")
    assert response.status_code == HTTPStatus.OK
    assert not ApiToken.objects.filter(last_used_at__isnull=False).exists()


def test_each_token_has_its_own_limit_answered_with_429_and_retry_after(alice, bob, token_for, api, settings):
    settings.API_RATE_PER_TOKEN = 3
    first, second = token_for(alice), token_for(bob)
    started = time.time()
    answers = [api.get("/api/user/alice", first) for _ in range(4)]
    statuses = [a.status_code for a in answers]
    if int(time.time() // 60) != int(started // 60):  # a new minute began midway: its window counts afresh
        pytest.skip("the minute changed during the requests")
    assert statuses == [200, 200, 200, 429]
    retry_after = int(answers[-1]["Retry-After"])
    assert 1 <= retry_after <= 60
    assert answers[-1].json()["retry_after"] == retry_after
    assert api.get("/api/user/alice", second).status_code == HTTPStatus.OK  # another token is not held up
    assert api.get("/api/user/alice").status_code == HTTPStatus.OK  # nor anonymous readers


def test_anonymous_readers_are_limited_per_address(alice, token_for, api, settings):
    settings.API_RATE_PER_IP = 2
    started = time.time()
    statuses = [api.get("/api/user/alice").status_code for _ in range(3)]
    other_address = api.client.get("/api/user/alice", REMOTE_ADDR="192.0.2.7").status_code
    if int(time.time() // 60) != int(started // 60):
        pytest.skip("the minute changed during the requests")
    assert statuses == [200, 200, 429]
    assert other_address == HTTPStatus.OK
    assert api.get("/api/user/alice", token_for(alice)).status_code == HTTPStatus.OK  # a token counts apart
    # A wrong token counts against the address too: guessing is limited like reading.
    assert api.get("/api/user/alice", "bgt_" + "B" * 43).status_code == HTTPStatus.TOO_MANY_REQUESTS
