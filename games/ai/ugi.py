"""The site's computer players as text-protocol engines for other programs (issue #41).

``python -m games.ai.ugi SLUG [--level LEVEL]`` (or ``python manage.py engine SLUG``)
reads commands on stdin and answers on stdout, one line each, in

* **UGI**, the Universal Game Interface of the Ultimate Tic-Tac-Toe engines and of
  the cutegames match runner, for all five games: ``ugi``/``ugiok``, ``query``/``response``,
  ``go p1time p2time p1inc p2inc``;
* **UAI**, the Ataxx engines' protocol (UCI's shape), for a game whose player says it
  ``SPEAKS_UAI`` (``ataxx`` only):
  ``uai``/``uaiok``, ``uainewgame``, ``go btime wtime binc winc`` where black (``btime``) is
  ``x``, the side that moves first.

The handshake (``ugi`` or ``uai``) and ``uginewgame``/``uainewgame`` are the only words that
differ; every other command is shared, and both clock spellings are read. Positions are the engines' ``fen`` text (SPEC section 2) and moves are the site's
tokens, so what this program prints is what the site stores. docs/engine-protocol.md is the
reference, with examples.

Nothing here touches Django or a database: a tool can run it from a plain checkout.
Malformed input is answered with an ``info string error ...`` line and changes nothing.
Searches run on the reading thread, so ``stop`` has nothing to stop: a search never lasts
longer than its budget, and that is never more than ``MAX_BUDGET`` (2 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from games.ai import LEVELS, MAX_BUDGET, budget_for, choose_move, player_module, warm_up
from games.engines import ENGINES, IllegalMove, InvalidPosition, get
from games.engines.base import Engine

AUTHOR = "Five Boards"
# Seconds kept back from a time limit for reading, writing and Python's own overhead
# (the searches keep their own margin before the deadline on top of this).
OVERHEAD = 0.01
# The shortest search asked for: below it a search cannot finish even its first step.
MIN_BUDGET = 0.001
# With a clock and no ``movestogo``, a move gets this share of the time left, plus most of
# the increment: a game of these five lasts 20-60 moves a side, and the share shrinks
# with the clock, so the engine never runs out.
CLOCK_SHARE = 1 / 25
INCREMENT_SHARE = 0.75
# Never more than this share of what is left, whatever the increment says.
CLOCK_CAP = 0.5

# UGI names players by order (p1 moves first); UAI by colour, and in Ataxx (as in
# Othello) black moves first, so ``b`` is the first player. Both spellings are read in
# both protocols; docs/engine-protocol.md says so.
_CLOCK_KEYS: dict[str, tuple[str, int]] = {
    "p1time": ("time", 0),
    "p2time": ("time", 1),
    "p1inc": ("inc", 0),
    "p2inc": ("inc", 1),
    "btime": ("time", 0),
    "wtime": ("time", 1),
    "binc": ("inc", 0),
    "winc": ("inc", 1),
}
_GO_NUMBERS = (*_CLOCK_KEYS, "movetime", "movestogo", "depth", "nodes", "mate")


class ProtocolError(ValueError):
    """A command this engine cannot follow; answered with ``info string error ...``."""


@dataclass
class GoLimits:
    """What a ``go`` command asked for, times in milliseconds."""

    time: dict[int, int] = field(default_factory=dict)  # side -> time left
    inc: dict[int, int] = field(default_factory=dict)  # side -> increment
    movetime: int | None = None
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False


def parse_go(words: list[str]) -> GoLimits:
    """The limits of ``go`` from its arguments (the words after ``go``); ProtocolError if malformed."""
    limits = GoLimits()
    i = 0
    while i < len(words):
        key = words[i].lower()
        if key in ("infinite", "ponder"):
            # Pondering is not offered (no ``ponderhit``), so a ponder search is a plain one.
            limits.infinite = limits.infinite or key == "infinite"
            i += 1
            continue
        if key not in _GO_NUMBERS:
            raise ProtocolError(f"go: unknown limit {words[i]!r}")
        if i + 1 >= len(words):
            raise ProtocolError(f"go: {key} needs a number")
        text = words[i + 1]
        # Clocks may be negative when a harness lets a side overstep; anything else is a count.
        number = text[1:] if text.startswith("-") and key in _CLOCK_KEYS else text
        if not (number.isascii() and number.isdigit()) or len(number) > 12:
            raise ProtocolError(f"go: {key} needs a whole number, not {text!r}")
        value = int(text)
        if key in _CLOCK_KEYS:
            kind, side = _CLOCK_KEYS[key]
            (limits.time if kind == "time" else limits.inc)[side] = value
        elif key == "movetime":
            limits.movetime = value
        elif key == "movestogo":
            limits.movestogo = value
        elif key == "depth":
            limits.depth = value
        elif key == "nodes":
            limits.nodes = value
        # ``mate`` is read (so the command is not refused) and searched as a plain move.
        i += 2
    return limits


def search_seconds(limits: GoLimits, side: int, default: float) -> float:
    """Seconds to search for ``side`` to move under ``limits``; ``default`` (the level's
    budget) when no time is given. Never more than ``MAX_BUDGET``, never the whole clock."""
    if limits.movetime is not None:
        seconds = limits.movetime / 1000 - OVERHEAD
    elif side in limits.time:
        left = max(limits.time[side], 0) / 1000
        increment = max(limits.inc.get(side, 0), 0) / 1000
        share = left / limits.movestogo if limits.movestogo else left * CLOCK_SHARE
        seconds = min(share + INCREMENT_SHARE * increment, CLOCK_CAP * left) - OVERHEAD
    elif limits.infinite:
        seconds = MAX_BUDGET
    else:
        seconds = default
    return min(max(seconds, MIN_BUDGET), MAX_BUDGET)


def _option_value(words: list[str]) -> tuple[str, str]:
    """``name <words...> [value <words...>]`` -> (name, value); names may hold spaces (UCI)."""
    if not words or words[0].lower() != "name":
        raise ProtocolError("setoption: expected 'setoption name <name> value <value>'")
    lowered = [w.lower() for w in words]
    split = lowered.index("value") if "value" in lowered else len(words)
    name = " ".join(words[1:split])
    value = " ".join(words[split + 1 :])
    if not name:
        raise ProtocolError("setoption: the option has no name")
    return name, value


class EngineSession:
    """One engine conversation: the position, the options, and the answer to each line.

    ``handle(line)`` returns the lines to print (possibly none); ``finished`` turns true
    after ``quit``. The position is kept as the start position plus the moves played, so
    that a game's history (Ataxx's repetitions) is the one the engine rules saw.
    """

    def __init__(
        self,
        slug: str,
        *,
        level: str = "hard",
        warm: Callable[[Iterable[str]], object] = warm_up,
    ) -> None:
        if slug not in ENGINES:
            raise ValueError(f"unknown game {slug!r}; choose from {', '.join(sorted(ENGINES))}")
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
        self.slug = slug
        self.engine: Engine = get(slug)
        self.level = level
        self.state: Any = self.engine.initial()
        self.finished = False
        self._warm = warm
        self._warmed = False

    # -- the conversation ---------------------------------------------------

    def handle(self, line: str) -> list[str]:
        words = line.split()
        if not words:
            return []
        command, args = words[0], words[1:]
        handler = self._commands.get(command)
        if handler is None:
            return [f"info string error unknown command {command!r}"]
        try:
            return handler(self, args)
        except ProtocolError as exc:
            return [f"info string error {exc}"]

    def _handshake(self, protocol: str) -> list[str]:
        if protocol == "uai" and not getattr(player_module(self.slug), "SPEAKS_UAI", False):
            raise ProtocolError(f"uai is the Ataxx protocol; {self.slug} speaks ugi")
        levels = " ".join(f"var {level}" for level in LEVELS)
        return [
            f"id name {AUTHOR} {self.engine.name} ({self.slug})",
            f"id author {AUTHOR}",
            f"option name Level type combo default {self.level} {levels}",
            f"{protocol}ok",
        ]

    def _ugi(self, args: list[str]) -> list[str]:
        return self._handshake("ugi")

    def _uai(self, args: list[str]) -> list[str]:
        return self._handshake("uai")

    def _isready(self, args: list[str]) -> list[str]:
        # The protocol's place for slow preparation: load (or compile) the compiled search,
        # then search the start once at each level, so that what a search loads on first use
        # (Reversi's pattern weights: most of a second) is not charged to a timed move.
        if not self._warmed:
            self._warm([self.slug])
            start = self.engine.initial()
            for level in LEVELS:
                choose_move(self.engine, start, level, time_budget=MIN_BUDGET)
            self._warmed = True
        return ["readyok"]

    def _newgame(self, args: list[str]) -> list[str]:
        self.state = self.engine.initial()
        return []

    def _setoption(self, args: list[str]) -> list[str]:
        name, value = _option_value(args)
        if name.lower() != "level":
            raise ProtocolError(f"setoption: unknown option {name!r} (this engine has: Level)")
        if value.lower() not in LEVELS:
            raise ProtocolError(f"setoption: Level must be one of {', '.join(LEVELS)}, not {value!r}")
        self.level = value.lower()
        return []

    def _position(self, args: list[str]) -> list[str]:
        if not args:
            raise ProtocolError("position: expected 'startpos' or 'fen <fen>', then optionally 'moves ...'")
        split = args.index("moves") if "moves" in args else len(args)
        where, moves = args[:split], args[split + 1 :]
        if where == ["startpos"]:
            state = self.engine.initial()
        elif where[0] == "fen" and len(where) > 1:
            try:
                state = self.engine.from_fen(" ".join(where[1:]))
            except InvalidPosition as exc:
                raise ProtocolError(f"position: not a position of {self.slug}: {exc}") from exc
        else:
            raise ProtocolError("position: expected 'startpos' or 'fen <fen>', then optionally 'moves ...'")
        for number, move in enumerate(moves, start=1):
            try:
                state = self.engine.play(state, move)
            except IllegalMove as exc:
                raise ProtocolError(
                    f"position: illegal move {move!r} (move {number} of the list): {exc}; position unchanged"
                ) from exc
        self.state = state
        return []

    def _go(self, args: list[str]) -> list[str]:
        limits = parse_go(args)
        if not self.engine.legal_moves(self.state):
            return ["info string the game is over: there is no move to play", "bestmove (none)"]
        if not self._warmed:  # a harness that skips isready still gets the compiled search
            self._isready([])
        side = self.engine.to_move(self.state)
        seconds = search_seconds(limits, side, budget_for(self.slug, self.level))
        lines = []
        if limits.depth is not None or limits.nodes is not None:
            lines.append(f"info string depth and nodes limits are not supported: searching {seconds:.3f} s")
        started = time.perf_counter()
        move = choose_move(self.engine, self.state, self.level, time_budget=seconds)
        elapsed = round((time.perf_counter() - started) * 1000)
        lines += [f"info time {elapsed}", f"bestmove {move}"]
        return lines

    def _stop(self, args: list[str]) -> list[str]:
        return []  # searches are synchronous: by the time this is read, none is running

    def _query(self, args: list[str]) -> list[str]:
        if len(args) != 1:
            raise ProtocolError("query: expected one of gameover, p1turn, result, fen")
        question = args[0].lower()
        outcome = self.engine.outcome(self.state)
        if question == "gameover":
            return [f"response {'true' if outcome is not None else 'false'}"]
        if question == "p1turn":
            return [f"response {'true' if self.engine.to_move(self.state) == 0 else 'false'}"]
        if question == "result":
            if outcome is None:
                return ["response none"]
            return [f"response {'draw' if outcome.winner is None else f'p{outcome.winner + 1}win'}"]
        if question == "fen":
            return [f"response {self.engine.fen(self.state)}"]
        raise ProtocolError(f"query: unknown question {args[0]!r} (gameover, p1turn, result, fen)")

    def _quit(self, args: list[str]) -> list[str]:
        self.finished = True
        return []

    _commands: dict[str, Callable[[EngineSession, list[str]], list[str]]] = {
        "ugi": _ugi,
        "uai": _uai,
        "isready": _isready,
        "uginewgame": _newgame,
        "uainewgame": _newgame,
        "setoption": _setoption,
        "position": _position,
        "go": _go,
        "stop": _stop,
        "query": _query,
        "quit": _quit,
    }


def serve(session: EngineSession, stdin: TextIO, stdout: TextIO) -> None:
    """Answer ``stdin`` line by line until ``quit`` or the end of the input."""
    for line in stdin:
        for answer in session.handle(line):
            stdout.write(answer + "\n")
        stdout.flush()  # a harness waits for each answer: never leave one in a buffer
        if session.finished:
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.ai.ugi",
        description="The site's computer player as a UGI engine (UAI too for ataxx), on stdin/stdout.",
    )
    parser.add_argument("slug", choices=sorted(ENGINES))
    parser.add_argument("--level", choices=LEVELS, default="hard", help="the starting Level (default hard)")
    options = parser.parse_args(argv)
    serve(EngineSession(options.slug, level=options.level), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
