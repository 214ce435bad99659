"""The computer players as UGI/UAI engines (issue #41), driven the way a match runner drives
them: commands written line by line, answers read line by line, with a deadline on every wait.

Two ways in, one conversation. ``EngineProcess`` starts the real program
(``python -m games.ai.ugi`` or ``manage.py engine``): each game's handshake, search and
``quit`` run in a fresh process of its own, so a game that only works with the site loaded
would fail here. Those engines run with ``GAMES_AI_PURE_PYTHON=1`` (no numba to load); the
``manage.py engine`` test runs the compiled searches as shipped. ``EngineThread`` runs the same
loop (``serve`` over an ``EngineSession``) on a thread of this process, over OS pipes: the
protocol's details (positions, queries, bad input, whole games) are checked there, without a
Python start per test (issue #39: the starts were most of this file's time).
"""

from __future__ import annotations

import os
import queue
import random
import subprocess
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

import pytest

from games.ai import DEFAULT_BUDGET, MAX_BUDGET
from games.ai.ugi import EngineSession, GoLimits, ProtocolError, parse_go, search_seconds, serve
from games.engines import ENGINES, get

REPO = Path(__file__).resolve().parents[3]
# Generous: a busy 2-core machine may be slow to answer, but an engine that hangs must fail.
ANSWER_TIMEOUT = 60.0
SLUGS = sorted(ENGINES)


