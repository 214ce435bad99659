"""Links in mails are on the configured SITE_URL, never on the Host a request named (issue #38, 7).

``Host: localhost:6666`` passes ALLOWED_HOSTS (which ignores ports), and allauth built the
reset link from it: a stranger asking a reset for a player had the player mailed a link
to the stranger's own server, key included.
"""

from __future__ import annotations

import re
from http import HTTPStatus

import pytest
from allauth.account.models import EmailAddress
from django.test import Client

pytestmark = pytest.mark.django_db

SITE = "https://games.example.org"


def links(mail) -> list[str]:
    return re.findall(r"\S+://\S+", mail.get_body(preferencelist=("plain",)).get_content())


@pytest.fixture
def alice(user_factory, settings):
    settings.SITE_URL = SITE
    alice = user_factory("alice", password="old-pass")
    EmailAddress.objects.create(user=alice, email="alice@example.org", verified=True, primary=True)
    return alice


def test_a_reset_asked_with_a_forged_host_port_mails_a_link_on_the_site_url(inbox, alice):
    response = Client().post(
        "/accounts/password/reset/", {"email": "alice@example.org"}, HTTP_HOST="localhost:6666"
    )
    assert response.status_code == HTTPStatus.FOUND
    (link,) = links(inbox.only("alice@example.org"))
    assert link.startswith(f"{SITE}/accounts/password/reset/key/"), link
    assert "6666" not in link and "localhost" not in link
    # The link works on the site (its path, on the test client's own host).
    page = Client().get(link.removeprefix(SITE), follow=True)
    assert page.status_code == HTTPStatus.OK and not page.context.get("token_fail")


def test_a_verification_link_asked_with_a_forged_host_is_on_the_site_url(
    inbox, alice, client_for, user_factory
):
    bob = user_factory("bob")
    client = client_for(bob)
    client.post(
        "/accounts/email/", {"email": "bob@example.org", "action_add": ""}, HTTP_HOST="localhost:6666"
    )
    (link,) = links(inbox.only("bob@example.org"))
    assert link.startswith(f"{SITE}/accounts/confirm-email/"), link
