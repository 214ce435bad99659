"""Plain tic-tac-toe on the engine contract (games/engines/base.py): cells a1..c3, X moves first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from games.engines.base import IllegalMove, InvalidPosition, Outcome, OutcomeReason, common_view

CELLS = [f"{col}{row}" for row in (3, 2, 1) for col in "abc"]  # reading order, top row first
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
MARKS = "xo"


@dataclass(frozen=True)
class Board:
    cells: str = "-" * 9  # "x", "o" or "-" per cell, in CELLS' order

    @property
    def side(self) -> int:
        return 0 if self.cells.count("x") == self.cells.count("o") else 1


class TicTacToeEngine:
    slug: ClassVar[str] = "tictactoe"
    name: ClassVar[str] = "Tic-Tac-Toe"
    pass_move: ClassVar[str | None] = None

    def initial(self) -> Board:
        return Board()

    def to_move(self, state: Board) -> int:
        return state.side

    def _line(self, state: Board) -> int | None:
        for a, b, c in LINES:
            if state.cells[a] != "-" and state.cells[a] == state.cells[b] == state.cells[c]:
                return MARKS.index(state.cells[a])
        return None

    def legal_moves(self, state: Board) -> list[str]:
        if self.outcome(state) is not None:
            return []
        return [cell for cell, mark in zip(CELLS, state.cells, strict=True) if mark == "-"]

    def play(self, state: Board, move: str) -> Board:
        if move not in self.legal_moves(state):
            raise IllegalMove(f"{move!r} is not a free cell of a running game")
        index = CELLS.index(move)
        return Board(state.cells[:index] + MARKS[state.side] + state.cells[index + 1 :])

    def score(self, state: Board) -> tuple[int, int]:
        winner = self._line(state)
        return (int(winner == 0), int(winner == 1))

    def outcome(self, state: Board) -> Outcome | None:
        winner = self._line(state)
        if winner is not None:
            return Outcome(winner, self.score(state), OutcomeReason.LINE)
        if "-" not in state.cells:
            return Outcome(None, (0, 0), OutcomeReason.BOARD_FULL)
        return None

    def dumps(self, state: Board) -> dict[str, Any]:
        return {"game": self.slug, "cells": state.cells}

    def loads(self, data: dict[str, Any]) -> Board:
        if data.get("game") != self.slug:
            raise InvalidPosition("not a tic-tac-toe position")
        return self._checked(str(data.get("cells", "")))

    def fen(self, state: Board) -> str:
        return "/".join(state.cells[i : i + 3] for i in (0, 3, 6))

    def from_fen(self, text: str) -> Board:
        return self._checked(text.replace("/", ""))

    def _checked(self, cells: str) -> Board:
        if len(cells) != 9 or set(cells) - set("xo-"):
            raise InvalidPosition("nine cells of x, o or -")
        if not 0 <= cells.count("x") - cells.count("o") <= 1:
            raise InvalidPosition("X moves first, then the two take turns")
        return Board(cells)

    def view(self, state: Board) -> dict[str, Any]:
        return common_view(self, state)
