"""A BOT account (issue #41) is marked BOT wherever its name shows; a person's name is not."""

from __future__ import annotations

import re

import pytest

from games import services
from games.models import Game
from games.store import watchlist
from ratings.models import Rating
from tests.people import me

pytestmark = pytest.mark.django_db

MARK = re.compile(r'<abbr class="bot-mark" title="[^"]+">BOT</abbr>')


@pytest.fixture
def robot(user_factory):
    return user_factory("robot", is_bot=True)


def game_between(person, bot) -> Game:
    created = services.create_human_game(
        identity=me(person), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    return services.join_game(game_id=created.pk, identity=me(bot), token=created.invite_token)


def test_the_profile_of_a_bot_says_bot_and_a_persons_does_not(client, robot, alice):
    assert MARK.search(client.get("/players/robot/").content.decode())
    assert not MARK.search(client.get("/players/alice/").content.decode())


def test_the_game_page_marks_the_bots_player_line_and_its_snapshot_says_so(client, robot, alice):
    game = game_between(alice, robot)
    page = client.get(f"/play/{game.pk}/").content.decode()
    lines = re.findall(r'<span class="name">(.*?)</span>', page, re.S)
    assert "alice" in lines[0] and not MARK.search(lines[0])
    assert "robot" in lines[1] and MARK.search(lines[1])
    # The scripts redraw the names from the snapshot (play/text.js showName): it carries the flag.
    assert '"bot": true' in page or '"bot":true' in page


def test_the_watch_list_and_the_rankings_mark_the_bot(client, robot, alice):
    game = game_between(alice, robot)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    (row,) = [entry.as_json() for entry in watchlist.games_in_play()]
    assert [p["bot"] for p in row["players"]] == [False, True]
    seats = client.get("/watch/").content.decode()
    assert re.search(r'<span class="name">robot<abbr class="bot-mark"', seats)
    for user in (alice, robot):
        Rating.objects.create(user=user, game="reversi", value=1600, rated_games=12, wins=12)
    rankings = client.get("/rankings/reversi/").content.decode()
    robot_row = rankings[rankings.index('href="/players/robot/"') :]
    assert MARK.search(robot_row[: robot_row.index("</td>")])
    alice_row = rankings[rankings.index('href="/players/alice/"') :]
    assert not MARK.search(alice_row[: alice_row.index("</td>")])


def test_an_invitation_from_a_bot_on_the_home_page_says_bot_and_one_from_a_person_does_not(
    client, robot, alice, bob
):
    for sender in (robot, bob):
        services.create_human_game(
            identity=me(sender), game="ataxx", kind=Game.Kind.DIRECT, side=0, minutes=5, invited_user=alice
        )
    client.force_login(alice)
    page = client.get("/").content.decode()
    invitations = dict(re.findall(r'<li data-game-id="\d+">\s*(\w+)(.*?)invites you to play', page, re.S))
    assert set(invitations) == {"robot", "bob"}
    assert MARK.search(invitations["robot"]) and not MARK.search(invitations["bob"])
    # The list is redrawn live from /lobby.json (home.js): it says which sender is a BOT.
    listed = client.get("/lobby.json").json()["invitations"]
    assert {row["by"]: row["bot"] for row in listed} == {"robot": True, "bob": False}


def test_the_message_pages_mark_the_bot_that_wrote_and_the_bot_written_to(client, robot, alice, bob):
    from accounts.services.messages import message_send

    message_send(sender=robot, recipient=alice, body="Good game! Again?")
    message_send(sender=bob, recipient=alice, body="Tea later?")
    message_send(sender=alice, recipient=robot, body="Tomorrow.")
    client.force_login(alice)

    inbox = client.get("/messages/").content.decode()
    senders = dict(re.findall(r"<strong>(\w+)(.*?)</strong>", inbox, re.S))
    assert MARK.search(senders["robot"]) and not MARK.search(senders["bob"])

    sent = client.get("/messages/sent/").content.decode()
    assert re.search(r"<strong>To robot" + MARK.pattern + "</strong>", sent)

    conversation = client.get("/messages/with/robot/").content.decode()
    assert re.search(r"<h1>Messages with robot" + MARK.pattern + "</h1>", conversation)
    bubbles = dict(re.findall(r'<div class="bubble-meta"><strong>(\w+)(.*?)</strong>', conversation, re.S))
    assert MARK.search(bubbles["robot"]) and not MARK.search(bubbles["alice"])


def test_an_open_challenge_a_bot_posted_says_bot_in_the_lobby_and_in_its_feed(client, robot, bob):
    # A bot posts open challenges through the API; the home page lists them beside people's.
    for sender in (robot, bob):
        services.create_human_game(identity=me(sender), game="ataxx", kind=Game.Kind.LOBBY, side=0, minutes=5)
    page = client.get("/").content.decode()
    lobby = page[page.index('<ul id="challenges"') :]
    lobby = lobby[: lobby.index("</ul>")]
    challengers = dict(re.findall(r"Ataxx against (\w+)(.*?) \(", lobby, re.S))
    assert set(challengers) == {"robot", "bob"}
    assert MARK.search(challengers["robot"]) and not MARK.search(challengers["bob"])
    # The list is redrawn live from /lobby.json (home.js): each challenge says if a BOT posted it.
    listed = client.get("/lobby.json").json()["challenges"]
    assert {row["by"]: row["bot"] for row in listed} == {"robot": True, "bob": False}


def test_a_game_against_a_bot_is_marked_in_your_games_and_your_move(client, robot, alice):
    game_between(alice, robot)  # alice has the first move
    client.force_login(alice)
    page = client.get("/").content.decode()
    for listing in ("my-games", "your-move"):
        items = page[page.index(f'<ul id="{listing}"') :]
        (seats,) = re.findall(r"Reversi: (.*?)</a>", items[: items.index("</ul>")], re.S)
        assert re.fullmatch(r"alice – robot" + MARK.pattern, seats), seats


def test_the_join_page_of_a_game_a_bot_opened_names_it_with_its_mark(client, robot):
    created = services.create_human_game(
        identity=me(robot), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    page = client.get(f"/join/{created.invite_token}/").content.decode()
    assert re.search(r"Players: robot" + MARK.pattern + " – …", page)


def test_the_invitation_notice_says_whether_a_bot_sent_it(
    robot, alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    # The home page's live "robot invited you to a game." (home.js) marks the name from this flag.
    told = []
    monkeypatch.setattr(
        "games.bus.send_to_group", lambda group, message: told.append(message.get("payload", {}))
    )
    with django_capture_on_commit_callbacks(execute=True):
        for sender in (robot, bob):
            services.create_human_game(
                identity=me(sender),
                game="ataxx",
                kind=Game.Kind.DIRECT,
                side=0,
                minutes=5,
                invited_user=alice,
            )
    invitations = [payload for payload in told if payload.get("type") == "invitation"]
    assert {payload["from"]: payload["bot"] for payload in invitations} == {"robot": True, "bob": False}


def test_a_person_waiting_for_a_bot_to_accept_sees_its_mark(client, robot, alice):
    invitation = services.create_human_game(
        identity=me(alice), game="ataxx", kind=Game.Kind.DIRECT, side=0, minutes=5, invited_user=robot
    )
    client.force_login(alice)
    page = client.get(f"/play/{invitation.pk}/").content.decode()
    assert re.search(r"Waiting for robot" + MARK.pattern + " to accept your invitation.", page)


def test_the_profile_marks_a_bot_among_the_recent_opponents(client, robot, alice, bob):
    for opponent in (robot, bob):
        game = game_between(alice, opponent)
        services.resign(game_id=game.pk, identity=me(opponent))
    page = client.get("/players/alice/").content.decode()
    recent = page[page.index('<ul class="recent-games">') :]
    opponents = dict(re.findall(r'<a href="/players/(\w+)/">\w+</a>(.*?)</span>', recent, re.S))
    assert MARK.search(opponents["robot"]) and not MARK.search(opponents["bob"])


def test_one_message_from_a_bot_and_a_blocked_bot_carry_the_mark(client, robot, alice):
    from accounts.services.blocks import block
    from accounts.services.messages import message_send

    sent = message_send(sender=robot, recipient=alice, body="Good game! Again?")
    client.force_login(alice)
    page = client.get(f"/messages/{sent.message.pk}/").content.decode()
    assert re.search(r"From robot" + MARK.pattern + " to alice,", page)

    block(by=alice, user=robot)
    settings = client.get("/settings/").content.decode()
    assert re.search(r'<a href="/players/robot/">robot</a>' + MARK.pattern, settings)


def test_a_tournament_a_bot_won_names_the_winner_with_its_mark(client, robot, alice):
    from django.utils import timezone

    from tournaments import selectors
    from tournaments import services as tournament_services
    from tournaments.models import Tournament

    won = tournament_services.create(
        user=alice, name="Engines welcome", kind="arena", game="ataxx", minutes=3, allow_bots=True
    )
    Tournament.objects.filter(pk=won.pk).update(
        status=Tournament.Status.FINISHED, winner=robot, finished_at=timezone.now()
    )
    listed = client.get("/tournaments/").content.decode()
    assert re.search(r"winner: robot" + MARK.pattern, listed)
    page = client.get(won.get_absolute_url()).content.decode()
    assert re.search(r"<strong data-winner-name>robot" + MARK.pattern + "</strong>", page)
    # The page redraws the winner from the live standings (tournament.js): they say it is a BOT.
    feed = selectors.snapshot(won.pk)
    assert feed["winner"] == "robot" and feed["winner_bot"] is True


def test_the_your_move_notice_of_a_correspondence_game_says_whether_the_opponent_is_a_bot(
    robot, alice, bob, monkeypatch
):
    # Every page's "Your move against robot" toast (notify.js) marks the name from this flag.
    from games import bus

    told = []
    monkeypatch.setattr("games.bus.send_to_group", lambda group, message: told.append(message["payload"]))
    for opponent in (robot, bob):
        created = services.create_human_game(
            identity=me(alice), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, days_per_move=3
        )
        game = services.join_game(game_id=created.pk, identity=me(opponent), token=created.invite_token)
        bus.send_your_turn(alice.pk, game.pk)  # alice plays first
    turns = [payload for payload in told if payload.get("type") == "your_turn"]
    assert {payload["opponent"]: payload["bot"] for payload in turns} == {"robot": True, "bob": False}


def test_every_page_loads_the_notices_as_a_module_that_shares_the_bot_mark(client, alice):
    # notify.js imports botMark's sentenceWithName (play/text.js): a classic <script> could not.
    client.force_login(alice)
    page = client.get("/tournaments/").content.decode()
    assert re.search(r'<script type="module" src="/static/js/notify\.js[^"]*"></script>', page)


def test_a_bots_chat_lines_carry_its_mark_in_the_replay_and_in_what_the_sockets_hear(
    client, robot, alice, monkeypatch, django_capture_on_commit_callbacks
):
    from chat import services as chat

    heard = []
    monkeypatch.setattr("core.messages.send_to_group", lambda group, event: heard.append(event))
    game = game_between(alice, robot)
    with django_capture_on_commit_callbacks(execute=True):
        chat.post_line(game_id=game.pk, identity=me(robot), preset="good_luck")  # through the API, in life
        chat.post_line(game_id=game.pk, identity=me(alice), preset="hello")
    # Each game socket passes the flag on to its page (play/chat.js marks the name from it).
    assert {event["name"]: event["bot"] for event in heard if event["type"] == "chat.line"} == {
        "robot": True,
        "alice": False,
    }
    services.resign(game_id=game.pk, identity=me(alice))
    replay = client.get(f"/play/{game.pk}/replay/").content.decode()
    names = dict(re.findall(r'<span class="chat-name">(\w+)(.*?)</span>', replay, re.S))
    assert MARK.search(names["robot"]) and not MARK.search(names["alice"])


def test_the_game_record_titles_the_bots_side_bot_as_lichess_does(client, robot, alice):
    from games.engines.record import parse_record_headers

    game = game_between(alice, robot)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    services.resign(game_id=game.pk, identity=me(robot))
    headers, moves = parse_record_headers(client.get(f"/play/{game.pk}/record.txt").content.decode())
    assert (headers["Player0"], headers["Player1"], headers["Player1Title"]) == ("alice", "robot", "BOT")
    assert "Player0Title" not in headers and moves == ["d3"]


def test_the_correspondence_mails_name_a_bot_opponent_with_bot(robot, alice, bob, inbox):
    from allauth.account.models import EmailAddress

    from accounts.models import Preferences
    from games.services.correspondence_mail import send_due_mails

    for person, address in ((alice, "alice@example.org"), (bob, "bob@example.org")):
        EmailAddress.objects.create(user=person, email=address, verified=True, primary=True)
        Preferences.objects.update_or_create(user=person, defaults={"correspondence_mail": True})
        created = services.create_human_game(
            identity=me(person), game="reversi", kind=Game.Kind.INVITE_LINK, side=0, days_per_move=3
        )
        services.join_game(game_id=created.pk, identity=me(robot), token=created.invite_token)
    alice_game = Game.objects.get(user0=alice)
    services.play_move(game_id=alice_game.pk, identity=me(alice), token="d3", ply=0)
    services.play_move(game_id=alice_game.pk, identity=me(robot), token="c5", ply=1)  # alice to move again
    assert send_due_mails() == 2
    mails = {mail["To"]: mail for mail in inbox.take()}
    assert mails["alice@example.org"]["Subject"] == "Your move: Reversi against robot (BOT)"
    body = mails["bob@example.org"].get_content()
    assert "It is your move in Reversi against robot (BOT) (3 days per move)" in body
