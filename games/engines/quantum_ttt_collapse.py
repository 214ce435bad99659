"""Quantum tic-tac-toe's marks and spooky links: what a collapse settles, for ``games.engines.quantum_ttt``.

Every spooky mark links its two squares; outside a pending collapse the links form a forest
(``check_links``). ``linked_squares`` gives the squares linked to one (so whether a new pair closes a
cycle), ``collapse`` settles a cycle (the newest mark in the chosen square, every connected mark
pushed into its other square) and ``pending_cycle`` describes the cycle waiting for its
collapse, for the view. ``side_of`` says whose a mark is. The rules, tokens and formats are the
engine's (its module docstring). This module has no ``ENGINE``: ``games.engines`` lists only the
modules that have one.
"""

from __future__ import annotations

from typing import Any

from games.engines.base import InvalidPosition

SQUARES = range(1, 10)
Mark = tuple[int, int, int]  # (move number, square a, square b) with a < b


def side_of(move_number: int) -> int:
    """The side that owns a mark: X (0) the odd numbers, O (1) the even ones."""
    return (move_number + 1) % 2


def linked_squares(spooky: tuple[Mark, ...], start: int, skip: int = 0) -> int:
    """Bitmask (bit = square) of the squares linked to ``start`` by spooky marks,
    ignoring mark ``skip``."""
    reach = 1 << start
    links = [(1 << a) | (1 << b) for m, a, b in spooky if m != skip]
    grown = True
    while grown:  # at most 9 marks: a fixpoint loop over bitmasks beats building a graph
        grown = False
        rest = []
        for link in links:
            if reach & link:
                reach |= link
                grown = True
            else:
                rest.append(link)
        links = rest
    return reach


def check_links(spooky: tuple[Mark, ...], pending: int) -> None:
    """Raise InvalidPosition unless the links are a forest but for the ``pending`` mark (0: none),
    which must close a cycle."""
    if pending:
        _, a, b = next(mk for mk in spooky if mk[0] == pending)
        if not linked_squares(spooky, a, skip=pending) >> b & 1:
            raise InvalidPosition(f"mark {pending} does not close a cycle, so no collapse can be pending")
    # Without the pending mark the links must be a forest: every cycle collapses at once.
    for i, (m, a, b) in enumerate(spooky):
        if m != pending and linked_squares(spooky[:i], a, skip=pending) >> b & 1:
            raise InvalidPosition(f"spooky mark {m} closes a cycle that was never collapsed")


def collapse(
    classical: tuple[int, ...], spooky: tuple[Mark, ...], newest: int, square: int
) -> tuple[tuple[int, ...], tuple[Mark, ...]]:
    """Settle mark ``newest`` in ``square`` and push every connected mark along."""
    cls = list(classical)
    cls[square - 1] = newest
    rest = [mark for mark in spooky if mark[0] != newest]
    frontier = [square]
    while frontier:
        sq = frontier.pop()
        keep = []
        for mark in rest:
            # A mark sharing the newly settled square must go to its other square;
            # it leaves ``rest`` when pushed, so no mark moves twice.
            m, a, b = mark
            if a == sq:
                cls[b - 1] = m
                frontier.append(b)
            elif b == sq:
                cls[a - 1] = m
                frontier.append(a)
            else:
                keep.append(mark)
        rest = keep
    return tuple(cls), tuple(rest)


def pending_cycle(spooky: tuple[Mark, ...], chooser: int) -> dict[str, Any]:
    """The view's ``pending_cycle`` while the newest mark of ``spooky`` waits for ``chooser``'s collapse."""
    newest, a, b = spooky[-1]
    # The rest of the cycle is the chain of links from a to b: in a forest, the links
    # without which a and b fall apart.
    forest = spooky[:-1]
    path = [mark for mark in forest if not linked_squares(forest, a, skip=mark[0]) >> b & 1]
    component = linked_squares(spooky, a)
    return {
        "move": newest,
        "side": side_of(newest),
        "chooser": chooser,
        "choices": [a, b],
        "squares": sorted({sq for _, x, y in path for sq in (x, y)}),
        "marks": sorted([newest, *(m for m, _, _ in path)]),
        "component": [sq for sq in SQUARES if component >> sq & 1],
    }
