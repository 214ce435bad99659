"""Sessions only for visitors who act: watching the site stores nothing, playing starts a guest.

Issue #24 (6): a thousand cookieless views of a game page made a thousand session
rows. A visitor now gets a session (and its cookie) with the first action that needs
an identity: a new game, joining by invite link, a star.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.contrib.sessions.models import Session
from django.test import Client

from accounts.identity import Identity
from games import services
from games.models import Game
from tests.games.conftest import game_socket
from tests.games.test_consumers import next_of, open_socket

VIEWS = 5  # cookieless visits of each page


def _public_pages(user_factory) -> list[str]:
    alice, bob = user_factory("alice"), user_factory("bob")
    seated = Identity(user=alice, guest=None)
    live = services.create_human_game(
        identity=seated, game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    services.join_game(game_id=live.pk, identity=Identity(user=bob, guest=None), token=live.invite_token)
    waiting = services.create_human_game(
        identity=seated, game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    return [
        "/",
        f"/play/{live.pk}/",  # as a spectator
        f"/play/{waiting.pk}/",
        f"/play/{live.pk}/replay/",
        f"/play/{live.pk}/record.txt",
        f"/join/{waiting.invite_token}/",  # the invitation itself, before accepting it
        "/rankings/",
        "/rankings/reversi/",
        "/players/alice/",
        "/rules/quantum_ttt/",
        "/analysis/ataxx/",
        "/lobby.json",
        "/settings/",
        "/accounts/login/",
        "/accounts/signup/",
    ]


@pytest.mark.django_db
def test_cookieless_visitors_viewing_pages_get_no_session_row_and_no_session_cookie(user_factory):
    pages = _public_pages(user_factory)
    before = Session.objects.count()
    for url in pages:
        for _ in range(VIEWS):
            response = Client().get(url)
            assert response.status_code == 200, url
            assert "sessionid" not in response.cookies, url
    assert Session.objects.count() == before


@pytest.mark.django_db
def test_a_visitor_who_only_looks_at_an_invitation_is_not_seated_and_gets_no_session(user_factory):
    alice = user_factory("alice")
    game = services.create_human_game(
        identity=Identity(user=alice, guest=None),
        game="reversi",
        kind=Game.Kind.INVITE_LINK,
        side=0,
        minutes=5,
    )
    visitor = Client()
    assert visitor.get(f"/join/{game.invite_token}/").status_code == 200
    assert not Session.objects.exists()

    response = visitor.post(f"/join/{game.invite_token}/")  # accepting is the first action
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.guest1_key
    assert "sessionid" in response.cookies and Session.objects.count() == 1


@pytest.mark.django_db
def test_refusals_for_seated_players_only_start_no_session():
    """Abandon, cancel and decline need a seat: a visitor with none is refused, and nothing is stored."""
    visitor = Client()
    for url in ("/play/1/abandon/", "/play/1/cancel/", "/play/1/decline/"):
        response = visitor.post(url)
        assert response.status_code == 302, url
        assert "sessionid" not in response.cookies, url
    assert not Session.objects.exists()


@pytest.mark.django_db
def test_a_visitor_whose_first_action_is_refused_is_told_why_and_left_without_a_session(user_factory):
    alice = user_factory("alice")
    challenge = services.create_human_game(
        identity=Identity(user=alice, guest=None), game="reversi", kind=Game.Kind.LOBBY, side=0, minutes=5
    )
    visitor = Client()
    response = visitor.post(
        "/play/new/", {"game": "reversi", "opponent": "lobby", "minutes": "5", "side": "0"}
    )
    assert response.status_code == 400
    assert "Log in to post an open challenge." in response.content.decode()
    assert "sessionid" not in response.cookies

    response = visitor.post(f"/play/{challenge.pk}/take/", follow=True)
    assert "Log in to take an open challenge." in response.content.decode()
    assert "sessionid" not in visitor.cookies
    assert not Session.objects.exists()
    challenge.refresh_from_db()
    assert challenge.status == Game.Status.WAITING

    response = visitor.post(f"/play/{challenge.pk}/analysis.json")  # not over: nothing to analyse
    assert response.status_code == 409 and response.json()["code"] == "not_finished"
    assert "sessionid" not in response.cookies
    response = visitor.post("/analysis/reversi/evaluate.json", {"fen": "not a position"})
    assert response.status_code == 400
    assert "sessionid" not in response.cookies
    assert not Session.objects.exists()


@pytest.mark.django_db(transaction=True)
async def test_a_visitor_watches_a_game_then_gets_its_session_with_its_own_computer_game(user_factory):
    alice = await database_sync_to_async(user_factory)("alice")
    watched = await database_sync_to_async(services.create_computer_game)(
        identity=Identity(user=alice, guest=None), game="reversi", level="easy", side=0, minutes=5
    )
    browser = Client()
    page = await sync_to_async(browser.get)(watched.get_absolute_url())
    assert page.context["side"] is None
    spectator = game_socket(watched.pk)  # the page's socket, with no cookie to send
    assert (await spectator.connect())[0]
    assert (await next_of(spectator, "state"))["you"] is None
    await spectator.disconnect()
    assert await Session.objects.acount() == 0

    response = await sync_to_async(browser.post)(
        "/play/new/",
        {"game": "reversi", "opponent": "computer", "level": "easy", "minutes": "5", "side": "0"},
    )
    assert response.status_code == 302
    cookie = response.cookies["sessionid"].value
    assert await Session.objects.acount() == 1
    game = await Game.objects.exclude(pk=watched.pk).aget()
    assert game.guest0_key and game.ai1

    page = await sync_to_async(browser.get)(game.get_absolute_url())
    assert page.context["side"] == 0  # the same guest, from the session it got
    ws, state = await open_socket(game.pk, cookie)
    assert state["you"] == 0
    await ws.send_json_to({"type": "move", "move": "d3", "ply": 0, "id": 1})
    assert (await next_of(ws, "ack"))["id"] == 1
    await ws.disconnect()
    assert await Session.objects.acount() == 1
