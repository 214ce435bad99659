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
# A worker closes the gate (games.ai.preload): from then on a core is handed out only once it
# is loaded (``loaded``), or to the thread loading it (``loading()``), so that no caller (a
# computer move, an analysis) ever compiles on a task's thread. Other processes leave it open.
_gate_closed = False
loaded: set[str] = set()


def close_gate() -> None:
    """In this process, hand out only the cores already loaded (a worker, before it consumes)."""
    global _gate_closed
    _gate_closed = True


def load_core(module: str) -> ModuleType | None:
    """``games.ai.<module>``, or None when numba is missing, GAMES_AI_PURE_PYTHON is set,
    the caller is inside ``pure_python()``, or the gate is closed and it is not loaded yet.

    Imported on first use, not with the game's module: loading numba and its
    cached machine code costs a second or so, which only workers need.
    """
    if getattr(_pure, "depth", 0):
        return None
    if _gate_closed and module not in loaded and not getattr(_pure, "loading", False):
        return None
    return _import_core(module)


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """Within the block this thread may import (and so compile) cores although the gate is closed."""
    _pure.loading = True
    try:
        yield
    finally:
        _pure.loading = False


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
