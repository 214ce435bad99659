"""Loading a game's compiled (numba) search core, or learning that there is none."""

from __future__ import annotations

import contextlib
import functools
import importlib
import threading
from collections.abc import Iterator
from types import ModuleType

# ``depth`` above zero inside ``pure_python()``: every game then answers with its pure-Python
# search. Per thread: a worker loads the cores on a background thread while its task thread
# plays pure Python (games.ai.choose_move), and neither may switch the other.
_pure = threading.local()


def load_core(module: str) -> ModuleType | None:
    """``games.ai.<module>``, or None when numba is missing, GAMES_AI_PURE_PYTHON is set
    or the caller is inside ``pure_python()``.

    Imported on first use, not with the game's module: loading numba and its
    cached machine code costs a second or so, which only workers need.
    """
    if getattr(_pure, "depth", 0):
        return None
    return _import_core(module)


@functools.cache
def _import_core(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"games.ai.{module}")
    except ImportError:
        return None


@contextlib.contextmanager
def pure_python() -> Iterator[None]:
    """Within the block every computer player runs its pure-Python search (the fallback).

    For comparisons in one process (``bench/ai_versus.py`` plays the compiled
    Hard against the pure-Python one), for tests of the fallback, and for
    ``games.ai.choose_move`` while a game's core is not loaded yet. It holds
    for the calling thread only.
    """
    _pure.depth = getattr(_pure, "depth", 0) + 1
    try:
        yield
    finally:
        _pure.depth -= 1
