"""The bridge's configuration (a TOML file) and its rules for accepting challenges."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GAMES = ("reversi", "ataxx", "ultimate_ttt", "quantum_ttt", "four_tac_toe")


class ConfigError(ValueError):
    """The configuration file says something the bridge cannot follow."""


@dataclass(frozen=True)
class ChallengeRules:
    games: tuple[str, ...] = GAMES
    min_base: int = 0  # seconds each, for clock games
    max_base: int = 3600
    min_increment: int = 0
    max_increment: int = 60
    correspondence: bool = False  # days-per-move games
    rated: bool = True
    casual: bool = True
    max_games: int = 1  # games in play at once

    def refusal(self, challenge: dict[str, Any], games_in_play: int) -> str | None:
        """Why a challenge (as the event stream sends it) is declined, or None to accept it."""
        if challenge.get("game") not in self.games:
            return f"game {challenge.get('game')} is not one this bot plays"
        control = challenge.get("timeControl") or {}
        kind = control.get("type")
        if kind == "correspondence":
            if not self.correspondence:
                return "this bot plays no correspondence games"
        elif kind == "clock":
            base, increment = int(control.get("limit", 0)), int(control.get("increment", 0))
            if not self.min_base <= base <= self.max_base:
                return f"base time {base} s is outside {self.min_base}..{self.max_base} s"
            if not self.min_increment <= increment <= self.max_increment:
                return f"increment {increment} s is outside {self.min_increment}..{self.max_increment} s"
        else:
            return f"time control {kind!r} is not accepted"
        if challenge.get("rated") and not self.rated:
            return "this bot plays casual games only"
        if not challenge.get("rated") and not self.casual:
            return "this bot plays rated games only"
        if games_in_play >= self.max_games:
            return f"this bot is already playing {games_in_play} game(s)"
        return None


@dataclass(frozen=True)
class EngineConfig:
    command: tuple[str, ...]
    protocol: str = "ugi"  # "uai" for Ataxx engines, "ugi" for any game
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)  # sent as setoption
    movetime: int = 0  # ms: "go movetime" instead of the clocks when > 0
    move_overhead: int = 100  # ms kept back from the clock for the round trip
    ready_timeout: float = 60.0  # seconds for readyok (a compiled search may load slowly)


@dataclass(frozen=True)
class ScoreRules:
    """Resigning and draws by the engine's reported score (``info score cp N``), side to move's view."""

    resign_score: int | None = None  # resign after ``resign_moves`` scores at or below this
    resign_moves: int = 3
    draw_score: int | None = None  # |score| at or below this for ``draw_moves`` moves: offer/accept draws
    draw_moves: int = 5
    offer_draw: bool = False
    accept_draw: bool = False


@dataclass(frozen=True)
class Config:
    url: str
    token: str
    engine: EngineConfig
    challenges: ChallengeRules = ChallengeRules()
    scores: ScoreRules = ScoreRules()
    log_dir: Path | None = None
    log_level: str = "INFO"
    backoff_initial: float = 0.5
    backoff_max: float = 60.0


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{name}] must be a table")
    return value


def load(path: str | Path) -> Config:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    return parse(data, base=path.parent)


def parse(data: dict[str, Any], base: Path = Path()) -> Config:
    site, engine, rules, scores, log = (
        _section(data, name) for name in ("site", "engine", "challenges", "scores", "log")
    )
    url = str(site.get("url", "")).rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ConfigError("[site] url must be the site's http(s) address")
    token = site.get("token") or os.environ.get(site.get("token_env", "BOT_TOKEN"), "")
    if not token:
        raise ConfigError("[site] needs token, or token_env naming a variable that holds it")
    command = engine.get("command")
    if isinstance(command, str):
        command = command.split()
    if not command or not all(isinstance(part, str) for part in command):
        raise ConfigError("[engine] command must be a list of strings (or one string)")
    protocol = str(engine.get("protocol", "ugi")).lower()
    if protocol not in ("uai", "ugi"):
        raise ConfigError("[engine] protocol must be uai or ugi")
    games = tuple(rules.get("games", GAMES))
    unknown = [game for game in games if game not in GAMES]
    if unknown:
        raise ConfigError(f"[challenges] games: unknown {unknown}; known: {list(GAMES)}")
    if protocol == "uai" and games != ("ataxx",):
        raise ConfigError('[engine] protocol uai is Ataxx\'s: [challenges] games must be ["ataxx"]')
    try:
        challenge_rules = ChallengeRules(
            games=games,
            min_base=int(rules.get("min_base", 0)),
            max_base=int(rules.get("max_base", 3600)),
            min_increment=int(rules.get("min_increment", 0)),
            max_increment=int(rules.get("max_increment", 60)),
            correspondence=bool(rules.get("correspondence", False)),
            rated=bool(rules.get("rated", True)),
            casual=bool(rules.get("casual", True)),
            max_games=int(rules.get("max_games", 1)),
        )
        score_rules = ScoreRules(
            resign_score=None if scores.get("resign_score") is None else int(scores["resign_score"]),
            resign_moves=int(scores.get("resign_moves", 3)),
            draw_score=None if scores.get("draw_score") is None else int(scores["draw_score"]),
            draw_moves=int(scores.get("draw_moves", 5)),
            offer_draw=bool(scores.get("offer_draw", False)),
            accept_draw=bool(scores.get("accept_draw", False)),
        )
        engine_config = EngineConfig(
            command=tuple(command),
            protocol=protocol,
            cwd=str((base / engine["cwd"]).resolve()) if engine.get("cwd") else None,
            env={str(k): str(v) for k, v in engine.get("env", {}).items()},
            options={str(k): str(v) for k, v in engine.get("options", {}).items()},
            movetime=int(engine.get("movetime", 0)),
            move_overhead=int(engine.get("move_overhead", 100)),
            ready_timeout=float(engine.get("ready_timeout", 60)),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"a number or flag in the configuration is malformed: {exc}") from exc
    if challenge_rules.max_games < 1:
        raise ConfigError("[challenges] max_games must be at least 1")
    return Config(
        url=url,
        token=str(token),
        engine=engine_config,
        challenges=challenge_rules,
        scores=score_rules,
        log_dir=(base / log["dir"]).resolve() if log.get("dir") else None,
        log_level=str(log.get("level", "INFO")).upper(),
        backoff_initial=float(site.get("backoff_initial", 0.5)),
        backoff_max=float(site.get("backoff_max", 60)),
    )
