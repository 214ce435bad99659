"""The Watch page: which games in play a visitor finds there, in what order, and what each row says."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.services.blocks import block
from config.asgi import application
from games import services
from games.models import Game
from games.store import watchlist
from ratings.models import Rating
from tests.people import me

pytestmark = pytest.mark.django_db


def people_game(first, second, *, game: str = "reversi", minutes: int = 5, increment: int = 0) -> Game:
    created = services.create_human_game(
        identity=me(first),
        game=game,
        kind=Game.Kind.INVITE_LINK,
        side=0,
        minutes=minutes,
        increment=increment,
    )
    return services.join_game(game_id=created.pk, identity=me(second), token=created.invite_token)


def rate(user, game: str, value: float, rated_games: int) -> None:
    Rating.objects.update_or_create(
        user=user, game=game, defaults={"value": value, "rated_games": rated_games}
    )


def listed_ids() -> list[int]:
    return [game.id for game in watchlist.games_in_play()]


def test_a_game_between_two_people_shows_its_players_ratings_clock_and_ply(alice, bob):
    game = people_game(alice, bob, minutes=5, increment=3)
    services.play_move(game_id=game.pk, identity=me(alice), token="d3", ply=0)
    rate(alice, "reversi", 1612.4, 4)  # provisional: under 10 rated games
    rate(bob, "reversi", 1488.0, 25)

    (row,) = [entry.as_json() for entry in watchlist.games_in_play()]

    assert row["id"] == game.pk and row["game"] == "reversi" and row["url"] == f"/play/{game.pk}/"
    assert [(p["name"], p["kind"], p["rating"], p["provisional"]) for p in row["players"]] == [
        ("alice", "user", 1612, True),
        ("bob", "user", 1488, False),
    ]
    assert row["time_control"] == "5+3" and row["ply"] == 1 and row["computer"] is False


def test_a_player_without_a_rated_game_shows_no_rating_as_on_the_game_page(alice, bob):
    people_game(alice, bob)
    (row,) = watchlist.games_in_play()
    assert [seat.rating for seat in row.players] == [None, None]


def test_invitations_not_accepted_finished_games_and_idle_computer_games_are_never_listed(alice, bob, carol):
    waiting = services.create_human_game(
        identity=me(carol), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, minutes=5
    )
    finished = people_game(alice, bob)
    services.resign(game_id=finished.pk, identity=me(alice), reason="resign")
    untimed = services.create_computer_game(identity=me(carol), game="reversi", level="hard", side=0)
    easy = services.create_computer_game(identity=me(carol), game="reversi", level="easy", side=0, minutes=5)

    assert Game.objects.get(pk=waiting.pk).status == Game.Status.WAITING
    assert not {waiting.pk, finished.pk, untimed.pk, easy.pk} & set(listed_ids())


def test_games_between_people_come_first_the_strongest_first_then_timed_computer_games(
    alice, bob, carol, user_factory
):
    dan, erin = user_factory("dan"), user_factory("erin")
    weaker = people_game(alice, bob)
    stronger = people_game(carol, dan, game="ataxx")
    rate(carol, "ataxx", 1900, 30)
    rate(dan, "ataxx", 1800, 30)
    computer = services.create_computer_game(
        identity=me(erin), game="reversi", level="hard", side=0, minutes=3
    )
    rate(erin, "reversi", 2300, 40)  # stronger than all, yet the people's games come first

    assert listed_ids() == [stronger.pk, weaker.pk, computer.pk]


def test_the_tv_features_the_best_game_of_each_kind_and_the_computer_only_where_no_people_play(
    alice, bob, carol, user_factory
):
    dan = user_factory("dan")
    low = people_game(alice, bob)
    high = people_game(carol, dan)
    rate(carol, "reversi", 1700, 12)
    computer = services.create_computer_game(
        identity=me(alice), game="ataxx", level="medium", side=0, minutes=5
    )

    tv = watchlist.featured(watchlist.games_in_play())

    assert tv["reversi"].id == high.pk and tv["ataxx"].id == computer.pk and low.pk != high.pk
    assert tv["quantum_ttt"] is None


def test_the_watch_page_lists_the_games_for_a_visitor_and_starts_no_session(alice, bob):
    game = people_game(alice, bob, minutes=3, increment=2)
    rate(alice, "reversi", 1555, 3)
    client = Client()

    page = client.get("/watch/")

    assert page.status_code == 200 and "sessionid" not in page.cookies
    html = page.content.decode()
    row = re.search(rf'<tr data-game-id="{game.pk}".*?</tr>', html, re.S)
    assert row is not None
    text = re.sub(r"<[^>]+>", "", row[0])
    assert "alice" in text and "1555?" in text and "bob" in text and "3+2" in text
    assert 'href="/watch/"' in html, "the site header links to the Watch page"


def test_a_game_of_a_player_i_blocked_or_who_blocked_me_is_not_listed_for_me(alice, bob, carol, user_factory):
    dan = user_factory("dan")
    theirs = people_game(alice, bob)
    other = people_game(carol, dan, game="ataxx")
    block(by=alice, user=carol)  # alice blocked carol: carol does not see alice's game, nor alice carol's
    carol_client, alice_client, bob_client = Client(), Client(), Client()
    for client, user in ((carol_client, carol), (alice_client, alice), (bob_client, bob)):
        client.force_login(user)

    def ids(client) -> set[int]:
        return {
            int(n) for n in re.findall(r'<tr data-game-id="(\d+)"', client.get("/watch/").content.decode())
        }

    assert ids(carol_client) == {other.pk}
    assert ids(alice_client) == {theirs.pk}
    assert ids(bob_client) == {theirs.pk, other.pk}, "a block hides nothing from a third player"


def correspondence_game(first, second, days: int) -> Game:
    created = services.create_human_game(
        identity=me(first), game="ataxx", kind=Game.Kind.INVITE_LINK, side=0, days_per_move=days
    )
    return services.join_game(game_id=created.pk, identity=me(second), token=created.invite_token)


def watch_socket(language: str) -> WebsocketCommunicator:
    headers = [
        (b"host", b"127.0.0.1"),
        (b"origin", b"http://127.0.0.1"),
        (b"cookie", f"django_language={language}".encode()),
    ]
    return WebsocketCommunicator(application, "/ws/notify/", headers=headers)


async def watch_feeds(*languages: str) -> list[dict]:
    """The first list each of several Watch pages open at once, one per language, is sent."""
    sockets = [watch_socket(language) for language in languages]
    try:
        for ws in sockets:
            connected, _ = await ws.connect()
            assert connected
            await ws.send_json_to({"type": "watch"})
        messages = []
        for ws in sockets:
            while (message := await ws.receive_json_from(timeout=10))["type"] != "watch":
                pass
            messages.append(message)
        return messages
    finally:
        for ws in sockets:
            await ws.disconnect()


@pytest.mark.django_db(transaction=True)  # the sockets read the games from database threads
async def test_a_correspondence_game_reads_3_days_on_the_watch_page_and_its_feed_in_the_viewer_s_language(
    user_factory,
):
    alice, bob = (
        await database_sync_to_async(user_factory)("alice"),
        await database_sync_to_async(user_factory)("bob"),
    )
    game = await database_sync_to_async(correspondence_game)(alice, bob, 3)

    (row,) = await database_sync_to_async(watchlist.games_in_play)()
    assert row.as_json()["time_control"] == "3 days"  # not the stored 4320 minutes: "4320+0"

    def page_row(language: str) -> str:
        client = Client()
        client.cookies["django_language"] = language
        html = client.get("/watch/").content.decode()
        found = re.search(rf'<tr data-game-id="{game.pk}".*?</tr>', html, re.S)
        assert found is not None
        return found[0]

    assert '<td class="time-control">3 days</td>' in await database_sync_to_async(page_row)("en")
    assert '<td class="time-control">3 ημέρες</td>' in await database_sync_to_async(page_row)("el")

    # The live feed replaces those rows: pages open together, one feed, each in the page's own language.
    english, greek, hindi = await watch_feeds("en", "el", "hi")
    for message, label in ((english, "3 days"), (greek, "3 ημέρες"), (hindi, "3 दिन")):
        (listed,) = message["games"]
        assert listed["time_control"] == label and message["tv"]["ataxx"]["time_control"] == label
