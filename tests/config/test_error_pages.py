"""Error pages a player can meet: translated, in the site's layout, with a way back, and no trace.

Before, a form sent from an out-of-date page got Django's bare English "Forbidden
(403) CSRF verification failed" page, and 400/403 were Django's bare pages too.
"""

from __future__ import annotations

import pytest
from django.db import connections
from django.test import Client
from django.utils import translation

pytestmark = pytest.mark.django_db

SECRETS = ("the text a player must never see", "an internal reason", "Traceback", "ZeroDivisionError")


def greek(text: str) -> str:
    with translation.override("el"):
        result = translation.gettext(text)
    assert result != text, f"{text!r} has no Greek translation"
    return result


def greek_client(**kwargs) -> Client:
    client = Client(raise_request_exception=False, **kwargs)
    client.cookies["django_language"] = "el"
    return client


def assert_site_page(page: str, *texts: str) -> None:
    assert '<html lang="el"' in page
    assert 'class="site-header"' in page and greek("Five Boards") in page, "the site's header"
    assert 'class="site-footer"' in page, "the site's footer"
    assert greek("Back to the games") in page and 'href="/"' in page, "a way back"
    for text in texts:
        assert greek(text) in page, text
    for secret in SECRETS:
        assert secret not in page


def test_a_forged_post_gets_the_translated_expired_form_page_with_the_layout_and_a_way_back(user_factory):
    alice = user_factory("alice")
    client = greek_client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get("/")  # the CSRF cookie, as a browser has it
    response = client.post(
        "/play/new/",
        {"game": "reversi", "opponent": "computer"},
        HTTP_REFERER="http://testserver/rules/reversi/",
    )
    assert response.status_code == 403
    page = response.content.decode()
    assert_site_page(page, "This form has expired", "Back to the previous page")
    assert 'href="http://testserver/rules/reversi/"' in page, "back to the page the form came from"
    assert greek("Log out") in page, "the full layout: the navigation knows who is logged in"
    assert "CSRF" not in page


def test_the_way_back_never_leads_to_another_site():
    client = greek_client(enforce_csrf_checks=True)
    response = client.post("/i18n/setlang/", {"language": "hi"}, HTTP_REFERER="https://evil.example/")
    assert response.status_code == 403
    assert "evil.example" not in response.content.decode()


@pytest.mark.urls("tests.config.error_page_urls")
@pytest.mark.parametrize(
    ("path", "status", "heading"),
    [
        ("/bad/", 400, "This request could not be understood"),
        ("/forbidden/", 403, "You may not open this page"),
        ("/no-such-page/", 404, "Page not found"),
        ("/bug/", 500, "Something went wrong on our side"),
    ],
)
def test_every_error_handler_renders_the_translated_page_in_the_layout(path, status, heading):
    response = greek_client().get(path)
    assert response.status_code == status
    assert_site_page(response.content.decode(), heading)


@pytest.mark.urls("tests.config.error_page_urls")
def test_the_500_page_needs_no_database(monkeypatch):
    """A 500 may be the database failing: the page must render without it (and without context processors)."""

    def no_database(*args, **kwargs):
        raise AssertionError("the 500 page touched the database")

    client = greek_client()
    monkeypatch.setattr(connections["default"], "cursor", no_database)
    response = client.get("/bug/")
    assert response.status_code == 500
    assert_site_page(response.content.decode(), "Something went wrong on our side")
