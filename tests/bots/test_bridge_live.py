"""The bridge (python -m bots) over the real stack: daphne, PostgreSQL, Redis.

Each bridge is its own process driving the site's own engine (``python -m games.ai.ugi``,
Easy, pure Python so it starts at once) through the Play API, as an engine author's
would: a whole Ataxx game over UAI against a person on the game websocket, bot against
bot in Ultimate Tic-Tac-Toe and Reversi over UGI, a Reversi game during which daphne
is stopped and started again on the same port, and a bot that resigns by its engine's
score as its configuration says.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests
from django.test import Client

from api import tokens
from games.live.bot import GameBot
from games.models import Game
from launch.processes import BASE_DIR

pytestmark = [pytest.mark.heavy, pytest.mark.services, pytest.mark.django_db(transaction=True)]

SITE_ENV = {"API_STREAM_HEARTBEAT_SECONDS": "1", "API_RATE_PER_TOKEN": "10000"}


def start_site(services, database_url: str) -> tuple[str, int]:
    _proc, port = services.start_daphne(database_url, env=SITE_ENV)
    return f"http://127.0.0.1:{port}", port


@pytest.fixture(scope="module")
def site(services, database_url_for_processes) -> tuple[str, int]:
    """One daphne for the file's stories (a start costs seconds of CPU); each test's rows are flushed."""
    return start_site(services, database_url_for_processes)


@pytest.fixture
def own_site(services, database_url_for_processes) -> tuple[str, int]:
    """A daphne of the test's own, for a story that stops it."""
    return start_site(services, database_url_for_processes)


def make_bot(user_factory, name: str):
    user = user_factory(name)
    user.is_bot = True
    user.save(update_fields=["is_bot"])
    return user


def secret(user, *scopes: str) -> str:
    return tokens.create_token(user=user, name="bridge", scopes=scopes).secret


def start_bridge(
    tmp_path: Path,
    name: str,
    url: str,
    token: str,
    slug: str,
    protocol: str,
    *,
    engine: list[str] | None = None,
    scores: str = "",
) -> Path:
    """A bridge process for one game; returns its log directory (the process is in BRIDGES).

    ``engine`` replaces the site's own engine's command line; ``scores`` is the body of the
    configuration's ``[scores]`` section (bots/README.md).
    """
    logs = tmp_path / f"logs-{name}"
    config = tmp_path / f"{name}.toml"
    engine = engine or [sys.executable, "-m", "games.ai.ugi", slug, "--level", "easy"]
    config.write_text(
        f"""
[site]
url = "{url}"
token = "{token}"
backoff_initial = 0.2
backoff_max = 2

[engine]
command = {engine!r}
protocol = "{protocol}"
cwd = "{BASE_DIR}"
movetime = 30
env = {{ GAMES_AI_PURE_PYTHON = "1" }}

[challenges]
games = ["{slug}"]
max_base = 600

[scores]
{scores}

[log]
dir = "{logs}"
level = "DEBUG"
""".replace("'", '"')
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bots", "--config", str(config), "--games", "1"],
        cwd=BASE_DIR,
        stdout=(tmp_path / f"{name}.out").open("w"),
        stderr=subprocess.STDOUT,
    )
    BRIDGES.append(proc)
    return logs


BRIDGES: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _stop_bridges():
    yield
    while BRIDGES:
        proc = BRIDGES.pop()
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)


