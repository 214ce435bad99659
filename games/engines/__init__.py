"""Pure-Python rules engines for the site's games, one module each (``games/engines/<slug>.py``).

An engine module exposes its engine as ``ENGINE`` and its place in every list of games as
``ORDER`` (smallest first). ``ENGINES`` is found, not listed: every module of this package
that has an ``ENGINE`` is in it, in ``ORDER``, so a new game's engine is one new module. A part
of an engine kept in a module of its own (``<slug>_<part>.py``: ``ataxx_perft``,
``quantum_ttt_collapse``) has no ``ENGINE``, so it is not taken for a game.
``get(slug)`` gives a game's engine (the contract is ``base.Engine``; Reversi's module opens
with an example). A game kept outside this package (a test's sixth game) adds its engine
through ``games.kinds.register``.
"""

from __future__ import annotations

import importlib
import pkgutil

from games.engines.base import Engine, IllegalMove, InvalidPosition, Outcome, OutcomeReason, perft, replay


def _find_engines() -> dict[str, Engine]:
    """The ``ENGINE`` of every module here, by slug, in the modules' ``ORDER``."""
    modules = [
        importlib.import_module(f"{__name__}.{found.name}") for found in pkgutil.iter_modules(__path__)
    ]
    games = sorted(
        (module for module in modules if hasattr(module, "ENGINE")), key=lambda module: module.ORDER
    )
    return {module.ENGINE.slug: module.ENGINE for module in games}


ENGINES: dict[str, Engine] = _find_engines()


def get(slug: str) -> Engine:
    """The engine for ``slug``; KeyError for an unknown game."""
    return ENGINES[slug]


__all__ = [
    "ENGINES",
    "Engine",
    "IllegalMove",
    "InvalidPosition",
    "Outcome",
    "OutcomeReason",
    "get",
    "perft",
    "replay",
]