class Conversation(ABC):
    """An engine under test: lines in, lines out, with a deadline on every wait.

    A transport puts each line the engine prints on ``self.lines``, then ``None`` when it ends,
    and says in ``_why_it_ended`` what it left behind (stderr, an exception).
    """

    def __init__(self) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()

    def _pump(self, stream) -> None:
        with stream:
            for line in stream:
                self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    @abstractmethod
    def _why_it_ended(self) -> str: ...

    @abstractmethod
    def send(self, line: str) -> None: ...

    def read_until(self, done: Callable[[str], bool]) -> list[str]:
        """Lines up to and including the first for which ``done`` is true."""
        seen: list[str] = []
        while True:
            try:
                line = self.lines.get(timeout=ANSWER_TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no answer within {ANSWER_TIMEOUT} s; so far: {seen}") from None
            if line is None:
                raise AssertionError(f"the engine exited; it printed {seen}; {self._why_it_ended()}")
            seen.append(line)
            if done(line):
                return seen

    def ask(self, line: str, answer_prefix: str) -> list[str]:
        self.send(line)
        return self.read_until(lambda text: text.startswith(answer_prefix))

    def response(self, question: str) -> str:
        return self.ask(f"query {question}", "response ")[-1].removeprefix("response ")

    def bestmove(self, go: str = "go movetime 50") -> str:
        return self.ask(go, "bestmove ")[-1].removeprefix("bestmove ")

    def errors_after(self, line: str) -> list[str]:
        """The error lines ``line`` produced (an ``isready`` behind it marks where its answer ends)."""
        self.send(line)
        self.send("isready")
        return [text for text in self.read_until(lambda text: text == "readyok") if "error" in text]


class EngineProcess(Conversation):
    """The real program in a process of its own, on its stdin and stdout."""

    def __init__(self, args: list[str], *, pure_python: bool = True) -> None:
        super().__init__()
        env = {**os.environ}
        if pure_python:
            env["GAMES_AI_PURE_PYTHON"] = "1"
        self.process = subprocess.Popen(
            [sys.executable, *args],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        threading.Thread(target=self._pump, args=(self.process.stdout,), daemon=True).start()

    def _why_it_ended(self) -> str:
        return f"stderr: {self.process.stderr.read() if self.process.stderr else ''}"

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def quit(self) -> int:
        self.send("quit")
        return self.process.wait(timeout=ANSWER_TIMEOUT)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class EngineThread(Conversation):
    """``serve`` over an ``EngineSession`` on a thread, its stdin and stdout OS pipes: the loop
    ``python -m games.ai.ugi SLUG --level LEVEL`` runs, without starting Python again."""

    def __init__(self, slug: str, *, level: str = "hard") -> None:
        super().__init__()
        session = EngineSession(slug, level=level)
        to_engine, from_engine = os.pipe(), os.pipe()
        self._stdin = open(to_engine[1], "w", buffering=1)  # noqa: SIM115 (closed by quit/kill)
        engine_stdin = open(to_engine[0])  # noqa: SIM115
        engine_stdout = open(from_engine[1], "w")  # noqa: SIM115
        self.failure: BaseException | None = None

        def run() -> None:
            try:
                serve(session, engine_stdin, engine_stdout)
            except BaseException as exc:  # reported by read_until, as a process's stderr is
                self.failure = exc
            finally:
                engine_stdin.close()
                engine_stdout.close()  # the reader sees the end, as it sees a process exit

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        engine_answers = open(from_engine[0])  # noqa: SIM115 (closed by _pump at the end)
        threading.Thread(target=self._pump, args=(engine_answers,), daemon=True).start()

    def _why_it_ended(self) -> str:
        return f"it raised: {self.failure!r}"

    def send(self, line: str) -> None:
        self._stdin.write(line + "\n")

    def quit(self) -> int:
        """0 once the loop has returned after ``quit`` (the program then exits with 0)."""
        self.send("quit")
        self.thread.join(timeout=ANSWER_TIMEOUT)
        assert not self.thread.is_alive(), "the engine did not stop after quit"
        self.kill()
        return 0 if self.failure is None else 1

    def kill(self) -> None:
        if not self._stdin.closed:
            self._stdin.close()  # the end of the input: the loop returns
        self.thread.join(timeout=ANSWER_TIMEOUT)


def start(slug: str, *, level: str = "hard", handshake: str = "ugi") -> EngineThread:
    engine = EngineThread(slug, level=level)
    engine.ask(handshake, f"{handshake}ok")
    engine.ask("isready", "readyok")
    return engine


@pytest.fixture
def engines():
    """Engines on threads of this process, handshake and ``isready`` done; stopped after the test."""
    started: list[EngineThread] = []

    def make(slug: str, *, level: str = "hard", handshake: str = "ugi") -> EngineThread:
        started.append(start(slug, level=level, handshake=handshake))
        return started[-1]

    yield make
    for engine in started:
        engine.kill()


def random_finished_game(slug: str, seed: int) -> list[str]:
    """The moves of a random game of ``slug`` played to its end."""
    engine, rng = get(slug), random.Random(seed)
    state, moves = engine.initial(), []
    while legal := engine.legal_moves(state):
        move = rng.choice(legal)
        moves.append(move)
        state = engine.play(state, move)
    return moves


def expected_result(slug: str, state) -> str:
    outcome = get(slug).outcome(state)
    if outcome is None:
        return "none"
    return "draw" if outcome.winner is None else f"p{outcome.winner + 1}win"


# -- the handshake and a search ------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_handshake_then_a_position_with_moves_gets_a_legal_bestmove(slug):
    engine = EngineProcess(["-m", "games.ai.ugi", slug])
    try:
        hello = engine.ask("ugi", "ugiok")
        assert hello[0].startswith("id name ") and slug in hello[0]
        assert any(line.startswith("id author ") for line in hello)
        assert "option name Level type combo default hard var easy var medium var hard" in hello
        assert engine.ask("isready", "readyok") == ["readyok"]
        engine.send("uginewgame")

        rules = get(slug)
        opening = random_finished_game(slug, seed=7)[:3]
        state = rules.initial()
        for move in opening:
            state = rules.play(state, move)
        engine.send(f"position startpos moves {' '.join(opening)}")
        assert engine.response("fen") == rules.fen(state)
        assert engine.response("p1turn") == ("true" if rules.to_move(state) == 0 else "false")
        assert engine.response("gameover") == "false"
        assert engine.response("result") == "none"
        assert engine.bestmove("go movetime 50") in rules.legal_moves(state)
        assert engine.quit() == 0
    finally:
        engine.kill()


@pytest.mark.parametrize("slug", SLUGS)
def test_a_position_given_as_fen_and_a_clock(engines, slug):
    rules = get(slug)
    state = rules.initial()
    for move in random_finished_game(slug, seed=3)[:4]:
        state = rules.play(state, move)
    engine = engines(slug, level="easy")
    engine.send(f"position fen {rules.fen(state)}")
    assert engine.response("fen") == rules.fen(state)
    move = engine.bestmove("go p1time 3000 p2time 3000 p1inc 100 p2inc 100")
    assert move in rules.legal_moves(state)
    # The moves after a FEN are played from it.
    engine.send(f"position fen {rules.fen(state)} moves {move}")
    assert engine.response("fen") == rules.fen(rules.play(state, move))


# -- finished games --------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_query_on_finished_games_of_each_game(engines, slug):
    engine = engines(slug, level="easy")
    rules = get(slug)
    results = set()
    for seed in range(4):
        moves = random_finished_game(slug, seed)
        state = rules.initial()
        for move in moves:
            state = rules.play(state, move)
        engine.send(f"position startpos moves {' '.join(moves)}")
        assert engine.response("gameover") == "true"
        assert engine.response("result") == expected_result(slug, state)
        results.add(expected_result(slug, state))
        # No move to choose: said plainly, and still a bestmove line for the runner waiting on one.
        answer = engine.ask("go movetime 50", "bestmove ")
        assert answer[-1] == "bestmove (none)"
        assert any("game is over" in line for line in answer)
    assert results <= {"p1win", "p2win", "draw"}


@pytest.mark.parametrize(
    ("slug", "fen", "result"),
    [
        ("reversi", "X" * 32 + "O" * 32 + " X", "draw"),
        ("reversi", "X" * 40 + "O" * 24 + " O", "p1win"),
        ("reversi", "O" * 40 + "X" * 24 + " X", "p2win"),
        ("ataxx", "x6/7/7/7/7/7/7 o 0 1", "p1win"),
        ("ataxx", "x5o/7/7/7/7/7/o5x x 100 60", "draw"),  # 100 plies without a clone
        ("four_tac_toe", "9/9/9/9/4*4/9/9/9/9 X", "none"),
    ],
)
def test_query_result_on_positions_given_as_fen(engines, slug, fen, result):
    engine = engines(slug, level="easy")
    engine.send(f"position fen {fen}")
    assert engine.response("result") == result
    assert engine.response("gameover") == ("false" if result == "none" else "true")


# -- UAI for Ataxx ---------------------------------------------------------------------


def test_ataxx_speaks_uai():
    engine = EngineProcess(["-m", "games.ai.ugi", "ataxx", "--level", "easy"])
    try:
        hello = engine.ask("uai", "uaiok")
        assert hello[-1] == "uaiok" and hello[0].startswith("id name ")
        assert engine.ask("isready", "readyok") == ["readyok"]
        engine.send("uainewgame")
        engine.send("position fen x5o/7/7/7/7/7/o5x x 0 1 moves g2 a1c3")
        rules = get("ataxx")
        state = rules.play(rules.play(rules.initial(), "g2"), "a1c3")
        assert engine.response("fen") == rules.fen(state)
        # UAI's clock words: black (btime) is x, the side that moves first; here o moves.
        assert engine.bestmove("go btime 5000 wtime 4000 binc 50 winc 50") in rules.legal_moves(state)
        engine.send("position startpos")
        assert engine.bestmove("go movetime 50") in rules.legal_moves(rules.initial())
        assert engine.quit() == 0
    finally:
        engine.kill()


def test_uai_is_refused_for_the_other_games(engines):
    engine = engines("reversi")
    assert engine.errors_after("uai") == ["info string error uai is the Ataxx protocol; reversi speaks ugi"]


# -- bad input -------------------------------------------------------------------------


def test_bad_input_is_answered_with_an_error_and_changes_nothing(engines):
    engine = engines("ultimate_ttt", level="easy")
    engine.send("position startpos moves e5 e6")
    before = engine.response("fen")
    bad = [
        ("fly to the moon", "unknown command 'fly'"),
        ("position", "position: expected"),
        ("position somewhere", "position: expected"),
        ("position fen 9/9/9 X 0 0000", "not a position of ultimate_ttt"),
        ("position fen", "position: expected"),
        ("go movetime soon", "go: movetime needs a whole number"),
        ("go movetime", "go: movetime needs a number"),
        ("go sideways 10", "go: unknown limit 'sideways'"),
        ("setoption name Level value grandmaster", "Level must be one of easy, medium, hard"),
        ("setoption name Hash value 64", "unknown option 'Hash'"),
        ("setoption Level hard", "setoption: expected"),
        ("query colour", "query: unknown question 'colour'"),
        ("query", "query: expected one of"),
    ]
    for line, message in bad:
        errors = engine.errors_after(line)
        assert len(errors) == 1 and errors[0].startswith("info string error "), (line, errors)
        assert message in errors[0], (line, errors)
        assert engine.response("fen") == before, line


def test_an_illegal_move_in_position_is_refused_and_the_position_kept(engines):
    engine = engines("reversi", level="easy")
    engine.send("position startpos moves d3")
    before = engine.response("fen")
    # d3 c5 is legal, then a1 flips nothing: the whole command is refused, not its first half.
    errors = engine.errors_after("position startpos moves d3 c5 a1")
    assert len(errors) == 1
    assert "illegal move 'a1' (move 3 of the list)" in errors[0]
    assert "position unchanged" in errors[0]
    assert engine.response("fen") == before
    assert engine.errors_after("position startpos moves D3") != []  # tokens are lower case
    assert engine.response("fen") == before


def test_the_level_option_is_taken(engines):
    engine = engines("quantum_ttt")
    assert engine.errors_after("setoption name Level value easy") == []
    assert engine.errors_after("setoption name level value MEDIUM") == []  # names and values: any case
    assert engine.bestmove("go movetime 30") in get("quantum_ttt").legal_moves(get("quantum_ttt").initial())


# -- whole games through the protocol -------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_a_whole_game_engine_against_engine(engines, slug):
    """Two engines play a game to its end the way a match runner plays them: the position as
    start + moves before every ``go``; every answer is checked by the site's rules."""
    rules = get(slug)
    # Ataxx: one side speaks UAI, the other UGI, each with its own clock words.
    handshakes = ("uai", "ugi") if slug == "ataxx" else ("ugi", "ugi")
    players = [engines(slug, level="easy", handshake=handshake) for handshake in handshakes]
    for player, handshake in zip(players, handshakes, strict=True):
        player.send(f"{handshake}newgame")
    clocks = {0: "go p1time 60000 p2time 60000 p1inc 0 p2inc 0", 1: "go movetime 20"}
    if slug == "ataxx":
        clocks[0] = "go btime 60000 wtime 60000 binc 0 winc 0"
    state, moves = rules.initial(), []
    while rules.outcome(state) is None:
        side = rules.to_move(state)
        player = players[side]
        player.send(f"position startpos moves {' '.join(moves)}" if moves else "position startpos")
        move = player.bestmove(clocks[side])
        assert move in rules.legal_moves(state), (slug, moves, move)
        state = rules.play(state, move)
        moves.append(move)
        assert len(moves) < 2000, "the game does not end"
    for player in players:
        player.send(f"position startpos moves {' '.join(moves)}")
        assert player.response("gameover") == "true"
        assert player.response("result") == expected_result(slug, state)
        assert player.quit() == 0


# -- the Django command ----------------------------------------------------------------


def test_manage_py_engine_runs_the_same_engine_with_the_compiled_searches():
    engine = EngineProcess(["manage.py", "engine", "four_tac_toe"], pure_python=False)
    try:
        assert engine.ask("ugi", "ugiok")[-1] == "ugiok"
        assert engine.ask("isready", "readyok") == ["readyok"]
        engine.send("position startpos moves a1")
        rules = get("four_tac_toe")
        assert engine.bestmove("go movetime 100") in rules.legal_moves(rules.play(rules.initial(), "a1"))
        assert engine.quit() == 0
    finally:
        engine.kill()


# -- time controls (the arithmetic, in process) ---------------------------------------


def test_the_time_a_search_gets():
    hard = DEFAULT_BUDGET["hard"]
    # No limits: the level's own budget.
    assert search_seconds(GoLimits(), 0, hard) == hard
    # movetime: a little under it, and never over the spec's ceiling.
    assert 0 < search_seconds(parse_go(["movetime", "50"]), 0, hard) < 0.05
    assert search_seconds(parse_go(["movetime", "60000"]), 0, hard) == MAX_BUDGET
    # A clock: a share of what the side to move has left, plus most of its increment.
    limits = parse_go(["p1time", "10000", "p2time", "1000", "p1inc", "500", "p2inc", "0"])
    assert 0.4 < search_seconds(limits, 0, hard) < 1.0
    assert 0 < search_seconds(limits, 1, hard) < 0.1
    # Nearly out of time: never the whole clock, even with a big increment.
    assert search_seconds(parse_go(["p1time", "100", "p1inc", "5000"]), 0, hard) < 0.05
    assert search_seconds(parse_go(["p1time", "-20"]), 0, hard) > 0  # overstepped: still answers
    # UAI's words: black (b) is the first player.
    assert parse_go(["btime", "900", "wtime", "700"]).time == {0: 900, 1: 700}
    assert parse_go(["wtime", "1", "btime", "2", "winc", "3", "binc", "4"]).inc == {1: 3, 0: 4}
    assert search_seconds(parse_go(["infinite"]), 0, hard) == MAX_BUDGET
    assert search_seconds(parse_go(["movestogo", "2", "p1time", "1000"]), 0, hard) == pytest.approx(0.49)
    with pytest.raises(ProtocolError):
        parse_go(["depth", "-1"])


def test_the_session_refuses_an_unknown_game_or_level():
    with pytest.raises(ValueError, match="unknown game"):
        EngineSession("chess")
    with pytest.raises(ValueError, match="unknown level"):
        EngineSession("reversi", level="impossible")
