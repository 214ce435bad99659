"""Every page carries a strict Content-Security-Policy, and no page needs it relaxed.

Issue #24 (7). The browser tests (tests/browser/conftest.py) fail on any violation
Chromium reports; these check the header on every page and that the HTML itself
has nothing the policy would refuse: an inline <script>, a <style>, a style=""
or an on...="" attribute.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from accounts.identity import Identity
from accounts.services.messages import message_send
from games import services
from games.engines import ENGINES
from games.models import Game

POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'", "ws://testserver"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}


def policy_of(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, response.request["PATH_INFO"]
    directives = (part.split() for part in header.split(";") if part.strip())
    return {name: values for name, *values in directives}


class InlineCode(HTMLParser):
    """What a strict policy refuses in a page's HTML: inline scripts, styles and handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and "src" not in names and names.get("type") != "application/json":
            self.found.append(f"inline <script> at line {self.getpos()[0]}")
        if tag == "style":
            self.found.append(f"<style> at line {self.getpos()[0]}")
        for name, _value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f'<{tag} {name}="..."> at line {self.getpos()[0]}')


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


@pytest.fixture
def site(user_factory):
    """alice (staff) and bob with a live game, a finished four tac toe game and a message."""
    alice = user_factory("alice", is_staff=True, is_superuser=True)
    bob = user_factory("bob")
    a, b = Identity(user=alice, guest=None), Identity(user=bob, guest=None)
    live = services.create_human_game(
        identity=a, game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    services.join_game(game_id=live.pk, identity=b, token=live.invite_token)
    finished = services.create_human_game(
        identity=a, game="four_tac_toe", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    services.join_game(game_id=finished.pk, identity=b, token=finished.invite_token)
    services.resign(game_id=finished.pk, identity=b)
    message = message_send(sender=bob, recipient=alice, body="good game").message
    return alice, live, finished, message


def _pages(live: Game, finished: Game, message) -> list[str]:
    per_game = [f"/rules/{slug}/" for slug in ENGINES] + [f"/analysis/{slug}/" for slug in ENGINES]
    return [
        "/",
        f"/play/{live.pk}/",
        f"/play/{finished.pk}/",
        f"/play/{finished.pk}/replay/",
        "/rankings/",
        "/rankings/four_tac_toe/",
        "/history/",
        "/players/bob/",
        "/players/alice/",
        "/profile/edit/",
        "/settings/",
        "/messages/",
        "/messages/sent/",
        "/messages/new/",
        "/messages/with/bob/",
        f"/messages/{message.pk}/",
        "/accounts/password/change/",
        "/accounts/logout/",
        "/admin/",
        "/admin/accounts/user/",
        f"/admin/accounts/user/{live.user0_id}/change/",
        "/admin/accounts/message/",
        "/admin/accounts/user/add/",
        *per_game,
    ]


@pytest.mark.django_db
def test_every_page_carries_the_strict_policy_and_has_no_inline_code(site):
    alice, live, finished, message = site
    player = Client()
    player.force_login(alice)
    for url in _pages(live, finished, message):
        response = player.get(url)
        assert response.status_code == 200, url
        assert policy_of(response) == POLICY, url
        assert "unsafe" not in response.headers["Content-Security-Policy"], url
        assert inline_code(response.content.decode()) == [], url


@pytest.mark.django_db
def test_visitors_pages_and_errors_carry_it_too(site):
    alice = site[0]
    waiting = services.create_human_game(
        identity=Identity(user=alice, guest=None), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    visitor = Client()
    for url in (
        "/",
        "/accounts/login/",
        "/accounts/signup/",
        f"/join/{waiting.invite_token}/",
        "/no-such-page/",
    ):
        response = visitor.get(url)
        assert response.status_code in (200, 404), url
        assert policy_of(response) == POLICY, url
        assert inline_code(response.content.decode()) == [], url


@pytest.mark.django_db
def test_behind_https_the_socket_origin_is_wss_only(settings):
    settings.ALLOWED_HOSTS = ["boards.example"]
    response = Client().get("/", secure=True, headers={"host": "boards.example"})
    assert policy_of(response)["connect-src"] == ["'self'", "wss://boards.example"]
