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
