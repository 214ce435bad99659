"""Compiled Quantum Tic-Tac-Toe, the rules: the position's layout, the outcome, the moves,
playing one (collapses included), perft.

Part of the compiled Quantum Tic-Tac-Toe core: ``games.ai._qttt_fast`` loads it
and has the map of the parts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.engines import quantum_ttt as rules

A, B, MOVE, PENDING = 10, 20, 30, 31
STATE_SIZE = 32
CHOICE = 100
RUNNING, X_WINS, O_WINS, DRAW = -1, 0, 1, 2


LINES = np.array(rules.LINES, dtype=np.int64)


# ---------------------------------------------------------------------------
# Rules


@njit(cache=True)
def to_move(s: np.ndarray) -> int:
    """The side to move: the owner of the next move number (X the odd ones)."""
    return int((s[MOVE] + 1) % 2)


@njit(cache=True)
def _reach(s: np.ndarray, start: int, skip: int) -> int:
    """Bitmask (bit = square) of the squares linked to ``start`` by spooky marks other than ``skip``."""
    reach = 1 << start
    grown = True
    while grown:
        grown = False
        for m in range(1, 10):
            a = s[A + m]
            if a and m != skip:
                link = (1 << a) | (1 << s[B + m])
                if reach & link and (reach & link) != link:
                    reach |= link
                    grown = True
    return reach


@njit(cache=True)
def outcome(s: np.ndarray) -> int:
    """RUNNING, X_WINS, O_WINS or DRAW (as ``QuantumTTTEngine.outcome``)."""
    if s[PENDING]:
        return RUNNING
    best_x = 10
    best_o = 10
    for k in range(8):
        p, q, r = s[LINES[k, 0]], s[LINES[k, 1]], s[LINES[k, 2]]
        if p and q and r and (p & 1) == (q & 1) == (r & 1):
            high = max(p, q, r)
            if p & 1:
                best_x = min(best_x, high)
            else:
                best_o = min(best_o, high)
    if best_x < 10 or best_o < 10:
        return X_WINS if best_x < best_o else O_WINS
    for sq in range(1, 10):
        if not s[sq]:
            return RUNNING
    return DRAW


@njit(cache=True)
def moves(s: np.ndarray, out: np.ndarray) -> int:
    """The legal move codes, in the engine's order, into ``out``; how many (0 once the game is over)."""
    if outcome(s) != RUNNING:
        return 0
    p = s[PENDING]
    if p:
        out[0] = CHOICE + s[A + p]
        out[1] = CHOICE + s[B + p]
        return 2
    n = 0
    for a in range(1, 10):
        if not s[a]:
            for b in range(a + 1, 10):
                if not s[b]:
                    out[n] = 10 * a + b
                    n += 1
    if n == 0 and s[MOVE] == 9:
        for sq in range(1, 10):
            if not s[sq]:
                out[0] = sq
                return 1
    return n


@njit(cache=True)
def play(s: np.ndarray, code: int) -> None:
    """Play move ``code`` in place (as ``QuantumTTTEngine.play``, unchecked)."""
    if code >= CHOICE:
        _collapse(s, s[PENDING], code - CHOICE)
        s[PENDING] = 0
    elif code >= 10:
        a, b = code // 10, code % 10
        closes = (_reach(s, a, 0) >> b) & 1
        m = s[MOVE]
        s[A + m], s[B + m] = a, b
        s[MOVE] = m + 1
        s[PENDING] = m if closes else 0
    else:
        s[code] = 9
        s[MOVE] = 10


@njit(cache=True)
def _collapse(s: np.ndarray, newest: int, square: int) -> None:
    """Settle mark ``newest`` in ``square`` and push every connected spooky mark along."""
    s[square] = newest
    s[A + newest] = 0
    s[B + newest] = 0
    frontier = np.empty(10, np.int64)
    frontier[0] = square
    top = 1
    while top:
        top -= 1
        sq = frontier[top]
        for m in range(1, 10):
            a = s[A + m]
            if not a:
                continue
            b = s[B + m]
            if a == sq or b == sq:
                # The mark must go to its other square; it stops being spooky, so it moves once.
                other = b if a == sq else a
                s[other] = m
                s[A + m] = 0
                s[B + m] = 0
                frontier[top] = other
                top += 1


@njit("int64(int64[::1], int64)", cache=True)
def perft(s, depth):  # type: ignore[no-untyped-def]
    """Leaves ``depth`` plies on (collapse choices count as plies; finished games have no children)."""
    out = np.empty(36, np.int64)
    n = moves(s, out)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        child = s.copy()
        play(child, out[i])
        total += perft(child, depth - 1)
    return total
