"""The games the site serves, one ``GameKind`` each: what the rest of the site asks about a game.

A game is its engine (``games/engines/<slug>.py``, pure), its computer player
(``games/ai/<slug>.py``), and one kind module here (``games/kinds/<slug>.py``)
that registers a ``GameKind``: the name and blurb people read, the rules page,
the board's renderer (a JS module with the contract in docs/renderers.md) and
any data that renderer needs. Forms, models, the lobby, ratings, tournaments
and the pages ask this registry (``kind_of``, ``choices``, ``KINDS``) rather than
naming a game, so a sixth game is one more ``register`` call (CONTRIBUTING.md,
"Adding a game").

The names are lazy translations: a ``GameKind`` is built once at import, and
each request reads its name in its own language.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from django.templatetags.static import static
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.ai import PLAYERS
from games.engines import ENGINES, Engine

# A translated string (gettext_lazy) or a plain one (the X and O marks are the same in every language).
Text = str | Promise


@dataclass(frozen=True)
class GameKind:
    slug: str
    engine: Engine
    # The computer player's module (``choose(engine, state, level, rng, deadline)``, games/ai/__init__.py).
    # A dotted path, imported on first use: the players' modules load numba-backed cores.
    player: str
    name: Text
    blurb: Text
    # Side 0 (moves first) and side 1, as the boards and rules say: "Black"/"White", or "X"/"O".
    sides: tuple[Text, Text]
    rules_template: str
    # The board's renderer, a path under static/ (docs/renderers.md says what it exports).
    renderer: str
    # Options the renderer needs besides the position (Four Tac Toe's ``lines`` table), JSON-able:
    # merged into ``createRenderer``'s options and the screen reader's page; None when it needs none.
    board_data: Callable[[], dict[str, Any]] | None = None
    # The new-game form's "Play as" defaults to First rather than Random (Ultimate: who starts a
    # game is X and moves first).
    first_by_default: bool = False

    def player_module(self) -> ModuleType:
        """The computer player's module (imported now if it was not yet)."""
        return importlib.import_module(self.player)

    @property
    def analysis(self) -> Any:
        """The post-game analysis' hooks for this game (phase, evaluator, budgets, calibration).

        Looked up when asked, by slug, in ``games.ai.analysis.HOOKS``: the analysis package
        loads its searches and calibration data, which a page naming the game never needs.
        """
        analysis = importlib.import_module("games.ai.analysis")
        return analysis.HOOKS[self.slug]


KINDS: dict[str, GameKind] = {}


def register(kind: GameKind) -> GameKind:
    """Add ``kind`` to the site (and its engine to ``games.engines.ENGINES``, which pure code reads).

    Registering the same slug twice is a mistake (two modules claiming one game), unless it is
    the very same kind again (a module imported twice under two names).
    """
    existing = KINDS.get(kind.slug)
    if existing is not None and existing != kind:
        raise ValueError(f"a game {kind.slug!r} is already registered")
    if kind.engine.slug != kind.slug:
        raise ValueError(f"the kind {kind.slug!r} has the engine of {kind.engine.slug!r}")
    KINDS[kind.slug] = kind
    ENGINES.setdefault(kind.slug, kind.engine)
    PLAYERS[kind.slug] = kind.player  # games.ai's choose_move finds the player there
    return kind


def unregister(slug: str) -> None:
    """Take a game off the site again (a test's own kind, at its end)."""
    kind = KINDS.pop(slug)
    PLAYERS.pop(slug, None)
    if ENGINES.get(slug) is kind.engine:
        del ENGINES[slug]


def kind_of(slug: str) -> GameKind:
    """The kind registered as ``slug``; KeyError for a game the site does not serve."""
    return KINDS[slug]


def choices() -> list[tuple[str, Text]]:
    """(slug, name) of every game, in the order registered: model fields and forms take their choices here."""
    return [(slug, kind.name) for slug, kind in KINDS.items()]


def renderer_table(kinds: Iterable[GameKind]) -> dict[str, dict[str, Any]]:
    """What the board scripts load per game (docs/renderers.md): the renderer module's URL and its options."""
    return {
        kind.slug: {"module": static(kind.renderer), "options": kind.board_data() if kind.board_data else {}}
        for kind in kinds
    }


def choices_or_all() -> list[tuple[str, Text]]:
    """``choices()`` after an "All games" entry: a filter's choices."""
    return [("", _("All games")), *choices()]


def game_name(slug: str) -> str:
    """The game's name in the active language (the slug itself for an unknown game)."""
    kind = KINDS.get(slug)
    return str(kind.name) if kind else slug


def side_colour(slug: str, side: int) -> str:
    """The colour (or mark) of ``side`` in the game ``slug``, in the active language ("" for an unknown game)."""
    kind = KINDS.get(slug)
    return str(kind.sides[side]) if kind else ""


# The five games register themselves. Imported last: each module imports GameKind and register from here.
from games.kinds import reversi, ataxx, ultimate_ttt, quantum_ttt, four_tac_toe  # noqa: E402, F401, I001
