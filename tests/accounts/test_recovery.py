"""E-mail for recovery (issue #24, item 1): optional, verified, one account's, mailed for real.

The mails go through a real SMTP server that each test starts (aiosmtpd) and the
site's own SMTP backend configured from an EMAIL_URL; the tests follow the links
in them as a player would. Django's SMTP backend sends inside the request, so by
the time a response is back, its mail has been handed to the server.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import timedelta
from email.message import EmailMessage
from http import HTTPStatus

import pytest
from allauth.account.forms import default_token_generator
from allauth.account.models import EmailAddress
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.utils import timezone

from accounts.services import logins
from config.settings import email_settings

pytestmark = pytest.mark.django_db

User = get_user_model()
NOT_SET_UP = "E-mail is not set up on this site"


def link_in(mail: EmailMessage, path: str) -> str:
    body = mail.get_body(preferencelist=("plain",)).get_content()
    # Links are on SITE_URL whatever host the request named (tests/accounts/test_mail_links.py).
    match = re.search(rf"{re.escape(django_settings.SITE_URL)}({re.escape(path)}\S+)", body)
    assert match, body
    return match[1]


@pytest.fixture
def alice(user_factory):
    return user_factory("alice", password="old-pass")


def add_address(client: Client, address: str):
    return client.post("/accounts/email/", {"email": address, "action_add": ""})


def verified_address(user, address: str) -> EmailAddress:
    return EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)


# --- verification ---------------------------------------------------------------


def test_a_player_adds_an_address_and_the_link_mailed_to_it_verifies_it(inbox, alice, client_for):
    client = client_for(alice)
    assert add_address(client, "alice@example.org").status_code == HTTPStatus.FOUND
    address = EmailAddress.objects.get(user=alice)
    assert not address.verified  # it counts only once verified
    page = client.get("/settings/").content.decode()
    assert "alice@example.org" in page and "not verified" in page and "Resend the link" in page

    link = link_in(inbox.only("alice@example.org"), "/accounts/confirm-email/")
    assert client.post(link).status_code == HTTPStatus.FOUND
    address.refresh_from_db()
    assert address.verified
    page = client.get("/settings/").content.decode()
    assert "verified" in page and "not verified" not in page and "Resend the link" not in page

    # The link has done its work: a second use is refused.
    assert client.post(link).status_code == HTTPStatus.NOT_FOUND


def test_the_settings_page_resends_the_link(inbox, alice, client_for, monkeypatch):
    client = client_for(alice)
    add_address(client, "alice@example.org")
    inbox.only("alice@example.org")
    resend = {"email": "alice@example.org", "action_send": ""}
    client.post("/accounts/email/", resend)
    assert inbox.take() == []  # allauth mails an address once per 3 minutes ("confirm_email" rate)
    later = time.time() + 181
    monkeypatch.setattr("allauth.core.internal.ratelimit.time.time", lambda: later)
    client.post("/accounts/email/", resend)
    link = link_in(inbox.only("alice@example.org"), "/accounts/confirm-email/")
    assert client.post(link).status_code == HTTPStatus.FOUND
    assert EmailAddress.objects.get(user=alice).verified


def test_an_expired_verification_link_is_refused(inbox, alice, client_for, monkeypatch):
    client = client_for(alice)
    add_address(client, "alice@example.org")
    link = link_in(inbox.only("alice@example.org"), "/accounts/confirm-email/")
    later = time.time() + 4 * 24 * 3600  # the link lasts 3 days (ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS)
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)
    assert client.post(link).status_code == HTTPStatus.NOT_FOUND
    assert not EmailAddress.objects.get(user=alice).verified


def test_a_second_account_cannot_verify_an_address_another_account_verified(
    inbox, alice, user_factory, client_for
):
    verified_address(alice, "shared@example.org")
    mallory = user_factory("mallory")
    client = client_for(mallory)
    add_address(client, "shared@example.org")
    for mail in inbox.take():
        body = mail.get_body(preferencelist=("plain",)).get_content()
        for link in re.findall(rf"{re.escape(django_settings.SITE_URL)}(/accounts/confirm-email/\S+)", body):
            client.post(link)
    assert not EmailAddress.objects.filter(user=mallory, verified=True).exists()
    assert EmailAddress.objects.get(email="shared@example.org", verified=True).user == alice


def test_registration_still_needs_no_email(inbox):
    response = Client().post(
        "/accounts/signup/", {"username": "Newcomer", "password1": "hunter2", "password2": "hunter2"}
    )
    assert response.status_code == HTTPStatus.FOUND
    assert User.objects.get(username="Newcomer").email == ""
    assert inbox.take() == []


# --- password reset -------------------------------------------------------------


def request_reset(address: str):
    return Client().post("/accounts/password/reset/", {"email": address})


def test_a_forgotten_password_is_reset_through_the_link_mailed_to_the_verified_address(inbox, alice):
    verified_address(alice, "alice@example.org")
    response = request_reset("alice@example.org")
    assert response.status_code == HTTPStatus.FOUND
    link = link_in(inbox.only("alice@example.org"), "/accounts/password/reset/key/")

    client = Client()
    form_page = client.get(link, follow=True)
    assert form_page.status_code == HTTPStatus.OK and not form_page.context.get("token_fail")
    response = client.post(
        form_page.redirect_chain[-1][0], {"password1": "new-pass", "password2": "new-pass"}
    )
    assert response.status_code == HTTPStatus.FOUND
    alice.refresh_from_db()
    assert alice.check_password("new-pass")
    assert Client().post("/accounts/login/", {"login": "alice", "password": "new-pass"}).status_code == 302

    # Used once, the link is dead.
    again = Client().get(link, follow=True)
    assert again.context["token_fail"]


def test_the_reset_mail_speaks_the_language_the_player_browses_in(inbox, alice):
    verified_address(alice, "alice@example.org")
    client = Client()
    client.post("/i18n/setlang/", {"language": "el", "next": "/"})
    client.post("/accounts/password/reset/", {"email": "alice@example.org"})
    mail = inbox.only("alice@example.org")
    assert mail["Subject"].strip() == "[Five Boards] Επαναφορά του κωδικού σας"
    assert "/accounts/password/reset/key/" in mail.get_body(preferencelist=("plain",)).get_content()


def test_after_a_reset_the_owner_logs_in_from_there_while_a_guesser_elsewhere_holds_the_name(
    inbox, alice, monkeypatch
):
    monkeypatch.setattr(logins, "_now", lambda: 1_000_000.0)  # the name's delay never ends by itself
    for number in range(logins.FREE_FAILURES):
        Client(REMOTE_ADDR=f"198.51.100.{number}").post(
            "/accounts/login/", {"login": "alice", "password": "x"}
        )
    verified_address(alice, "alice@example.org")
    owner = Client(REMOTE_ADDR="192.0.2.10")
    owner.post("/accounts/password/reset/", {"email": "alice@example.org"})
    form_page = owner.get(
        link_in(inbox.only("alice@example.org"), "/accounts/password/reset/key/"), follow=True
    )
    owner.post(form_page.redirect_chain[-1][0], {"password1": "new-pass", "password2": "new-pass"})
    response = owner.post("/accounts/login/", {"login": "alice", "password": "new-pass"})
    assert response.status_code == HTTPStatus.FOUND


def test_an_expired_reset_link_is_refused(inbox, alice, monkeypatch):
    verified_address(alice, "alice@example.org")
    request_reset("alice@example.org")
    link = link_in(inbox.only("alice@example.org"), "/accounts/password/reset/key/")
    # Django's PASSWORD_RESET_TIMEOUT is 3 days; the token generator's clock hook moves on 4.
    later = timezone.now().replace(tzinfo=None) + timedelta(days=4)
    monkeypatch.setattr(type(default_token_generator), "_now", lambda self: later)
    page = Client().get(link, follow=True)
    assert page.context["token_fail"]
    alice.refresh_from_db()
    assert alice.check_password("old-pass")


def test_a_reset_mails_only_verified_addresses_and_looks_the_same_for_any_address(inbox, alice, user_factory):
    verified_address(alice, "alice@example.org")
    # The takeover: somebody adds an address to an account without verifying it.
    bob = user_factory("bob")
    EmailAddress.objects.create(user=bob, email="unverified@example.org", verified=False, primary=True)
    bob.email = "unverified@example.org"
    bob.save()

    responses = {
        address: request_reset(address)
        for address in ("alice@example.org", "unverified@example.org", "nobody@example.org")
    }
    assert {(r.status_code, r["Location"]) for r in responses.values()} == {
        (HTTPStatus.FOUND, "/accounts/password/reset/done/")
    }
    assert [mail["To"] for mail in inbox.take()] == ["alice@example.org"]


def test_a_mail_server_refusing_the_mail_is_logged_without_the_link_and_the_page_stays_the_same(
    inbox, alice, caplog
):
    async def refuse(server, session, envelope) -> str:
        return "554 Transaction failed"

    inbox.handle_DATA = refuse  # type: ignore[method-assign]
    verified_address(alice, "alice@example.org")
    response = request_reset("alice@example.org")
    assert (response.status_code, response["Location"]) == (
        HTTPStatus.FOUND,
        "/accounts/password/reset/done/",
    )
    errors = [record.getMessage() for record in caplog.records if record.levelname == "ERROR"]
    assert len(errors) == 1 and "password_reset_key" in errors[0] and "SMTPDataError" in errors[0]
    assert "reset/key" not in caplog.text


# --- without a mail server --------------------------------------------------------


def test_without_email_url_in_production_forgot_password_says_recovery_is_not_set_up(
    alice, settings, mailoutbox, capsys, caplog
):
    for name, value in email_settings("", debug=False).items():
        setattr(settings, name, value)
    verified_address(alice, "alice@example.org")
    login_page = Client().get("/accounts/login/").content.decode()
    assert "/accounts/password/reset/" in login_page

    page = Client().get("/accounts/password/reset/")
    assert page.status_code == HTTPStatus.OK
    assert NOT_SET_UP in page.content.decode()
    assert 'name="email"' not in page.content.decode()

    response = request_reset("alice@example.org")
    assert response.status_code == HTTPStatus.OK
    assert NOT_SET_UP in response.content.decode()
    assert mailoutbox == []
    output = capsys.readouterr()
    assert "reset/key" not in output.out + output.err + caplog.text


def test_without_email_url_an_address_cannot_be_added(alice, client_for, settings):
    for name, value in email_settings("", debug=False).items():
        setattr(settings, name, value)
    client = client_for(alice)
    response = add_address(client, "alice@example.org")
    assert response.status_code == HTTPStatus.OK
    assert NOT_SET_UP in " ".join(response.context["form"].errors["email"])
    assert not EmailAddress.objects.exists()
    assert NOT_SET_UP in client.get("/settings/").content.decode()


# --- EMAIL_URL ---------------------------------------------------------------------


def test_email_url_configures_smtp():
    config = email_settings("submission://mailer:s%40cret@mail.example.org:2525", debug=False)
    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (config["EMAIL_HOST"], config["EMAIL_PORT"]) == ("mail.example.org", 2525)
    assert (config["EMAIL_HOST_USER"], config["EMAIL_HOST_PASSWORD"]) == ("mailer", "s@cret")
    assert config["EMAIL_USE_TLS"] and config["EMAIL_TIMEOUT"] == 10
    assert config["ACCOUNTS_MAIL_ENABLED"]


def test_without_email_url_debug_prints_mails_and_production_sends_none():
    assert email_settings("", debug=True)["EMAIL_BACKEND"].endswith("console.EmailBackend")
    production = email_settings("", debug=False)
    assert production["EMAIL_BACKEND"].endswith("dummy.EmailBackend")
    assert not production["ACCOUNTS_MAIL_ENABLED"]


@pytest.mark.parametrize("url", ["console://", "file:///tmp/mails", "memory://"])
def test_in_production_only_smtp_is_accepted_so_no_link_reaches_a_log(url):
    with pytest.raises(ImproperlyConfigured, match="EMAIL_URL"):
        email_settings(url, debug=False)
    assert email_settings(url, debug=True)["ACCOUNTS_MAIL_ENABLED"]


def manage_with(**env: str) -> subprocess.CompletedProcess:
    """``manage.py shell`` printing the mail settings, with the environment a site would have."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "EMAIL_", "DEFAULT_FROM"))}
    code = (
        "from django.conf import settings as s; print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.ACCOUNTS_MAIL_ENABLED)"
    )
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        cwd=django_settings.BASE_DIR,
        env={**clean, "DJANGO_HTTPS": "0", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_production_site_reads_its_mail_server_from_email_url():
    result = manage_with(
        DJANGO_DEBUG="0", EMAIL_URL="smtp://mail.example.org:25", DEFAULT_FROM_EMAIL="noreply@example.org"
    )
    assert result.stdout.split() == [
        "django.core.mail.backends.smtp.EmailBackend",
        "mail.example.org",
        "True",
    ]
    refused = manage_with(DJANGO_DEBUG="0", EMAIL_URL="console://", DEFAULT_FROM_EMAIL="noreply@example.org")
    assert refused.returncode != 0 and "EMAIL_URL must be smtp://" in refused.stderr
    no_sender = manage_with(DJANGO_DEBUG="0", EMAIL_URL="smtp://mail.example.org:25")
    assert no_sender.returncode != 0 and "set DEFAULT_FROM_EMAIL" in no_sender.stderr


def test_an_unknown_scheme_is_a_clear_error():
    with pytest.raises(ImproperlyConfigured, match="unknown scheme 'smpt'"):
        email_settings("smpt://mail.example.org", debug=True)
