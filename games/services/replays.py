"""A replay's positions, in pages (issue #38, finding 8).

The replay page steps through one board view per ply. Sending them all made a
3,000-ply Ataxx game a 6.56 MB page (~2 KB a ply: the Ataxx view carries its
repetition history and the legal moves). So the page carries the move tokens and
one page of ``PAGE`` positions, the one shown first; the others are fetched as the
viewer steps there (``/play/<id>/replay/positions.json?page=N``).

A page costs one replay of the tokens up to it (a few µs a ply) plus ``PAGE``
views. A game that is over never changes, so its pages are kept in Django's cache,
keyed by the game and its number of moves; the pages of a game in play are
computed for each request and can come with the moves they were made from
(``?moves=1``), so that a viewer whose list is out of date (a move since, a
takeback) can tell.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache

from games.models import Game

logger = logging.getLogger(__name__)

PAGE = 30  # plies per page: ~70 KB of Ataxx views at most
CACHE_SECONDS = 7 * 24 * 3600
# Bumped when a page's shape changes, so no older page is read back.
_KEY_FORMAT = 1


def page_of(ply: int) -> int:
    return ply // PAGE


def last_page(game: Game) -> int:
    return page_of(len(game.tokens))


def _key(game: Game, index: int) -> str:
    return f"replay:{_KEY_FORMAT}:{game.pk}:{len(game.tokens)}:{index}"


def positions_page(game: Game, index: int) -> dict[str, Any]:
    """Plies ``index * PAGE`` up to the next page's first (or the game's last ply):
    ``{"page", "from", "positions", "fens"}``, the FENs only for a game that is over
    (they open the analysis board, which is refused a game in play).

    ``index`` must be between 0 and ``last_page(game)``.
    """
    if not 0 <= index <= last_page(game):
        raise ValueError(f"no page {index} in a game of {len(game.tokens)} moves")
    over = game.is_over
    if over:
        try:
            kept = cache.get(_key(game, index))
        except Exception:  # a cache that is down costs the computation, never the page
            logger.warning("replay page %s of game %s: cache read failed", index, game.pk, exc_info=True)
            kept = None
        if kept is not None:
            return kept
    data = _compute(game, index, fens=over)
    if over:
        try:
            cache.set(_key(game, index), data, timeout=CACHE_SECONDS)
        except Exception:
            logger.warning("replay page %s of game %s: cache write failed", index, game.pk, exc_info=True)
    return data


def _compute(game: Game, index: int, *, fens: bool) -> dict[str, Any]:
    engine = game.engine
    tokens = list(game.tokens)
    first = index * PAGE
    last = min(first + PAGE - 1, len(tokens))
    state = game.start_state()
    for token in tokens[:first]:
        state = engine.play(state, token)
    positions = []
    fen_list = []
    for ply in range(first, last + 1):
        if ply > first:
            state = engine.play(state, tokens[ply - 1])
        positions.append(engine.view(state))
        if fens:
            fen_list.append(engine.fen(state))
    return {"page": index, "from": first, "positions": positions, "fens": fen_list if fens else None}


def page_for_viewer(game: Game, index: int, *, with_moves: bool) -> dict[str, Any]:
    """A page, and with ``with_moves`` the game's moves up to its last ply (``moves``).

    A viewer whose moves may be out of date (a game in play: a move since, or a
    takeback) asks for them, and uses the positions only if they match its own.
    """
    data = positions_page(game, index)
    if with_moves:
        data = {**data, "moves": list(game.tokens[: data["from"] + len(data["positions"]) - 1])}
    return data
