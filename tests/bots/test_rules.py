"""The bridge's rules without a site: which challenges it accepts, the go line from the clocks,
the configuration's checks, the reconnection waits, the engine's scores."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bots.bridge import Backoff
from bots.config import ChallengeRules, ConfigError, EngineConfig, load, parse
from bots.engine import go_command, parse_score, position_command


def challenge(game="reversi", limit=300, increment=3, *, rated=True, kind="clock", days=0):
    return {
        "id": 7,
        "game": game,
        "rated": rated,
        "direction": "in",
        "timeControl": {"type": kind, "limit": limit, "increment": increment, "daysPerMove": days},
    }


RULES = ChallengeRules(games=("reversi", "ataxx"), min_base=60, max_base=600, max_increment=5, max_games=2)


def test_a_challenge_within_every_rule_is_accepted():
    assert RULES.refusal(challenge(), games_in_play=0) is None
    assert RULES.refusal(challenge("ataxx", limit=60, increment=0, rated=False), games_in_play=1) is None


@pytest.mark.parametrize(
    ("made", "in_play", "why"),
    [
        (challenge("ultimate_ttt"), 0, "game ultimate_ttt is not one this bot plays"),
        (challenge(limit=900), 0, "base time 900 s is outside 60..600 s"),
        (challenge(limit=0, kind="correspondence", days=3), 0, "this bot plays no correspondence games"),
        (challenge(increment=10), 0, "increment 10 s is outside 0..5 s"),
        (challenge(), 2, "this bot is already playing 2 game(s)"),
    ],
)
def test_a_challenge_outside_a_rule_is_declined_with_the_reason(made, in_play, why):
    assert RULES.refusal(made, games_in_play=in_play) == why


def test_rated_and_casual_rules():
    casual_only = ChallengeRules(rated=False)
    assert casual_only.refusal(challenge(rated=True), 0) == "this bot plays casual games only"
    assert casual_only.refusal(challenge(rated=False), 0) is None
    rated_only = ChallengeRules(casual=False)
    assert rated_only.refusal(challenge(rated=False), 0) == "this bot plays rated games only"
    assert (
        ChallengeRules(correspondence=True).refusal(challenge(kind="correspondence", limit=0, days=3), 0)
        is None
    )


STATE = {"wtime": 61_000, "btime": 42_000, "winc": 2000, "binc": 2000}


def test_go_over_ugi_gives_p1_the_first_sides_clock_less_the_overhead_on_our_own():
    engine = EngineConfig(command=("x",), protocol="ugi", move_overhead=100)
    assert go_command(engine, STATE, you=0) == "go p1time 60900 p2time 42000 p1inc 2000 p2inc 2000"
    assert go_command(engine, STATE, you=1) == "go p1time 61000 p2time 41900 p1inc 2000 p2inc 2000"


def test_go_over_uai_gives_b_the_first_sides_clock():
    # UAI's b is the first player (x moves first in Ataxx): the site's w fields are side 0's.
    engine = EngineConfig(command=("x",), protocol="uai", move_overhead=0)
    assert go_command(engine, STATE, you=1) == "go btime 61000 wtime 42000 binc 2000 winc 2000"


def test_movetime_from_the_config_wins_and_a_game_without_clocks_searches_the_engines_default():
    assert go_command(EngineConfig(command=("x",), movetime=250), STATE, you=0) == "go movetime 250"
    assert go_command(EngineConfig(command=("x",)), {"wtime": None, "btime": None}, you=0) == "go"
    # Almost no time left: never a zero or negative clock.
    low = {"wtime": 50, "btime": 50, "winc": 0, "binc": 0}
    assert go_command(EngineConfig(command=("x",), move_overhead=100), low, you=0).startswith("go p1time 1 ")


def test_positions_and_scores():
    assert position_command("x5o/7/7/7/7/7/o5x x 0 1", []) == "position fen x5o/7/7/7/7/7/o5x x 0 1"
    assert position_command("......... - 1 -", ["1-2", "1-2"]) == "position fen ......... - 1 - moves 1-2 1-2"
    assert parse_score("info depth 4 score cp -350 nodes 10") == -350
    assert parse_score("info score mate -3") == -100_000
    assert parse_score("info time 12") is None


def test_backoff_doubles_up_to_its_maximum_and_resets():
    waits: list[float] = []
    backoff = Backoff(0.5, 3, sleep=waits.append)
    for _ in range(5):
        backoff.wait()
    backoff.reset()
    backoff.wait()
    assert waits == [0.5, 1, 2, 3, 3, 0.5]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bot.toml"
    path.write_text(text)
    return path


def test_the_readmes_example_configuration_loads(tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parents[2] / "bots" / "README.md").read_text()
    blocks = [block.split("```", 1)[0] for block in readme.split("```toml\n")[1:]]
    assert len(blocks) >= 3
    monkeypatch.setenv("BOT_TOKEN", "bgt_example")
    slugs = set()
    for block in blocks:
        config = load(write(tmp_path, block))
        assert config.token == "bgt_example"
        slugs.update(config.challenges.games)
    assert {"ataxx", "ultimate_ttt", "reversi"} <= slugs


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"site": {"url": "example.org", "token": "t"}, "engine": {"command": ["e"]}}, "url"),
        ({"site": {"url": "http://x"}, "engine": {"command": ["e"]}}, "token"),
        ({"site": {"url": "http://x", "token": "t"}, "engine": {}}, "command"),
        (
            {"site": {"url": "http://x", "token": "t"}, "engine": {"command": "e", "protocol": "uci"}},
            "uai or ugi",
        ),
        (
            {
                "site": {"url": "http://x", "token": "t"},
                "engine": {"command": "e", "protocol": "uai"},
                "challenges": {"games": ["reversi"]},
            },
            "Ataxx",
        ),
        (
            {
                "site": {"url": "http://x", "token": "t"},
                "engine": {"command": "e"},
                "challenges": {"games": ["chess"]},
            },
            "chess",
        ),
        (
            {"site": {"url": "http://x", "token": "t"}, "engine": {"command": "e", "movetime": "fast"}},
            "malformed",
        ),
    ],
)
def test_a_bad_configuration_is_refused_with_what_is_wrong(data, message, monkeypatch):
    monkeypatch.delenv("BOT_TOKEN", raising=False)
    with pytest.raises(ConfigError, match=message):
        parse(data)


def test_an_accepted_challenge_counts_against_max_games_before_its_game_starts(monkeypatch):
    from bots import bridge as bridge_module

    release = threading.Event()
    monkeypatch.setattr(bridge_module.GamePlayer, "run", lambda self: release.wait(10))
    config = parse(
        {
            "site": {"url": "http://127.0.0.1:9", "token": "t"},
            "engine": {"command": "e"},
            "challenges": {"max_games": 1},
        }
    )
    bridge = bridge_module.Bridge(config)
    posted: list[str] = []
    monkeypatch.setattr(bridge.client, "post", lambda path, **fields: posted.append(path) or {})
    try:
        bridge.on_event({"type": "challenge", "challenge": {**challenge(), "id": 1}})
        bridge.on_event({"type": "challenge", "challenge": {**challenge(), "id": 2}})
        assert posted == ["/api/challenge/1/accept", "/api/challenge/2/decline"]
        assert bridge.in_play() == 1
    finally:
        release.set()
