"""Sign-up, log-in, log-out and password change through allauth's standard URLs."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.guests import SESSION_KEY as GUEST_KEY
from accounts.guests import get_guest

pytestmark = pytest.mark.django_db

User = get_user_model()


def signup(client: Client, name: str, password: str = "hunter2", password2: str | None = None):
    return client.post(
        "/accounts/signup/", {"username": name, "password1": password, "password2": password2 or password}
    )


def test_a_player_signs_up_with_a_name_and_password_only_and_is_logged_in():
    client = Client()
    response = signup(client, "Alice")
    assert response.status_code == HTTPStatus.FOUND
    user = User.objects.get(username="Alice")
    assert user.email == ""
    assert client.get("/").context["user"] == user


def test_the_signup_page_asks_for_no_email_and_uses_the_site_layout():
    response = Client().get("/accounts/signup/")
    assert response.status_code == HTTPStatus.OK
    assert set(response.context["form"].fields) == {"username", "password1", "password2"}
    assert "base.html" in [t.name for t in response.templates]


@pytest.mark.parametrize("name", ["ab", "a", ""])
def test_a_name_shorter_than_three_characters_is_refused_next_to_the_field(name):
    response = signup(Client(), name)
    assert response.status_code == HTTPStatus.OK
    assert response.context["form"].errors["username"]
    assert not User.objects.exists()


def test_a_four_character_password_is_refused_next_to_the_field():
    response = signup(Client(), "Alice", "abcd")
    assert response.status_code == HTTPStatus.OK
    errors = response.context["form"].errors
    assert "password1" in errors and "5" in " ".join(errors["password1"])
    assert not User.objects.exists()
    assert b"errorlist" in response.content


def test_a_five_character_password_is_enough():
    assert signup(Client(), "Alice", "abcde").status_code == HTTPStatus.FOUND


def test_a_name_taken_in_another_case_is_refused_with_a_clear_message():
    signup(Client(), "Alice")
    response = signup(Client(), "alice")
    assert response.status_code == HTTPStatus.OK
    assert response.context["form"].errors["username"] == ["This name is already taken."]
    assert User.objects.count() == 1


def test_names_are_compared_by_unicode_case_folding_not_just_ascii():
    # SQLite's LOWER() folds ASCII only; the folded key column catches the rest.
    assert signup(Client(), "Σοφία").status_code == HTTPStatus.FOUND
    assert signup(Client(), "ΣΟΦΊΑ").status_code == HTTPStatus.OK
    assert signup(Client(), "Straße").status_code == HTTPStatus.FOUND
    assert signup(Client(), "STRASSE").status_code == HTTPStatus.OK
    assert User.objects.count() == 2


@pytest.mark.parametrize("name", ["हिन्दी", "বাংলা", "Ελένη", "john.doe-2_b", "123"])
def test_names_in_any_script_with_digits_and_some_punctuation_are_accepted(name):
    assert signup(Client(), name).status_code == HTTPStatus.FOUND
    assert User.objects.filter(username=name).exists()


@pytest.mark.parametrize(
    "name",
    [
        "a b c",
        "<script>",
        "bob@example",
        "a+b",
        "...",
        "Guest_4821",
        "admin",
        "x" * 31,
        "\u0301abc",
        "ab\u200bc",
    ],
)
def test_names_with_other_characters_reserved_or_too_long_are_refused(name):
    response = signup(Client(), name)
    assert response.status_code == HTTPStatus.OK
    assert response.context["form"].errors["username"]
    assert not User.objects.exists()


def test_login_logout_and_password_change_use_allauths_urls(user_factory):
    user_factory("alice", password="old-pass")
    client = Client()
    assert client.post("/accounts/login/", {"login": "ALICE", "password": "old-pass"}).status_code == 302
    assert client.get("/accounts/password/change/").status_code == HTTPStatus.OK
    response = client.post(
        "/accounts/password/change/",
        {"oldpassword": "old-pass", "password1": "new-pass", "password2": "new-pass"},
    )
    assert response.status_code == HTTPStatus.FOUND
    assert User.objects.get(username="alice").check_password("new-pass")
    assert client.get("/accounts/logout/").status_code == HTTPStatus.OK  # a confirmation page, not a logout
    client.post("/accounts/logout/")
    assert not client.get("/").context["user"].is_authenticated


def test_a_wrong_password_is_refused_on_login(user_factory):
    user_factory("alice", password="right-pass")
    response = Client().post("/accounts/login/", {"login": "alice", "password": "wrong-pass"})
    assert response.status_code == HTTPStatus.OK
    assert response.context["form"].errors


def _client_with_guest() -> tuple[Client, dict]:
    client = Client()
    session = client.session
    get_guest(session)  # the guest the games pages would have created
    session.save()
    client.cookies["sessionid"] = session.session_key
    return client, dict(session[GUEST_KEY])


def test_the_guest_identity_survives_signup_so_games_can_move_to_the_account():
    client, guest = _client_with_guest()
    assert signup(client, "Alice").status_code == HTTPStatus.FOUND
    assert client.session["_auth_user_id"]
    assert client.session[GUEST_KEY] == guest


def test_the_guest_identity_survives_login(user_factory):
    user_factory("alice", password="secret-pass")
    client, guest = _client_with_guest()
    response = client.post("/accounts/login/", {"login": "alice", "password": "secret-pass"})
    assert response.status_code == HTTPStatus.FOUND
    assert client.session["_auth_user_id"]
    assert client.session[GUEST_KEY] == guest


def test_the_guest_name_is_shown_only_when_the_session_already_has_one():
    client = Client()
    response = client.get("/")
    assert response.context["guest_name"] == ""
    assert GUEST_KEY not in client.session  # viewing a page does not make a guest
    client, guest = _client_with_guest()
    response = client.get("/")
    assert response.context["guest_name"] == guest["name"]
    assert guest["name"].encode() in response.content


def test_a_forged_signup_without_csrf_token_is_refused():
    client = Client(enforce_csrf_checks=True)
    response = signup(client, "Mallory")
    assert response.status_code == HTTPStatus.FORBIDDEN
    assert not User.objects.exists()
