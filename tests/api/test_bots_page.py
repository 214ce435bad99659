"""The Bots page (issue #41): BOT accounts, online or not, what each accepts; people challenge them there."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from api import bots
from games.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def robot(user_factory):
    return user_factory("robot", is_bot=True)


def say_accepts(api, token: str, **body) -> object:
    return api.client.post(
        "/api/bot/account/accepts",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


def card_of(page: str, username: str) -> str:
    start = page.index(f'data-bot="{username}"')
    return page[start : page.index("</li>", start)]


def test_a_bot_says_what_it_accepts_and_the_page_shows_it_beside_its_status(api, token_for, robot, alice):
    answer = say_accepts(api, token_for(robot, "bot:play"), games=["ataxx", "reversi"], clocks=["5+3", "1+0"])
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"games": ["reversi", "ataxx"], "clocks": ["1+0", "5+3"], "days": []}
    page = Client().get("/bots/").content.decode()
    assert 'href="/bots/"' in page  # the header's link
    card = card_of(page, "robot")
    assert 'data-online="false"' in card and "offline" in card
    assert "Reversi, Ataxx" in card and "1+0, 5+3" in card and ">BOT</abbr>" in card
    assert 'data-bot="alice"' not in page  # people are not listed
    bots.mark_online(robot.pk)  # what its event stream does while open
    assert 'data-online="true"' in card_of(Client().get("/bots/").content.decode(), "robot")


def test_what_a_bot_accepts_is_checked_and_a_refusal_changes_nothing(api, token_for, robot, alice):
    token = token_for(robot, "bot:play")
    assert say_accepts(api, token, games=["ataxx"]).status_code == 200
    refused = say_accepts(api, token, games=["chess"])
    assert refused.status_code == 400 and "Unknown game" in refused.json()["error"]
    refused = say_accepts(api, token, clocks=["5 minutes"])
    assert refused.status_code == 400 and "5+3" in refused.json()["error"]
    robot.refresh_from_db()
    assert robot.bot_accepts["games"] == ["ataxx"]
    # A person's token is not a BOT's.
    assert say_accepts(api, token_for(alice, "bot:play"), games=["ataxx"]).status_code == 403


def test_a_person_challenges_a_bot_from_the_page_with_what_it_accepts_only(
    client, api, token_for, robot, alice
):
    say_accepts(api, token_for(robot, "bot:play"), games=["ataxx"], clocks=["3+2"], days=[3])
    client.force_login(alice)
    page = client.get("/bots/").content.decode()
    form = card_of(page, "robot")
    assert 'action="/bots/robot/challenge/"' in form and 'value="3+2"' in form and 'value="d3"' in form
    assert 'value="reversi"' not in form  # a game it does not play is not offered
    refused = client.post("/bots/robot/challenge/", {"game": "reversi", "clock": "3+2"}, follow=True)
    assert "Choose one of the games and time controls this BOT accepts." in refused.content.decode()
    assert not Game.objects.exists()
    answer = client.post("/bots/robot/challenge/", {"game": "ataxx", "clock": "3+2", "rated": "on"})
    game = Game.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/play/{game.pk}/"
    assert (game.kind, game.invited_user, game.created_by, game.game) == (
        Game.Kind.DIRECT,
        robot,
        alice,
        "ataxx",
    )
    assert (game.time_control, game.increment, game.casual) == (180, 2, False)
    # The same challenge the API makes: the BOT's event stream lists it.
    from api import playstate

    assert game.pk in playstate.open_challenges(robot.pk)


def test_guests_see_the_page_but_must_log_in_to_challenge(client, robot):
    page = client.get("/bots/").content.decode()
    assert "Log in to challenge a BOT." in page and "/bots/robot/challenge/" not in page
    assert client.post("/bots/robot/challenge/", {"game": "ataxx", "clock": "3+2"}).status_code == 302
    assert not Game.objects.exists()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_bot_is_online_while_its_event_stream_is_open_and_offline_once_it_closes(
    services, database_url_for_processes, robot, token_for
):
    import time

    import requests

    _proc, port = services.start_daphne(database_url_for_processes, env={"API_STREAM_HEARTBEAT_SECONDS": "1"})
    site = f"http://127.0.0.1:{port}"

    def shown_online() -> bool:
        return 'data-online="true"' in card_of(requests.get(f"{site}/bots/", timeout=30).text, "robot")

    def wait_for(*, online: bool) -> None:
        deadline = time.monotonic() + 30
        while shown_online() is not online:
            assert time.monotonic() < deadline, (
                f"the Bots page never showed robot {'on' if online else 'off'}line"
            )
            time.sleep(0.2)

    assert not shown_online()
    stream = requests.get(
        f"{site}/api/stream/event",
        headers={"Authorization": f"Bearer {token_for(robot, 'bot:play')}"},
        stream=True,
        timeout=30,
    )
    assert stream.status_code == 200
    wait_for(online=True)
    stream.close()
    wait_for(online=False)
