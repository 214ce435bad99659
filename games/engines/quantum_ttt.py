"""Quantum tic-tac-toe (Allan Goff's game), SPEC section 1.4.

Squares are numbered 1..9 in reading order (1 2 3 / 4 5 6 / 7 8 9). Moves are
numbered 1..9; X (side 0) makes the odd moves, O (side 1) the even ones, so the
side owning a mark always follows from its move number.

This module holds the tokens, the turns, the results and the formats; the spooky links and
their collapse (``linked_squares``, ``collapse``, ``check_links``, the view's ``pending_cycle``)
live in ``games.engines.quantum_ttt_collapse``.

Tokens
------
``a-b``  a normal move: two spooky marks of the mover, both labelled with the
         move number, in squares ``a < b`` without a classical mark (``1-5``).
``@N``   a collapse choice: the newest spooky mark settles in square ``N``.
``N``    X's ninth move when exactly one square has no classical mark: a plain
         classical mark in square ``N`` (``5``).

Rules as played here (decisions where the seed is silent are marked *)
---------------------------------------------------------------------------
- Every spooky pair links its two squares. Outside a pending collapse the links
  form a forest (no cycle). A pair whose squares are already linked (directly,
  e.g. the same two squares again, or through a chain) closes a cycle.
- After a pair closes a cycle, the player who did NOT close it must choose where
  the newest mark settles; that player is the one who makes the next normal move,
  so ``to_move`` is simply the owner of the next move number. The two ``@N``
  tokens (sorted by square) are then the only legal moves; ``@N`` does not use up
  a move number. The settled mark becomes classical; every other spooky mark in
  its square is pushed into its other square, cascading, until every mark
  connected to the cycle is classical (its component has as many squares as
  marks, so each square receives exactly one). Marks not connected stay spooky.
- After the collapse the chooser makes their own normal move (two turns in a
  row), *unless the collapse ended the game: a line of three classical marks, or
  every square classical. Then the chooser does not move again.
- Only classical marks count. If one collapse completes lines for both players,
  the player whose best line has the lower highest move number wins (X's numbers
  are odd and O's even, so it never ties). Two lines of one player are one win.
- Move counting shows when the single-square ninth move arises: before move m
  (no collapse pending) the spooky links are a forest on the N non-classical
  squares with ``N - links == 10 - m``. So before move 9 they form a spanning tree:
  any pair then closes a cycle, and O's collapse classicalises the whole board.
  Only when all eight earlier marks are already classical (N == 1) does no pair
  fit, and X's only legal move is that square's number. This cannot happen at
  any other move, since N >= 10 - m >= 2 for m <= 8.
- Full board without a line: draw (reason ``"board_full"``). A line ends the
  game with reason ``"line"``.
- *Score = the number of classical three-in-a-rows of each side, (X, O). After a
  double-line collapse both counts can be positive; the winner is decided by the
  move-number rule above, not by the counts.

State
-----
``QState(classical, spooky, move, pending)``:
``classical`` 9 ints, the move number of the classical mark in squares 1..9 or 0;
``spooky`` the marks still spooky as ``(move, a, b)`` with ``a < b``, sorted by
move; ``move`` the number of the next normal move (1..10; 10 once nine moves
were made); ``pending`` the move number of the newest mark while its collapse
waits for the chooser's ``@N``, else 0 (it is then always ``move - 1``).

Position text (``fen``), four space-separated fields::

    <classical> <spooky> <move> <pending>
    1.2...... 3:4-9,4:4-9 5 4

- classical: 9 characters for squares 1..9, ``.`` for no classical mark, else
  the move number (1..9) of the classical mark there (odd X, even O);
- spooky: ``-`` or comma-separated ``m:a-b`` sorted by ``m``;
- move: the number of the next normal move, 1..10;
- pending: ``-`` or the move number whose collapse is waiting.

The start is ``......... - 1 -``.

``dumps`` gives ``{"game", "classical" [9 ints], "spooky" [[m, a, b], ...],
"move", "pending"}``. ``view`` adds the common keys and:

- ``cells``: 9 dicts in square order ``{"square": 1..9, "classical": null or
  {"side", "move"}, "spooky": [{"move", "side"}, ...] sorted by move}``;
- ``links``: the spooky pairs ``[move, a, b]`` (draw a line between the squares);
- ``pending_cycle``: null, or ``{"move", "side", "chooser", "choices": [a, b],
  "squares": the cycle's squares, "marks": the cycle's move numbers,
  "component": every square that will collapse}``;
- ``lines``: the completed classical lines ``{"side", "squares", "high"}`` with
  ``high`` the line's highest move number;
- ``classical_move``: the square of X's ninth plain move when it is due, else null.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, NamedTuple

from games.engines.base import (
    IllegalMove,
    InvalidPosition,
    Outcome,
    OutcomeReason,
    check_stored,
    common_view,
    is_whole,
    stored_int,
)
from games.engines.quantum_ttt_collapse import (
    SQUARES,
    Mark,
    check_links,
    collapse,
    linked_squares,
    pending_cycle,
    side_of,
)

# The eight lines, as square numbers.
LINES: tuple[tuple[int, int, int], ...] = (
    (1, 2, 3), (4, 5, 6), (7, 8, 9),
    (1, 4, 7), (2, 5, 8), (3, 6, 9),
    (1, 5, 9), (3, 5, 7),
)  # fmt: skip


class QState(NamedTuple):
    classical: tuple[int, ...]  # 9 entries: move number of the classical mark or 0
    spooky: tuple[Mark, ...]  # marks still spooky, sorted by move number
    move: int  # number of the next normal move (1..10)
    pending: int  # move number whose collapse waits for the chooser, else 0


# Token tables: parsing is a dict lookup, so anything else (spaces, upper case,
# reversed pairs, "1-1") is simply not found and refused.
_PAIRS: dict[str, tuple[int, int]] = {f"{a}-{b}": (a, b) for a in SQUARES for b in SQUARES if a < b}
_CHOICES: dict[str, int] = {f"@{n}": n for n in SQUARES}
_PLAIN: dict[str, int] = {str(n): n for n in SQUARES}
_PAIR_LIST: tuple[tuple[str, int, int], ...] = tuple((t, a, b) for t, (a, b) in _PAIRS.items())
_moves_cache: dict[tuple[int, ...], list[str]] = {}  # classical marks -> sorted pair tokens


def _pair_moves(classical: tuple[int, ...]) -> list[str]:
    """The pair tokens (sorted) between squares without a classical mark, memoised."""
    moves = _moves_cache.get(classical)
    if moves is None:
        moves = [t for t, a, b in _PAIR_LIST if not classical[a - 1] and not classical[b - 1]]
        if len(_moves_cache) > 100_000:  # bound the memory of a long-running server
            _moves_cache.clear()
        _moves_cache[classical] = moves
    return moves


def _lines(classical: tuple[int, ...]) -> list[tuple[int, tuple[int, int, int], int]]:
    """Completed classical lines as (side, squares, highest move number)."""
    found = []
    for line in LINES:
        x, y, z = classical[line[0] - 1], classical[line[1] - 1], classical[line[2] - 1]
        if x and y and z and (x & 1) == (y & 1) == (z & 1):
            found.append((side_of(x), line, max(x, y, z)))
    return found


_results: dict[tuple[int, ...], tuple[tuple[int, int], Outcome | None]] = {}


def _result(classical: tuple[int, ...]) -> tuple[tuple[int, int], Outcome | None]:
    """(score, outcome) of a position with no collapse pending; both depend on the
    classical marks alone, so they are memoised per pattern (searches revisit them)."""
    cached = _results.get(classical)
    if cached is not None:
        return cached
    lines = _lines(classical)
    counts = [0, 0]
    best = [10, 10]  # per side: the lowest highest-move-number of its lines
    for side, _, high in lines:
        counts[side] += 1
        best[side] = min(best[side], high)
    score = (counts[0], counts[1])
    outcome = None
    if lines:
        outcome = Outcome(0 if best[0] < best[1] else 1, score, OutcomeReason.LINE)
    elif all(classical):
        outcome = Outcome(None, score, OutcomeReason.BOARD_FULL)
    if len(_results) > 100_000:  # bound the memory of a long-running server
        _results.clear()
    _results[classical] = (score, outcome)
    return score, outcome


def _validate(classical: tuple[int, ...], spooky: tuple[Mark, ...], move: int, pending: int) -> None:
    """Raise InvalidPosition unless the four fields describe a reachable-looking position."""
    if not 1 <= move <= 10:
        raise InvalidPosition(f"next move number {move} is not in 1..10")
    numbers = [m for m in classical if m] + [m for m, _, _ in spooky]
    if sorted(numbers) != list(range(1, move)):
        raise InvalidPosition(
            f"the marks {sorted(numbers)} must be exactly the moves 1..{move - 1}, each once"
        )
    if [m for m, _, _ in spooky] != sorted(m for m, _, _ in spooky):
        raise InvalidPosition("spooky marks must be listed by move number")
    for m, a, b in spooky:
        if not (1 <= a < b <= 9):
            raise InvalidPosition(f"spooky mark {m} needs two squares a < b in 1..9, got {a}-{b}")
        if classical[a - 1] or classical[b - 1]:
            raise InvalidPosition(f"spooky mark {m} sits in a square that already holds a classical mark")
    count = len(numbers) - len(spooky)
    if count == 1:
        raise InvalidPosition("a single classical mark is impossible: a collapse settles at least two")
    lines = _lines(classical)
    top = max((m for m in classical if m), default=0)
    if lines and top != move - 1:
        raise InvalidPosition("the game ended with a line, yet moves were made after it")
    if pending:
        if pending != move - 1 or pending not in (m for m, _, _ in spooky):
            raise InvalidPosition("a pending collapse must be for the newest mark, which must be spooky")
        if lines:
            raise InvalidPosition("a collapse cannot be pending after the game ended with a line")
    check_links(spooky, pending)
    if 9 in classical and spooky:
        raise InvalidPosition("after the ninth move every mark is classical")


class QuantumTTTEngine:
    """Rules of quantum tic-tac-toe; see the module docstring for tokens and formats."""

    slug: ClassVar[str] = "quantum_ttt"
    name: ClassVar[str] = "Quantum Tic-Tac-Toe"
    pass_move: ClassVar[str | None] = None

    # ---------------------------------------------------------------- basics
    def initial(self) -> QState:
        return QState((0,) * 9, (), 1, 0)

    def to_move(self, state: QState) -> int:
        # The chooser of a pending collapse is the owner of the next move number.
        return side_of(state.move)

    def _plain_square(self, state: QState) -> int:
        """The square of X's ninth plain move when it is due, else 0."""
        if state.move != 9 or state.pending:
            return 0
        free = [sq for sq in SQUARES if not state.classical[sq - 1]]
        return free[0] if len(free) == 1 else 0

    def legal_moves(self, state: QState) -> list[str]:
        if self.outcome(state) is not None:
            return []
        if state.pending:
            _, a, b = state.spooky[-1]
            return [f"@{a}", f"@{b}"]
        plain = self._plain_square(state)
        if plain:
            return [str(plain)]
        return list(_pair_moves(state.classical))

    def play(self, state: QState, move: str) -> QState:
        if not isinstance(move, str):
            raise IllegalMove(f"a move must be text, got {type(move).__name__}")
        if self.outcome(state) is not None:
            raise IllegalMove(f"the game is over: {move!r} cannot be played")
        if state.pending:
            return self._play_choice(state, move)
        plain = self._plain_square(state)
        if plain:
            if _PLAIN.get(move) != plain:
                raise IllegalMove(
                    f"only square {plain} is left: X's ninth move must be {str(plain)!r}, not {move!r}"
                )
            cls = list(state.classical)
            cls[plain - 1] = 9
            return QState(tuple(cls), (), 10, 0)
        pair = _PAIRS.get(move)
        if pair is None:
            if move in _CHOICES:
                raise IllegalMove(f"{move!r}: no collapse is pending")
            raise IllegalMove(
                f"{move!r} is not a move: write two different squares a-b with a < b, e.g. '1-5'"
            )
        a, b = pair
        if state.classical[a - 1] or state.classical[b - 1]:
            taken = a if state.classical[a - 1] else b
            raise IllegalMove(f"{move!r}: square {taken} already holds a classical mark")
        closes = linked_squares(state.spooky, a) >> b & 1
        m = state.move
        return QState(state.classical, (*state.spooky, (m, a, b)), m + 1, m if closes else 0)

    def _play_choice(self, state: QState, move: str) -> QState:
        newest, a, b = state.spooky[-1]
        square = _CHOICES.get(move)
        if square is None:
            raise IllegalMove(
                f"{move!r}: a collapse is pending; choose where mark {newest} settles with '@{a}' or '@{b}'"
            )
        if square not in (a, b):
            raise IllegalMove(f"{move!r}: mark {newest} can only settle in square {a} or {b}")
        classical, spooky = collapse(state.classical, state.spooky, newest, square)
        return QState(classical, spooky, state.move, 0)

    # ------------------------------------------------------------- results
    def score(self, state: QState) -> tuple[int, int]:
        return _result(state.classical)[0]

    def outcome(self, state: QState) -> Outcome | None:
        if state.pending:
            return None  # a line is only ever made by a collapse, never while one waits
        return _result(state.classical)[1]

    # -------------------------------------------------------- serialisation
    def dumps(self, state: QState) -> dict[str, Any]:
        return {
            "game": self.slug,
            "classical": list(state.classical),
            "spooky": [list(mark) for mark in state.spooky],
            "move": state.move,
            "pending": state.pending,
        }

    def loads(self, data: dict[str, Any]) -> QState:
        check_stored(data, self.slug, {"game", "classical", "spooky", "move", "pending"})
        classical, spooky = data["classical"], data["spooky"]
        if (
            not isinstance(classical, list)
            or len(classical) != 9
            or not all(is_whole(v, 0, 9) for v in classical)
        ):
            raise InvalidPosition("classical must be a list of 9 move numbers (0..9, 0 = none)")
        if not isinstance(spooky, list) or not all(
            isinstance(mk, list) and len(mk) == 3 and all(is_whole(v, 1, 9) for v in mk) for mk in spooky
        ):
            raise InvalidPosition("spooky must be a list of [move, a, b] with numbers in 1..9")
        move, pending = stored_int(data, "move", 1, 10), stored_int(data, "pending", 0, 9)
        state = QState(tuple(classical), tuple((mk[0], mk[1], mk[2]) for mk in spooky), move, pending)
        _validate(*state)
        return state

    def fen(self, state: QState) -> str:
        cls = "".join(str(m) if m else "." for m in state.classical)
        spooky = ",".join(f"{m}:{a}-{b}" for m, a, b in state.spooky) or "-"
        return f"{cls} {spooky} {state.move} {state.pending or '-'}"

    def from_fen(self, text: str) -> QState:
        if not isinstance(text, str):
            raise InvalidPosition("a position must be text")
        match = _FEN.fullmatch(text.strip())
        if not match:
            raise InvalidPosition(
                f"malformed quantum_ttt position {text!r}: expected '<9 of . or 1-9> <- or m:a-b,...> <move> <- or m>'"
            )
        cls_text, spooky_text, move_text, pending_text = match.groups()
        classical = tuple(0 if c == "." else int(c) for c in cls_text)
        spooky: tuple[Mark, ...] = ()
        if spooky_text != "-":
            spooky = tuple((int(p[0]), int(p[2]), int(p[4])) for p in spooky_text.split(","))
        pending = 0 if pending_text == "-" else int(pending_text)
        state = QState(classical, spooky, int(move_text), pending)
        _validate(*state)
        return state

    # ----------------------------------------------------------------- view
    def view(self, state: QState) -> dict[str, Any]:
        cells: list[dict[str, Any]] = []
        for sq in SQUARES:
            m = state.classical[sq - 1]
            cells.append(
                {
                    "square": sq,
                    "classical": {"side": side_of(m), "move": m} if m else None,
                    "spooky": [{"move": k, "side": side_of(k)} for k, a, b in state.spooky if sq in (a, b)],
                }
            )
        return {
            **common_view(self, state),
            "cells": cells,
            "links": [list(mark) for mark in state.spooky],
            "pending_cycle": pending_cycle(state.spooky, self.to_move(state)) if state.pending else None,
            "lines": [
                {"side": s, "squares": list(line), "high": h} for s, line, h in _lines(state.classical)
            ],
            "classical_move": self._plain_square(state) or None,
        }


_FEN = re.compile(r"([.1-9]{9}) (-|[1-9]:[1-9]-[1-9](?:,[1-9]:[1-9]-[1-9])*) (10|[1-9]) (-|[1-9])")


# Found by games.engines: the engine, and its place in every list of games (smallest first).
ENGINE = QuantumTTTEngine()
ORDER = 4
