"""The read API: what each endpoint says, and that nothing private comes with it."""

from __future__ import annotations

import json
from datetime import timedelta
from http import HTTPStatus

import pytest
from django.utils import timezone

from games.models import Game
from ratings.models import Rating, RatingChange
from tournaments.models import Participant, Tournament

pytestmark = pytest.mark.django_db

OPENING = ["d3", "c5", "f6", "f5"]  # a legal Reversi opening: the records replay it


def _game(user0, user1, *, ended_ago: timedelta, **fields) -> Game:
    now = timezone.now()
    values = {
        "game": "reversi",
        "kind": Game.Kind.DIRECT,
        "status": Game.Status.FINISHED,
        "user0": user0,
        "user1": user1,
        "winner": 0,
        "end_reason": "resign",
        "tokens": OPENING,
        "ply": len(OPENING),
        "started_at": now - ended_ago - timedelta(minutes=10),
        "finished_at": now - ended_ago,
        "time_control": 300,
        "increment": 3,
    }
    values.update(fields)
    return Game.objects.create(**values)


def _lines(response) -> list[dict]:
    assert response["Content-Type"] == "application/x-ndjson"
    text = response.content.decode()
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_a_players_profile_and_ratings(alice, bob, api):
    alice.about = "Reversi mostly."
    alice.save()
    Rating.objects.create(
        user=alice, game="reversi", value=1612.6, rated_games=12, wins=8, losses=4, peak=1650
    )
    Rating.objects.create(user=bob, game="reversi", value=1700, rated_games=3, wins=3, peak=1700)
    Rating.objects.create(user=alice, game="ataxx", correspondence=True, value=1480, rated_games=2, losses=2)
    body = api.get("/api/user/ALICE").json()  # names ignore case, as the profile page's
    assert body["username"] == "alice" and body["about"] == "Reversi mostly."
    assert body["url"].endswith("/players/alice/")
    by_pool = {(r["game"], r["pool"]): r for r in body["ratings"]}
    assert by_pool[("reversi", "live")] == {
        "game": "reversi",
        "pool": "live",
        "rating": 1613,
        "provisional": False,
        "rated_games": 12,
        "wins": 8,
        "losses": 4,
        "peak": 1650,
        "place": 2,
        "points": 0,
    }
    assert by_pool[("ataxx", "correspondence")]["provisional"] is True
    assert set(body) == {"username", "url", "joined", "about", "ratings"}  # no e-mail, no settings


def test_an_unknown_or_deactivated_player_is_404(alice, api):
    alice.is_active = False
    alice.save()
    for path in ("/api/user/alice", "/api/user/nobody", "/api/games/user/alice"):
        response = api.get(path)
        assert response.status_code == HTTPStatus.NOT_FOUND
        assert "no player" in response.json()["error"]


def test_a_players_games_as_ndjson_newest_first_with_their_records(alice, bob, carol, api):
    old = _game(alice, bob, ended_ago=timedelta(days=3))
    new = _game(bob, alice, ended_ago=timedelta(hours=1), winner=None, end_reason="draw_agreed")
    _game(bob, carol, ended_ago=timedelta(hours=2))  # not alice's
    _game(alice, bob, ended_ago=timedelta(hours=2), status=Game.Status.ACTIVE, finished_at=None, winner=None)
    RatingChange.objects.create(game=old, user=alice, before=1500, after=1516.4)

    lines = _lines(api.get("/api/games/user/alice"))
    assert [line["id"] for line in lines] == [new.pk, old.pk]
    first, second = lines
    assert first["players"][0]["username"] == "bob" and first["winner"] is None
    assert first["moves"] == OPENING and first["time_control"]["label"] == "5+3"
    assert second["players"][0]["rating_change"] == {"before": 1500, "after": 1516, "delta": 16}
    record = second["record"]
    assert '[Game "reversi"]' in record and '[Player0 "alice"]' in record and '[Result "1-0"]' in record
    assert "1. d3 c5 2. f6 f5" in record
    # The same record as the page's download.
    assert record == api.client.get(f"/play/{old.pk}/record.txt").content.decode()


def test_the_ndjson_filters(alice, bob, api):
    reversi_rated = _game(alice, bob, ended_ago=timedelta(days=5), rated=True)
    reversi_casual = _game(alice, bob, ended_ago=timedelta(days=3), casual=True)
    ataxx = _game(alice, bob, ended_ago=timedelta(days=1), game="ataxx", tokens=[], ply=0)

    def ids(query: str) -> list[int]:
        return [line["id"] for line in _lines(api.get(f"/api/games/user/alice?{query}"))]

    assert ids("game=ataxx") == [ataxx.pk]
    assert ids("rated=true") == [reversi_rated.pk]
    assert ids("rated=false") == [ataxx.pk, reversi_casual.pk]
    since = (timezone.now() - timedelta(days=4)).isoformat()
    until = (timezone.now() - timedelta(days=2)).isoformat()
    assert ids(f"since={since.replace('+', '%2B')}") == [ataxx.pk, reversi_casual.pk]
    assert ids(f"until={until.replace('+', '%2B')}") == [reversi_casual.pk, reversi_rated.pk]
    assert ids("max=1") == [ataxx.pk]
    # Paging backwards: until = the last line's end time (exclusive).
    last = _lines(api.get("/api/games/user/alice?max=2"))[-1]["finished_at"]
    assert ids(f"until={last.replace('+', '%2B')}") == [reversi_rated.pk]
    for bad in ("game=chess", "max=0", "max=1001", "since=yesterday", "rated=perhaps"):
        response = api.get(f"/api/games/user/alice?{bad}")
        assert response.status_code == HTTPStatus.BAD_REQUEST, bad
        assert response.json()["error"].startswith("Bad request")