def challenge(url: str, token: str, opponent: str, slug: str, **fields) -> int:
    made = requests.post(
        f"{url}/api/challenge/{opponent}",
        data={"game": slug, "clock.limit": 300, "rated": "true", **fields},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert made.status_code == 200, made.text
    return made.json()["id"]


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def game_row(game_id: int) -> Game:
    return Game.objects.get(pk=game_id)


def wait_until_over(game_id: int, timeout: float = 240) -> Game:
    return wait_for(lambda: (g := game_row(game_id)).is_over and g, timeout, f"game {game_id} to end")


def summary(logs: Path, game_id: int) -> str:
    lines = (logs / f"game-{game_id}.log").read_text().splitlines()
    [line] = [line for line in lines if f"game {game_id} over:" in line]
    return line


def bot_moves_logged(logs: Path, game_id: int) -> dict[int, str]:
    """The moves the bridge's site took, from its per-game log (one debug line a move): ply -> move."""
    moves: dict[int, str] = {}
    for line in (logs / f"game-{game_id}.log").read_text().splitlines():
        if f"game {game_id}: ply " in line:
            ply, move = line.split(f"game {game_id}: ply ")[1].split()[:2]
            assert int(ply) not in moves, f"ply {ply} posted twice"
            moves[int(ply)] = move
    return moves


def assert_whole_game(logs: Path, game: Game) -> dict[int, str]:
    """The game ended on the board, and the bridge's log holds every move the site stored."""
    assert game.status == Game.Status.FINISHED
    assert game.end_reason not in ("timeout", "resign", "exit", "aborted")
    line = summary(logs, game.pk)
    assert line.endswith("moves: " + " ".join(game.tokens))
    # Each move the bridge logged is the site's move at that ply.
    posted = bot_moves_logged(logs, game.pk)
    assert posted
    for ply, move in posted.items():
        assert game.tokens[ply - 1] == move
    return posted


def assert_plies(posted: dict[int, str], game: Game, plies: range) -> None:
    """The bridge posted exactly the moves of these plies, but for forced passes the site may play itself."""
    missing = [ply for ply in plies if ply not in posted]
    assert all(game.tokens[ply - 1] in ("pass", "0000") for ply in missing), missing
    assert set(posted) <= set(plies)


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def test_the_bridge_plays_ataxx_over_uai_against_a_person_on_the_websocket(
    site, tmp_path, user_factory, alice
):
    url, _port = site
    robo = make_bot(user_factory, "robo")
    logs = start_bridge(tmp_path, "robo", url, secret(robo, "bot:play"), "ataxx", "uai")
    person = secret(alice, "challenge")
    # The bridge's rules decline what it does not play, and it keeps running.
    refused = challenge(url, person, "robo", "reversi")
    wait_for(lambda: game_row(refused).status != Game.Status.WAITING, 60, "the decline")
    game_id = challenge(url, person, "robo", "ataxx", colour="second")  # the bot moves first
    game = wait_for(
        lambda: (g := game_row(game_id)).status != Game.Status.WAITING and g, 60, "the bridge to accept"
    )
    assert game.status in (Game.Status.ACTIVE, Game.Status.FINISHED)
    human = GameBot(
        f"ws://{url.removeprefix('http://')}/ws/game/{game_id}/", cookie=session_cookie(alice), origin=url
    )
    thread = threading.Thread(target=lambda: asyncio.run(human.play(timeout=240)), daemon=True)
    thread.start()
    game = wait_until_over(game_id)
    thread.join(30)
    assert BRIDGES[0].wait(timeout=30) == 0  # --games 1: the bridge exits after its game
    posted = assert_whole_game(logs, game)
    # The bot moved first: it made every odd ply (Ataxx passes are moves, 0000), the person the others.
    assert_plies(posted, game, range(1, game.ply + 1, 2))
    assert human.snapshot["moves"] == game.tokens  # the person saw every move of the bot
    # Moves both ways, over and over. Not ten plies: a person who always plays the first legal
    # move can lose every piece to the engine sooner (nine plies, seen on a busy machine).
    assert game.ply >= 5
    bridge_log = (logs / "bridge.log").read_text()
    assert f"challenge {refused} from alice: declined: game reversi is not one this bot plays" in bridge_log
    assert game_row(refused).status != Game.Status.ACTIVE


@pytest.mark.parametrize("slug", ["ultimate_ttt", "reversi"])
def test_two_bridges_play_a_whole_game_bot_against_bot(site, tmp_path, user_factory, slug):
    url, _port = site
    first, second = make_bot(user_factory, "robo1"), make_bot(user_factory, "robo2")
    first_token = secret(first, "bot:play")
    logs1 = start_bridge(tmp_path, "robo1", url, first_token, slug, "ugi")
    logs2 = start_bridge(tmp_path, "robo2", url, secret(second, "bot:play"), slug, "ugi")
    game_id = challenge(url, first_token, "robo2", slug, colour="first")
    game = wait_until_over(game_id)
    for proc in BRIDGES:
        assert proc.wait(timeout=30) == 0
    both = {**assert_whole_game(logs1, game), **assert_whole_game(logs2, game)}
    assert_plies(both, game, range(1, game.ply + 1))  # every ply was one of the bridges'


def test_a_bridge_reconnects_after_daphne_restarts_and_loses_no_move(
    services, database_url_for_processes, own_site, tmp_path, user_factory
):
    url, port = own_site
    first, second = make_bot(user_factory, "robo1"), make_bot(user_factory, "robo2")
    first_token = secret(first, "bot:play")
    logs1 = start_bridge(tmp_path, "robo1", url, first_token, "reversi", "ugi")
    logs2 = start_bridge(tmp_path, "robo2", url, secret(second, "bot:play"), "reversi", "ugi")
    game_id = challenge(url, first_token, "robo2", "reversi", colour="first")
    wait_for(lambda: game_row(game_id).ply >= 8, 120, "eight plies")
    from tests.processes import DAPHNES

    old = DAPHNES[-1]
    old.terminate()
    old.wait(timeout=30)
    stopped_at_ply = game_row(game_id).ply
    services.start_daphne(database_url_for_processes, port=port, env=SITE_ENV)
    game = wait_until_over(game_id)
    for proc in BRIDGES:
        assert proc.wait(timeout=30) == 0
    assert stopped_at_ply < game.ply  # the game went on after the restart
    both = {**assert_whole_game(logs1, game), **assert_whole_game(logs2, game)}
    assert_plies(both, game, range(1, game.ply + 1))  # every ply was one of the bridges'
    for logs in (logs1, logs2):
        text = (logs / f"game-{game_id}.log").read_text()
        assert "stream dropped" in text and "reconnecting" in text
        assert "reconnects, " in summary(logs, game_id) and " 0 reconnects" not in summary(logs, game_id)


# The site's engine says no score (docs/engine-protocol.md), and an engine's score is what
# the bridge's resign and draw rules read. This wrapper is the thin layer an engine author
# would write: it relays the site's engine both ways and reports, before each best move,
# the score of a side that is losing badly.
HOPELESS_ENGINE = """
import subprocess, sys, threading

engine = subprocess.Popen(
    [sys.executable, "-m", "games.ai.ugi", *sys.argv[1:]],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
)

def answers():
    for line in engine.stdout:
        if line.startswith("bestmove"):
            print("info depth 1 score cp -900", flush=True)
        print(line, end="", flush=True)

relay = threading.Thread(target=answers)
relay.start()
for line in sys.stdin:
    engine.stdin.write(line)
    engine.stdin.flush()
    if line.strip() == "quit":
        break
engine.stdin.close()
engine.wait()
relay.join()
"""


def test_a_bridge_told_to_resign_when_lost_resigns_over_the_real_stack(site, tmp_path, user_factory, alice):
    url, _port = site
    robo = make_bot(user_factory, "robo")
    wrapper = tmp_path / "hopeless.py"
    wrapper.write_text(HOPELESS_ENGINE)
    logs = start_bridge(
        tmp_path,
        "robo",
        url,
        secret(robo, "bot:play"),
        "reversi",
        "ugi",
        engine=[sys.executable, str(wrapper), "reversi", "--level", "easy"],
        scores="resign_score = -500\nresign_moves = 2",
    )
    game_id = challenge(url, secret(alice, "challenge"), "robo", "reversi", colour="second")  # the bot starts
    wait_for(lambda: game_row(game_id).status != Game.Status.WAITING, 60, "the bridge to accept")
    human = GameBot(
        f"ws://{url.removeprefix('http://')}/ws/game/{game_id}/", cookie=session_cookie(alice), origin=url
    )
    thread = threading.Thread(target=lambda: asyncio.run(human.play(timeout=60)), daemon=True)
    thread.start()
    game = wait_until_over(game_id, timeout=60)
    thread.join(30)
    assert BRIDGES[0].wait(timeout=30) == 0
    # One hopeless score is not enough (resign_moves = 2): the bot played its first move;
    # at its second turn the second score in a row at or below -500 made it resign.
    assert (game.end_reason, game.winner, game.ply) == ("resign", 1, 2)
    assert bot_moves_logged(logs, game_id) == {1: game.tokens[0]}
    text = (logs / f"game-{game_id}.log").read_text()
    assert f"game {game_id}: resigning at score -900" in text
    assert "lost (resign), 2 plies" in summary(logs, game_id)
    assert human.snapshot["result"]["reason"] == "resign"  # the person's page heard it
