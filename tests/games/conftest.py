from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from accounts.guests import Guest
from accounts.identity import Identity
from config.asgi import application
from games import services
from games.models import Game


@pytest.fixture
def guest_factory(db):
    """A browser session holding a guest identity; returns (Identity, session cookie)."""
    counter = iter(range(1000, 9999))

    def make(name: str | None = None) -> tuple[Identity, str]:
        n = next(counter)
        guest = Guest(key=f"guest-key-{n}", name=name or f"Guest {n}")
        session = SessionStore()
        session["guest"] = {"key": guest.key, "name": guest.name}
        session.create()
        return Identity(user=None, guest=guest), session.session_key

    return make


@pytest.fixture
def login_cookie(db):
    def make(user) -> str:
        client = Client()
        client.force_login(user)
        return client.cookies["sessionid"].value

    return make


@pytest.fixture
def player_factory(user_factory, login_cookie):
    """A registered player: returns (Identity, session cookie)."""

    def make(username: str | None = None) -> tuple[Identity, str]:
        user = user_factory(username)
        return Identity(user=user, guest=None), login_cookie(user)

    return make


@pytest.fixture
def human_game(player_factory):
    """A live Reversi game between alice (black, side 0) and bob (white)."""

    def make(
        game: str = "reversi", minutes: int = 5, names: tuple[str, str] = ("alice", "bob"), increment: int = 0
    ):
        alice, alice_cookie = player_factory(names[0])
        bob, bob_cookie = player_factory(names[1])
        created = services.create_human_game(
            identity=alice,
            game=game,
            kind=Game.Kind.INVITE_LINK,
            side=0,
            minutes=minutes,
            increment=increment,
        )
        services.join_game(game_id=created.pk, identity=bob, token=created.invite_token)
        return created.pk, (alice, alice_cookie), (bob, bob_cookie)

    return make


def capture_analysis_tasks(monkeypatch, task: str) -> list[int]:
    """The first argument of every ``task`` the services queue on "analysis" (instead of a broker)."""
    sent: list[int] = []

    def apply_async(args, queue=None):
        assert queue == "analysis"
        sent.append(args[0])

    monkeypatch.setattr(f"games.tasks.{task}.apply_async", apply_async)
    return sent


def game_socket(game_id: int, cookie: str | None = None) -> WebsocketCommunicator:
    headers = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application, f"/ws/game/{game_id}/", headers=headers)
