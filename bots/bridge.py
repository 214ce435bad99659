"""The bridge: accept challenges by the rules, play each game with the engine, reconnect with backoff."""

from __future__ import annotations

import argparse
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bots.client import NETWORK_ERRORS, ApiError, Client
from bots.config import Config, ConfigError, load
from bots.engine import Engine, EngineError, go_command

log = logging.getLogger("bots")


class Backoff:
    """Exponential waits between reconnections: initial, doubled each failure, at most ``maximum``."""

    def __init__(self, initial: float, maximum: float, sleep: Callable[[float], None] = time.sleep) -> None:
        self.initial, self.maximum, self.sleep = initial, maximum, sleep
        self.delay = initial

    def wait(self) -> float:
        waited = self.delay
        self.sleep(waited)
        self.delay = min(self.maximum, self.delay * 2)
        return waited

    def reset(self) -> None:
        self.delay = self.initial


class GamePlayer:
    """One game: its stream, the engine, the moves posted; reconnects until the game is over."""

    def __init__(self, bridge: Bridge, game_id: int) -> None:
        self.bridge = bridge
        self.config = bridge.config
        self.client = bridge.client
        self.game_id = game_id
        self.log = bridge.game_logger(game_id)
        self.posted_ply = -1  # the ply at which we last posted a move (resent only after a reconnect)
        self.scores: list[int] = []
        self.draw_offered_at = -1
        self.full: dict[str, Any] = {}
        self.last: dict[str, Any] = {}
        self.reconnects = 0
        self.engine: Engine | None = None

    def run(self) -> None:
        started = time.monotonic()
        try:
            self.engine = Engine(self.config.engine, self.log)
            self.engine.new_game()
            self.follow()
        except EngineError as exc:
            self.log.error("game %s: engine failure: %s; resigning", self.game_id, exc)
            self._post("resign")
        finally:
            if self.engine is not None:
                self.engine.close()
            self.summary(time.monotonic() - started)
            self.bridge.game_ended(self.game_id)

    def follow(self) -> None:
        backoff = Backoff(self.config.backoff_initial, self.config.backoff_max)
        while not self.bridge.stopping.is_set():
            try:
                for message in self.client.stream(f"/api/bot/game/stream/{self.game_id}"):
                    backoff.reset()
                    if message["type"] == "gameFull":
                        self.full = message
                        # A reconnect: whatever we posted may or may not have landed;
                        # the state says, and a move still owed is computed again.
                        self.posted_ply = -1
                        self.on_state(message["state"])
                    elif message["type"] == "gameState":
                        self.on_state(message)
                    if self.over:
                        return
            except ApiError as exc:
                if exc.status in (401, 403, 404):
                    self.log.error("game %s: the stream is refused (%s); giving up", self.game_id, exc)
                    return
                self.log.warning("game %s: stream answered %s", self.game_id, exc)
            except (*NETWORK_ERRORS, ValueError) as exc:
                self.log.warning("game %s: stream dropped (%s)", self.game_id, exc)
            if self.over:
                return
            self.reconnects += 1
            waited = backoff.wait()
            self.log.info("game %s: reconnecting (after %.1f s)", self.game_id, waited)

    @property
    def over(self) -> bool:
        return bool(self.last) and self.last.get("status") != "started"

    def on_state(self, state: dict[str, Any]) -> None:
        self.last = state
        if state.get("status") != "started":
            return
        you = self.full["you"]
        opponent_offers = state.get("bdraw") if you == 0 else state.get("wdraw")
        if opponent_offers and self.should_draw():
            self.log.info("game %s: accepting the draw offered", self.game_id)
            self._post("draw/yes")
            return
        if state.get("toMove") != you or state["ply"] == self.posted_ply:
            return
        self.play(state)

    def play(self, state: dict[str, Any]) -> None:
        assert self.engine is not None
        moves = state["moves"].split()
        go = go_command(self.config.engine, state, self.full["you"])
        began = time.monotonic()
        search = self.engine.search(self.full["initialFen"], moves, go, timeout=self._search_timeout(state))
        took = time.monotonic() - began
        if search.score is not None:
            self.scores.append(search.score)
        if self.should_resign():
            self.log.info("game %s: resigning at score %s", self.game_id, search.score)
            self._post("resign")
            return
        if search.move is None:
            self.log.error("game %s: the engine has no move at ply %s", self.game_id, state["ply"])
            return
        self.posted_ply = state["ply"]
        # ?ply: a move resent after a reconnect never lands twice (the site answers "stale").
        if self._post(f"move/{search.move}?ply={state['ply']}"):
            self.log.debug(
                "game %s: ply %s %s (%s, %.2f s, score %s)",
                self.game_id,
                state["ply"] + 1,
                search.move,
                go,
                took,
                search.score,
            )
        if self.wants_to_offer_draw(state):
            self.draw_offered_at = state["ply"]
            self.log.info("game %s: offering a draw", self.game_id)
            self._post("draw/yes")

    def _search_timeout(self, state: dict[str, Any]) -> float:
        own = state.get("wtime" if self.full["you"] == 0 else "btime")
        # The engine should answer within its time; a generous margin before giving up on it.
        return max(30.0, (own or 0) / 1000 + 10)

    def _recent(self, count: int) -> list[int]:
        return self.scores[-count:] if len(self.scores) >= count else []

    def should_resign(self) -> bool:
        rules = self.config.scores
        if rules.resign_score is None:
            return False
        recent = self._recent(rules.resign_moves)
        return bool(recent) and all(score <= rules.resign_score for score in recent)

    def should_draw(self) -> bool:
        rules = self.config.scores
        if not rules.accept_draw or rules.draw_score is None:
            return False
        recent = self._recent(rules.draw_moves)
        return bool(recent) and all(abs(score) <= rules.draw_score for score in recent)

    def wants_to_offer_draw(self, state: dict[str, Any]) -> bool:
        rules = self.config.scores
        if not rules.offer_draw or rules.draw_score is None:
            return False
        # At most one offer every ten plies (the site allows 3 a minute).
        if self.draw_offered_at >= 0 and state["ply"] - self.draw_offered_at < 10:
            return False
        recent = self._recent(rules.draw_moves)
        return bool(recent) and all(abs(score) <= rules.draw_score for score in recent)

    def _post(self, command: str) -> bool:
        """Whether the site took the command; a refusal or a dropped connection is logged."""
        try:
            self.client.post(f"/api/bot/game/{self.game_id}/{command}")
            return True
        except ApiError as exc:
            # stale/game_over: the game moved on meanwhile; the stream brings the truth.
            self.log.warning("game %s: %s refused: %s", self.game_id, command, exc)
            return False
        except NETWORK_ERRORS as exc:
            # The stream drops too; on reconnect gameFull says whether the move landed.
            self.log.warning("game %s: %s not sent (%s)", self.game_id, command, exc)
            return False

    def summary(self, seconds: float) -> None:
        state, full = self.last, self.full
        players = full.get("players") or [{}, {}]
        you = full.get("you")
        winner = state.get("winner")
        result = "draw" if winner is None else ("won" if winner == you else "lost")
        if state.get("status") == "aborted":
            result = "aborted"
        self.log.info(
            "game %s over: %s %s vs %s, %s (%s), %s plies, %s reconnects, %.0f s; moves: %s",
            self.game_id,
            full.get("game"),
            players[0].get("name"),
            players[1].get("name"),
            result,
            state.get("status"),
            state.get("ply"),
            self.reconnects,
            seconds,
            state.get("moves"),
        )


