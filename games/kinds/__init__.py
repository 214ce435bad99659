"""The games the site serves, one ``GameKind`` each: what the rest of the site asks about a game.

A game is its engine (``games/engines/<slug>.py``, pure), its computer player
(``games/ai/<slug>.py``), its post-game analysis hooks (``games/ai/analysis/<slug>.py``)
and one kind module here (``games/kinds/<slug>.py``) that registers a ``GameKind``:
the name and blurb people read, the rules page, the board's renderer (a JS module
with the contract in docs/renderers.md) and any data that renderer needs. Forms,
models, the lobby, ratings, tournaments and the pages ask this registry
(``kind_of``, ``choices``, ``KINDS``) rather than naming a game, so a sixth game is
one more ``register`` call (CONTRIBUTING.md, "Adding a game"). The kind modules
are found, not listed: every module of this package is imported at the bottom,
and ``order`` keeps the lobby's order whatever the modules' names.

The names are lazy translations: a ``GameKind`` is built once at import, and
each request reads its name in its own language.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from django.templatetags.static import static
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.ai import PLAYERS
from games.ai import analysis as analyses
from games.ai.analysis import AnalysisHooks
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
    # The module that makes the game's post-game analysis hooks, as ``HOOKS`` (an ``AnalysisHooks``,
    # games/ai/analysis/__init__.py): ``register`` registers them with ``games.ai.analysis``.
    analysis_hooks: str
    # Where the game stands in the lobby and in every list of games: smallest first.
    order: int
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
    def analysis(self) -> AnalysisHooks:
        """The post-game analysis' hooks for this game (phase, evaluator, budgets, calibration)."""
        hooks = importlib.import_module(self.analysis_hooks).HOOKS
        if not isinstance(hooks, AnalysisHooks) or hooks.slug != self.slug:
            raise TypeError(f"{self.analysis_hooks}.HOOKS is not the analysis hooks of {self.slug!r}")
        return hooks


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
    analyses.register(
        kind.analysis
    )  # before anything changes: a kind whose hooks fail is not half-registered
    KINDS[kind.slug] = kind
    ordered = sorted(KINDS.values(), key=lambda k: (k.order, k.slug))
    KINDS.clear()  # in place: other modules hold this very dict
    KINDS.update((k.slug, k) for k in ordered)
    ENGINES.setdefault(kind.slug, kind.engine)
    PLAYERS[kind.slug] = kind.player  # games.ai's choose_move finds the player there
    return kind


def unregister(slug: str) -> None:
    """Take a game off the site again (a test's own kind, at its end)."""
    kind = KINDS.pop(slug)
    PLAYERS.pop(slug, None)
    analyses.unregister(slug)
    if ENGINES.get(slug) is kind.engine:
        del ENGINES[slug]


def kind_of(slug: str) -> GameKind:
    """The kind registered as ``slug``; KeyError for a game the site does not serve."""
    return KINDS[slug]


def choices() -> list[tuple[str, Text]]:
    """(slug, name) of every game, in the kinds' ``order``: model fields and forms take their choices here."""
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


def _import_kind_modules() -> None:
    """Import every module of this package: each registers its game (a new game's module is found
    here by being in the folder, with no list to add it to)."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


# Last: each kind module imports GameKind and register from here.
_import_kind_modules()