def test_one_game_by_id_and_nothing_private_in_it(alice, api):
    game = _game(
        alice, None, ended_ago=timedelta(minutes=5), guest1_key="secret-guest-key", guest1_name="Guest 4821"
    )
    body = api.get(f"/api/game/{game.pk}").json()
    assert body["id"] == game.pk and body["status"] == "finished"
    assert body["players"][1] == {
        "side": 1,
        "kind": "guest",
        "name": "Guest 4821",
        "username": None,
        "level": None,
        "rating_change": None,
    }
    text = json.dumps(body)
    assert "secret-guest-key" not in text and game.invite_token not in text
    waiting = Game.objects.create(game="reversi", kind=Game.Kind.LOBBY, user0=alice)
    assert api.get(f"/api/game/{waiting.pk}").status_code == HTTPStatus.NOT_FOUND
    assert api.get("/api/game/999999").status_code == HTTPStatus.NOT_FOUND


def test_the_games_in_play_as_the_watch_page_lists_them(alice, bob, carol, api):
    playing = _game(
        alice, bob, ended_ago=timedelta(0), status=Game.Status.ACTIVE, finished_at=None, winner=None
    )
    _game(alice, carol, ended_ago=timedelta(minutes=1))  # over: not watched
    easy = _game(carol, None, ended_ago=timedelta(0), status=Game.Status.ACTIVE, finished_at=None, ai1="easy")
    rows = api.get("/api/watch").json()
    assert [row["id"] for row in rows] == [playing.pk]
    assert easy.pk not in [row["id"] for row in rows]
    assert [seat["name"] for seat in rows[0]["players"]] == ["alice", "bob"]


def test_rankings_per_game_by_rating_or_points(alice, bob, carol, api):
    Rating.objects.create(user=alice, game="reversi", value=1550, rated_games=5)
    Rating.objects.create(user=bob, game="reversi", value=1600, rated_games=15)
    Rating.objects.create(user=carol, game="ataxx", value=1900, rated_games=5)
    _game(alice, bob, ended_ago=timedelta(hours=1))  # a point for alice
    body = api.get("/api/rankings/reversi").json()
    assert [(p["place"], p["username"], p["rating"]) for p in body["players"]] == [
        (1, "bob", 1600),
        (2, "alice", 1550),
    ]
    assert body["players"][0]["provisional"] is False and body["players"][1]["provisional"] is True
    by_points = api.get("/api/rankings/reversi?order=points").json()
    assert [(p["username"], p["points"]) for p in by_points["players"]] == [("alice", 1), ("bob", 0)]
    assert api.get("/api/rankings/reversi?pool=correspondence").json()["players"] == []
    assert api.get("/api/rankings/chess").status_code == HTTPStatus.BAD_REQUEST


def test_tournaments_and_their_standings(alice, bob, api):
    now = timezone.now()
    arena = Tournament.objects.create(
        name="Friday arena",
        game="ataxx",
        starts_at=now - timedelta(minutes=5),
        status=Tournament.Status.RUNNING,
        password="pbkdf2_sha256$hash",
    )
    Tournament.objects.create(
        name="Next week", game="reversi", kind="swiss", starts_at=now + timedelta(days=7)
    )
    Participant.objects.create(tournament=arena, user=alice, score=4, games=2, wins=2)
    Participant.objects.create(tournament=arena, user=bob, score=7, games=3, wins=3)
    listing = api.get("/api/tournaments").json()
    assert [t["name"] for t in listing["running"]] == ["Friday arena"]
    assert [t["name"] for t in listing["upcoming"]] == ["Next week"]
    assert listing["running"][0]["private"] is True and listing["running"][0]["players"] == 2
    detail = api.get(f"/api/tournament/{arena.pk}").json()
    assert [(s["rank"], s["username"], s["score"]) for s in detail["standings"]] == [
        (1, "bob", "7"),
        (2, "alice", "4"),
    ]
    assert "hash" not in json.dumps(detail)  # the password's hash is never shown
    assert api.get("/api/tournament/999999").status_code == HTTPStatus.NOT_FOUND


def test_a_token_with_the_read_scope_reads_the_same(alice, token_for, api):
    _game(alice, None, ended_ago=timedelta(hours=1), ai1="hard")
    secret = token_for(alice)
    assert api.get("/api/games/user/alice", secret).content == api.get("/api/games/user/alice").content
