"""An outside engine over UAI or UGI (docs/engine-protocol.md): positions, clocks, bestmove."""

from __future__ import annotations

import logging
import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any

from bots.config import EngineConfig


class EngineError(RuntimeError):
    """The engine exited, or did not answer in time."""


@dataclass
class Search:
    move: str | None  # None: the engine had no move ("bestmove (none)")
    score: int | None  # centipawn-like score for the side to move, when the engine said one


def go_command(config: EngineConfig, state: dict[str, Any], you: int) -> str:
    """The ``go`` line for a gameState (clocks in ms, side 0 first) and our side.

    ``movetime`` from the configuration wins; a game without clocks (correspondence)
    searches the configured movetime or the engine's own default. UAI's ``b`` is the
    first player (black moves first in Ataxx), as UGI's ``p1``; the site's ``w``
    fields are side 0's. Our own time is shortened by the configured overhead so that
    the HTTP round trip is not paid for with a flag.
    """
    if config.movetime > 0:
        return f"go movetime {config.movetime}"
    wtime, btime = state.get("wtime"), state.get("btime")
    incs = [state.get("winc") or 0, state.get("binc") or 0]
    if wtime is None or btime is None:
        return "go"
    times = [int(wtime), int(btime)]
    times[you] = max(1, times[you] - config.move_overhead)
    if config.protocol == "uai":
        return f"go btime {times[0]} wtime {times[1]} binc {int(incs[0])} winc {int(incs[1])}"
    return f"go p1time {times[0]} p2time {times[1]} p1inc {int(incs[0])} p2inc {int(incs[1])}"


def position_command(initial_fen: str, moves: list[str]) -> str:
    line = f"position fen {initial_fen}"
    return f"{line} moves {' '.join(moves)}" if moves else line


def parse_score(line: str) -> int | None:
    """``info ... score cp N`` (or ``score mate N``, as a large score) -> N, else None."""
    parts = line.split()
    if "score" not in parts:
        return None
    at = parts.index("score")
    try:
        kind, value = parts[at + 1], int(parts[at + 2])
    except (IndexError, ValueError):
        return None
    if kind == "cp":
        return value
    if kind == "mate":
        return 100_000 if value > 0 else -100_000
    return None


class Engine:
    """One engine process; a game at a time talks to it (the bridge starts one per game)."""

    def __init__(self, config: EngineConfig, log: logging.Logger) -> None:
        self.config = config
        self.log = log
        self.proc = subprocess.Popen(
            list(config.command),
            cwd=config.cwd,
            env={**os.environ, **config.env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.hello()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def send(self, line: str) -> None:
        self.log.debug("engine < %s", line)
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise EngineError(f"the engine's input is closed: {exc}") from exc

    def expect(self, prefix: str, timeout: float) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise EngineError(f"no {prefix!r} from the engine in {timeout} s") from None
            if line is None:
                raise EngineError(f"the engine exited (code {self.proc.poll()}) before {prefix!r}")
            self.log.debug("engine > %s", line)
            seen.append(line)
            if line.split(" ", 1)[0] == prefix:
                return seen

    def hello(self) -> None:
        protocol = self.config.protocol
        self.send(protocol)
        self.expect(f"{protocol}ok", self.config.ready_timeout)
        for name, value in self.config.options.items():
            self.send(f"setoption name {name} value {value}")
        self.ready()

    def ready(self) -> None:
        self.send("isready")
        self.expect("readyok", self.config.ready_timeout)

    def new_game(self) -> None:
        self.send(f"{self.config.protocol}newgame")
        self.ready()

    def search(self, initial_fen: str, moves: list[str], go: str, timeout: float) -> Search:
        self.send(position_command(initial_fen, moves))
        self.send(go)
        lines = self.expect("bestmove", timeout)
        score = None
        for line in lines:
            if line.startswith("info"):
                score = parse_score(line) if parse_score(line) is not None else score
        move = lines[-1].split()[1] if len(lines[-1].split()) > 1 else None
        return Search(move=None if move in (None, "(none)") else move, score=score)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=5)
            except (EngineError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
