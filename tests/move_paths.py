"""The two move paths a socket's move can take, for the ``move_path`` fixture (tests/conftest.py).

``fast``: production's default (``GAMES_FAST_MOVES``, PostgreSQL): a player's move
decided in the socket's event loop and stored by one compare-and-set statement
(games/live/fastpath.py), a chat line by the on-loop statement
(``chat.services.post_line_on_loop``). ``locked``: ``GAMES_FAST_MOVES=0``: every
move a locked transaction in a database thread (games/services), every chat line
``post_line`` in a thread. Each socket-level test of moves, increments, takebacks,
draws and chat runs on both (docs/move.md, "Testing a move on both paths").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

FAST, LOCKED = "fast", "locked"
PATHS = (FAST, LOCKED)


@dataclass
class MovePath:
    """The path this test plays on, and what the event loop's statements stored meanwhile."""

    name: str
    # The first token of each move the fast path's compare-and-set statement stored.
    fast_moves: list[str] = field(default_factory=list)
    # The text (or preset) of each chat line the on-loop statement stored.
    loop_lines: list[str] = field(default_factory=list)

    @property
    def fast(self) -> bool:
        return self.name == FAST

    def on_fast(self, expected: list[str]) -> list[str]:
        """``expected`` on the fast path, nothing on the locked one: ``fast_moves == path.on_fast([...])``."""
        return list(expected) if self.fast else []


def only_on(path: str) -> pytest.MarkDecorator:
    """Run a test (or a module, in ``pytestmark``) on one path only; say why in a comment above it."""
    assert path in PATHS
    return pytest.mark.parametrize("move_path", [path], indirect=True)


def watch(path: MovePath, settings) -> Iterator[MovePath]:
    """Set ``path`` up, record what the loop's statements store, and check the path was the one asked for.

    Its own MonkeyPatch: a test's ``monkeypatch.undo()`` (several call it mid-story)
    must not take the recording away.
    """
    from chat import services as chat_services
    from games.live import fastpath
    from games.store import on_loop

    with pytest.MonkeyPatch.context() as patch:
        settings.GAMES_FAST_MOVES = path.fast  # pytest-django's ``settings``: restored after the test
        fastpath.cache.clear()  # no row a test on the other path left behind
        store_and_announce = fastpath.store_and_announce
        insert = on_loop.insert

        async def store_and_announce_recorded(game_id, seen, game, decision, reply):
            played = await store_and_announce(game_id, seen, game, decision, reply)
            if played is not None:
                path.fast_moves.append(decision.moves[0].token)
            return played

        async def insert_recorded(obj):
            await insert(obj)
            path.loop_lines.append(getattr(obj, "text", "") or getattr(obj, "preset", ""))

        patch.setattr(fastpath, "store_and_announce", store_and_announce_recorded)
        patch.setattr(on_loop, "insert", insert_recorded)
        # Else [fast] would quietly be the locked path (another database, a cache that is not Redis).
        assert fastpath.enabled() is path.fast, (
            f"GAMES_FAST_MOVES={path.fast} and fastpath.enabled() disagree"
        )
        assert chat_services.posts_on_loop() is path.fast
        yield path
        fastpath.cache.clear()
    if not path.fast:
        assert path.fast_moves == [] and path.loop_lines == [], (
            "the locked path's test used the event loop's statements"
        )
