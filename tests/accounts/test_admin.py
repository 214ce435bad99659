"""The Django admin lists players, messages and blocks with search and filters."""

from __future__ import annotations

from http import HTTPStatus

import pytest

from accounts.services import blocks
from accounts.services.messages import message_send

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(user_factory, client_for):
    return client_for(user_factory("root", is_staff=True, is_superuser=True))


def test_the_admin_lists_and_searches_players_messages_and_blocks(admin_client_, alice, bob):
    message_send(sender=alice, recipient=bob, body="needle in a haystack")
    blocks.block(by=bob, user=alice)
    pages = {
        "/admin/accounts/user/?q=ali": "alice",
        "/admin/accounts/user/?is_active__exact=1": "bob",
        "/admin/accounts/message/?q=needle": "needle in a haystack",
        "/admin/accounts/message/?read=no": "needle",
        "/admin/accounts/block/?q=bob": "alice",
        f"/admin/accounts/user/{alice.pk}/change/": "alice",
        "/admin/accounts/user/add/": "password1",
    }
    for url, text in pages.items():
        response = admin_client_.get(url)
        assert response.status_code == HTTPStatus.OK, url
        assert text in response.content.decode(), url


def test_the_admin_creates_a_player_with_the_same_name_rules(admin_client_):
    response = admin_client_.post(
        "/admin/accounts/user/add/",
        {
            "username": "ALICE",
            "password1": "x9-long-pass",
            "password2": "x9-long-pass",
            "usable_password": "true",
        },
    )
    assert response.status_code == HTTPStatus.FOUND
    response = admin_client_.post(
        "/admin/accounts/user/add/",
        {
            "username": "alice",
            "password1": "x9-long-pass",
            "password2": "x9-long-pass",
            "usable_password": "true",
        },
    )
    assert response.status_code == HTTPStatus.OK  # taken, ignoring case


def test_the_admin_signs_in_through_the_throttled_site_login(client, user_factory):
    user_factory("root", password="right-pass", is_staff=True, is_superuser=True)
    response = client.get("/admin/login/?next=/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    # The admin's own form no longer checks passwords at all, so it cannot be used to guess them.
    response = client.post("/admin/login/", {"username": "root", "password": "right-pass"})
    assert response.status_code == 302 and "_auth_user_id" not in client.session


def test_guessing_passwords_on_the_site_login_is_throttled(client, user_factory):
    user_factory("root", password="right-pass", is_staff=True)
    for attempt in range(6):
        response = client.post("/accounts/login/", {"login": "root", "password": f"wrong-{attempt}"})
    assert "Too many failed login attempts" in response.content.decode()
    client.post("/accounts/login/", {"login": "root", "password": "right-pass"})
    assert "_auth_user_id" not in client.session  # even the right password waits out the limit
