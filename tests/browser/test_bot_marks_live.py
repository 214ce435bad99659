"""The live lists mark a BOT's name as the server-rendered ones do (issue #41): an open
challenge a bot posted and the "invited you" notice (home.js, from the feeds), an invitation's
toast on any other page (notify.js), and a bot's chat line (play/chat.js)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.identity import Identity
from games import services
from games.models import Game
from tests.browser.conftest import DESKTOP
from tests.browser.pages import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _post(user, kind: str, **terms) -> Game:
    return in_thread(
        services.create_human_game,
        identity=Identity(user=user, guest=None),
        game="ataxx",
        kind=kind,
        side=0,
        minutes=5,
        **terms,
    )


def test_a_bots_challenge_and_invitation_show_its_mark_when_they_arrive_live(
    new_context, user_factory, login_session, redis_layer
):
    alice, bob = user_factory("alice"), user_factory("bob")
    robot = user_factory("robot", is_bot=True)
    page = new_context(viewport=DESKTOP, session_cookie=login_session(alice)).new_page()
    with page.expect_websocket(lambda ws: ws.url.endswith("/ws/notify/")):
        page.goto("/")
    expect(page.locator("#challenges .empty")).to_be_visible()
    page.wait_for_timeout(500)  # the notification socket's handshake: an event before it would be missed

    # A bot (through the API, in life) and a person post open challenges while alice looks on.
    by_robot, by_bob = _post(robot, Game.Kind.LOBBY), _post(bob, Game.Kind.LOBBY)
    robot_row = page.locator(f'#challenges li[data-game-id="{by_robot.pk}"]')
    bob_row = page.locator(f'#challenges li[data-game-id="{by_bob.pk}"]')
    expect(bob_row).to_contain_text("Ataxx against bob")
    expect(robot_row).to_contain_text("Ataxx against robot")
    mark = robot_row.locator(".bot-mark")
    expect(mark).to_have_text("BOT")
    expect(mark).to_have_attribute("title", "A program plays this account")
    expect(bob_row.locator(".bot-mark")).to_have_count(0)

    # The bot invites her: the notice above the lists names it with its mark.
    _post(robot, Game.Kind.DIRECT, invited_user=alice)
    status = page.locator("#home-status")
    expect(status).to_contain_text("robot")
    expect(status).to_contain_text("invited you to a game.")
    expect(status.locator(".bot-mark")).to_have_text("BOT")


def test_an_invitation_from_a_bot_arrives_on_another_page_as_a_toast_with_its_mark(
    new_context, user_factory, login_session, redis_layer
):
    alice, bob = user_factory("alice"), user_factory("bob")
    robot = user_factory("robot", is_bot=True)
    page = new_context(viewport=DESKTOP, session_cookie=login_session(alice)).new_page()
    with page.expect_websocket(lambda ws: ws.url.endswith("/ws/notify/")):
        page.goto("/tournaments/")  # any page but home: notify.js shows invitations as toasts
    expect(page.locator("html")).to_have_attribute("data-notify-socket", "open")

    by_robot, by_bob = (
        _post(robot, Game.Kind.DIRECT, invited_user=alice),
        _post(bob, Game.Kind.DIRECT, invited_user=alice),
    )
    robot_toast = page.locator(f'[data-invitation="{by_robot.pk}"]')
    bob_toast = page.locator(f'[data-invitation="{by_bob.pk}"]')
    expect(robot_toast).to_contain_text("robot")
    expect(robot_toast).to_contain_text("invites you to play Ataxx")
    expect(robot_toast.locator(".bot-mark")).to_have_text("BOT")
    expect(bob_toast).to_contain_text("bob invites you to play Ataxx")
    expect(bob_toast.locator(".bot-mark")).to_have_count(0)


def test_a_bots_chat_line_shows_its_mark_live_and_after_a_reload(new_context, user_factory, login_session):
    from chat import services as chat
    from tests.browser.pages import open_game

    alice, robot = user_factory("alice"), user_factory("robot", is_bot=True)
    created = _post(alice, Game.Kind.INVITE_LINK)
    in_thread(
        services.join_game, game_id=created.pk, identity=Identity(robot, None), token=created.invite_token
    )
    page = new_context(viewport=DESKTOP, session_cookie=login_session(alice)).new_page()
    open_game(page, f"/play/{created.pk}/")
    expect(page.locator("#chat")).to_be_visible()

    # The bot writes through the Play API's chat (chat.services, as here); alice's line has no mark.
    in_thread(chat.post_line, game_id=created.pk, identity=Identity(robot, None), preset="good_luck")
    page.click('[data-preset="hello"]')
    names = page.locator("#chat-lines .chat-line .chat-name")
    expect(names).to_have_text(["robot BOT", "alice"])
    expect(names.first.locator(".bot-mark")).to_have_attribute("title", "A program plays this account")
    expect(names.nth(1).locator(".bot-mark")).to_have_count(0)
    page.reload()  # the history the page asks for on connecting says so too
    expect(page.locator("#chat-lines .chat-line .chat-name")).to_have_text(["robot BOT", "alice"])
