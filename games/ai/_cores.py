"""Loading a game's compiled (numba) search core, or learning that there is none."""

from __future__ import annotations

import functools
import importlib
from types import ModuleType


@functools.cache
def load_core(module: str) -> ModuleType | None:
    """``games.ai.<module>``, or None when numba is missing or GAMES_AI_PURE_PYTHON is set.

    Imported on first use, not with the game's module: loading numba and its
    cached machine code costs a second or so, which only workers need.
    """
    try:
        return importlib.import_module(f"games.ai.{module}")
    except ImportError:
        return None
