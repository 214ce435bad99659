"""A player's language is theirs, not their browser's: it follows them to another device at log-in.

Before, the menu's choice lived only in a cookie: a player who chose Greek on their
phone logged in on their laptop and got English.
"""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Preferences

pytestmark = pytest.mark.django_db


def log_in(client: Client, name: str):
    response = client.post("/accounts/login/", {"login": name, "password": "secret-pass"})
    assert response.status_code == 302
    return response


def test_a_language_chosen_on_one_device_is_applied_when_logging_in_on_another(user_factory):
    user_factory("alice")
    phone = Client()
    log_in(phone, "alice")
    phone.post("/i18n/setlang/", {"language": "el", "next": "/"})
    assert Preferences.objects.get(user__username="alice").language == "el", (
        "the account remembers the choice"
    )

    laptop = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert '<html lang="en"' in laptop.get("/").content.decode()
    response = log_in(laptop, "alice")
    assert response.cookies["django_language"].value == "el"
    assert '<html lang="el"' in laptop.get("/").content.decode()


def test_a_later_choice_on_the_second_device_is_the_one_that_follows(user_factory):
    user_factory("alice")
    first = Client()
    log_in(first, "alice")
    first.post("/i18n/setlang/", {"language": "hi", "next": "/"})
    second = Client()
    log_in(second, "alice")
    second.post("/i18n/setlang/", {"language": "bn", "next": "/"})
    third = Client()
    log_in(third, "alice")
    assert '<html lang="bn"' in third.get("/").content.decode()


def test_an_account_without_a_language_keeps_the_browser_s(user_factory):
    user_factory("bob")
    client = Client()
    client.cookies["django_language"] = "hi"
    response = log_in(client, "bob")
    assert "django_language" not in response.cookies or response.cookies["django_language"].value == "hi"
    assert '<html lang="hi"' in client.get("/").content.decode()
    assert Preferences.objects.get(user__username="bob").language == "hi", "remembered for the next device"