class Bridge:
    def __init__(self, config: Config, *, max_finished: int | None = None) -> None:
        self.config = config
        self.client = Client(config.url, config.token)
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.games: dict[int, threading.Thread] = {}
        self.done: set[int] = set()  # games played to the end here: a late gameStart restarts none
        self.finished = 0
        self.max_finished = max_finished  # stop after this many games (tests, match scripts)

    def game_logger(self, game_id: int) -> logging.Logger:
        logger = logging.getLogger(f"bots.game.{game_id}")
        if self.config.log_dir is not None and not logger.handlers:
            handler = logging.FileHandler(self.config.log_dir / f"game-{game_id}.log")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            logger.addHandler(handler)
        return logger

    def game_ended(self, game_id: int) -> None:
        with self.lock:
            self.games.pop(game_id, None)
            self.done.add(game_id)
            self.finished += 1
            if self.max_finished is not None and self.finished >= self.max_finished:
                self.stopping.set()

    def in_play(self) -> int:
        with self.lock:
            return len(self.games)

    def start_game(self, game_id: int) -> None:
        with self.lock:
            if game_id in self.games or game_id in self.done:
                return
            thread = threading.Thread(
                target=GamePlayer(self, game_id).run, name=f"game-{game_id}", daemon=True
            )
            self.games[game_id] = thread
        log.info("game %s: starting", game_id)
        thread.start()

    def on_challenge(self, challenge: dict[str, Any]) -> None:
        if challenge.get("direction") != "in":
            return
        refusal = self.config.challenges.refusal(challenge, self.in_play())
        who = (challenge.get("challenger") or {}).get("name")
        if refusal is not None:
            log.info("challenge %s from %s: declined: %s", challenge["id"], who, refusal)
            try:
                self.client.post(f"/api/challenge/{challenge['id']}/decline")
            except (ApiError, *NETWORK_ERRORS) as exc:
                log.warning("challenge %s: decline failed: %s", challenge["id"], exc)
            return
        log.info("challenge %s from %s: accepted", challenge["id"], who)
        try:
            self.client.post(f"/api/challenge/{challenge['id']}/accept")
        except (ApiError, *NETWORK_ERRORS) as exc:
            log.warning("challenge %s: accept failed: %s", challenge["id"], exc)
            return
        # The game has the challenge's id: play it now, so that it counts against
        # max_games at once (its gameStart event, coming later, then changes nothing).
        self.start_game(challenge["id"])

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "heartbeat":
            return
        if kind == "challenge":
            self.on_challenge(event["challenge"])
        elif kind == "gameStart" and event["game"].get("status") == "started":
            self.start_game(event["game"]["id"])

    def run(self) -> None:
        """Follow the event stream until stopped, reconnecting with backoff."""
        backoff = Backoff(self.config.backoff_initial, self.config.backoff_max)
        while not self.stopping.is_set():
            try:
                for event in self.client.stream("/api/stream/event"):
                    backoff.reset()
                    self.on_event(event)
                    if self.stopping.is_set():
                        break
            except ApiError as exc:
                if exc.status in (401, 403):
                    log.error("the site refuses the token: %s", exc)
                    raise
                log.warning("event stream answered %s", exc)
            except (*NETWORK_ERRORS, ValueError) as exc:
                log.warning("event stream dropped (%s)", exc)
            if self.stopping.is_set():
                break
            log.info("event stream: reconnecting after %.1f s", backoff.wait())
        for thread in list(self.games.values()):
            thread.join(timeout=5)


def setup_logging(config: Config) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if config.log_dir is not None:
        config.log_dir.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(config.log_dir / "bridge.log"))
    logging.basicConfig(
        level=config.log_level,
        format="%(asctime)s %(levelname)s %(threadName)s %(message)s",
        handlers=handlers,
        force=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots", description=__doc__)
    parser.add_argument("--config", required=True, type=Path, help="the bot's TOML file (bots/README.md)")
    parser.add_argument("--games", type=int, default=None, help="exit after this many games have ended")
    parser.add_argument(
        "--upgrade", action="store_true", help="upgrade the account to BOT first (irreversible)"
    )
    args = parser.parse_args(argv)
    try:
        config = load(args.config)
    except ConfigError as exc:
        parser.error(str(exc))
    setup_logging(config)
    bridge = Bridge(config, max_finished=args.games)
    if args.upgrade:
        try:
            bridge.client.post("/api/bot/account/upgrade")
            log.info("the account is now a BOT")
        except ApiError as exc:
            log.error("upgrade refused: %s", exc)
            return 1
    try:
        bridge.run()
    except ApiError:
        return 1
    except KeyboardInterrupt:
        bridge.stopping.set()
    return 0
