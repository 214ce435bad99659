"""Computer players for every game and level, on top of ``games.engines`` only.

``choose_move(engine, state, level)`` is the one entry point: the Celery task,
the arena command and the benchmarks all call it. Each game has its own module
(``games/ai/<slug>.py``) exposing ``choose(engine, state, level, rng, deadline)``
and, when its search can run on a compiled core, ``compiled_core()`` and
``warm_up()`` (``compiled_games()`` finds those: no list names them). A game on
its compiled core plays at ``COMPILED_BUDGET`` (a quarter of ``DEFAULT_BUDGET``:
the compiled search sees more in less time); ``budget_for(slug, level)`` says
which applies.

The compiled cores (numba, ``games/ai/_*_fast.py``) are optional: without numba,
or with ``GAMES_AI_PURE_PYTHON=1``, every game plays its pure-Python search at
``DEFAULT_BUDGET``. A game's core is used only once it is *ready*: loaded in
this process by ``warm_up()`` (which compiles it first when numba's on-disk
cache does not hold it yet). Until then ``choose_move`` plays that game's
pure-Python search at ``DEFAULT_BUDGET``, so a move never waits for a compile.
Workers fill the cache in a child process and load the cores on a background
thread (``games.ai.preload``); ``python -m games.ai.precompile`` (or
``manage.py compile_cores``) fills it ahead of time.
"""

from __future__ import annotations

import gc
import hashlib
import importlib
import os
import random
import time
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from games.ai import _cores
from games.ai._cores import pure_python
from games.engines import ENGINES
from games.engines.base import Engine, IllegalMove

# Hex digits of the sources' digest that name the default cache directory.
DIGEST_LENGTH = 12


def core_sources() -> list[Path]:
    """The compiled cores' source files, ``games/ai/_*.py``, by name (``__init__.py`` compiles nothing)."""
    return sorted(path for path in Path(__file__).parent.glob("_*.py") if not path.name.startswith("__"))


def core_sources_digest() -> str:
    """The first ``DIGEST_LENGTH`` hex digits of the SHA-256 of the cores' sources (names and contents)."""
    digest = hashlib.sha256()
    for path in core_sources():
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:DIGEST_LENGTH]


def default_numba_cache_dir() -> Path:
    """``var/numba-cache/<digest>`` of this checkout, or under ``DJANGO_VAR_DIR`` (config/settings.py's
    VAR_DIR rule); ``<digest>`` is ``core_sources_digest()``.

    numba checks a cached function against its own source file only, not the files of the
    compiled functions it calls (a documented limitation), and a core spans several files: with
    one directory per version of the sources, an edit to any of them compiles afresh instead of
    loading machine code that still calls the old version. ``python -m games.ai.precompile``
    removes the directories of other versions. Not Django's setting itself: games.ai imports no
    Django, and benchmarks load the cores without it.
    """
    var_dir = os.environ.get("DJANGO_VAR_DIR") or Path(__file__).resolve().parents[2] / "var"
    return Path(var_dir) / "numba-cache" / core_sources_digest()


# numba reads NUMBA_CACHE_DIR once, when it is first imported, and only the cores import it.
# Every core is a submodule of this package, so this line runs before any of them: in Django
# processes, in ``python -m games.ai.precompile`` and in the benchmarks alike. Without it numba
# writes next to the sources (per checkout, lost with every new release directory) or, when
# those are read-only, under ~/.cache (hidden by the units' ProtectHome=yes). The digest is
# only read when no directory is set (half a millisecond of CPU; the worker units set one).
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(default_numba_cache_dir())

Level = Literal["random", "easy", "medium", "hard"]
LEVELS: tuple[str, ...] = ("easy", "medium", "hard")

# Seconds per move for the pure-Python searches. Hard stays well under the spec's 2 s ceiling on one core.
DEFAULT_BUDGET: dict[str, float] = {"random": 0.0, "easy": 0.05, "medium": 0.25, "hard": 1.0}
# Seconds per move for a game whose search runs on its compiled core: a quarter of the above,
# so one core serves four times as many computer moves.
COMPILED_BUDGET: dict[str, float] = {level: seconds / 4 for level, seconds in DEFAULT_BUDGET.items()}
MAX_BUDGET = 2.0
# Computer players kept outside this package, by slug: module paths (games.kinds.register fills it
# from each kind's ``player``). Any other game's player is ``games.ai.<slug>``.
PLAYERS: dict[str, str] = {}
# Slugs whose core this process has loaded (``warm_up``): only these search compiled.
# Added to from a loader thread; a set's add is atomic, and a game read as not ready
# just plays one more move in pure Python.
_ready: set[str] = set()


def player_module(slug: str) -> ModuleType:
    """The computer player's module for the game ``slug`` (``choose``, and ``compiled_core`` if it has one)."""
    return importlib.import_module(PLAYERS.get(slug, f"games.ai.{slug}"))


def compiled_games() -> tuple[str, ...]:
    """The games whose computer player has a compiled core (a ``compiled_core()``), in the engines' order.

    Imports the players (not numba), so it is asked where cores are compiled or loaded, never
    at import: a web process that serves no computer move loads no player.
    """
    return tuple(slug for slug in ENGINES if hasattr(player_module(slug), "compiled_core"))


def core_ready(slug: str) -> bool:
    """Whether ``slug``'s compiled core is loaded in this process (its computer then searches compiled)."""
    return slug in _ready


def budget_for(slug: str, level: str) -> float:
    """Default seconds per move for ``level`` in the game ``slug`` (compiled or pure-Python search)."""
    if level not in DEFAULT_BUDGET:
        raise ValueError(f"unknown level {level!r}; choose from random, easy, medium, hard")
    # Checked before touching the core: importing it (numba with it) takes a second.
    if slug in _ready and player_module(slug).compiled_core() is not None:
        return COMPILED_BUDGET[level]
    return DEFAULT_BUDGET[level]


def warm_up_game(slug: str) -> float | None:
    """Load ``slug``'s compiled core on this thread (compiling it if numba's cache lacks it) and mark
    it ready; seconds taken, or None when it has no core here (numba missing or turned off)."""
    with_core = compiled_games()
    if slug not in with_core:
        raise ValueError(f"{slug!r} has no compiled core; choose from {', '.join(with_core)}")
    started = time.perf_counter()
    module = player_module(slug)
    with _cores.loading():
        core = module.compiled_core()
        if core is None:
            return None
        module.warm_up()  # runs every compiled function once: what a move will call is in memory
    _cores.loaded.add(core.__name__.rpartition(".")[2])
    _ready.add(slug)
    return time.perf_counter() - started


def freeze_long_lived_objects(*, collect: bool = True) -> None:
    """Move everything alive out of the garbage collector's sight (after loading the cores).

    Loading numba leaves some 100,000 long-lived objects; every full garbage collection
    would walk them again (about 40 ms, in the middle of somebody's timed search).
    ``collect=False`` skips the full collection first: it holds the GIL for about half a
    second with the cores loaded, and finds only a few dozen unreachable objects then
    (measured), so a process serving moves meanwhile freezes those few instead.
    """
    if collect:
        gc.collect()
    gc.freeze()


def warm_up(games: Iterable[str] | None = None) -> dict[str, float]:
    """Load (or compile, the first time on a machine) the compiled cores of ``games`` (all of them by
    default), here and now; seconds per game.

    Well under a second per game once numba's on-disk cache holds the machine code; 5-12 s
    per game to compile. Does nothing without numba. Then freezes the objects alive
    (``gc.freeze``), so that later garbage collections stay short. For tests, benchmarks and
    commands: a worker must not wait for this (``games.ai.preload`` does it off its task thread).
    """
    taken = {}
    for slug in compiled_games() if games is None else games:
        seconds = warm_up_game(slug)
        if seconds is not None:
            taken[slug] = seconds
    if taken:
        freeze_long_lived_objects()
    return taken


def choose_move(
    engine: Engine,
    state: Any,
    level: str,
    *,
    seed: int | None = None,
    time_budget: float | None = None,
) -> str:
    """A legal move for the side to move in ``state`` at ``level``.

    The same ``seed`` gives the same move for the same position (as long as a
    search does not stop on the clock mid-way, which only the slowest levels do).
    A game whose core is not ready (``core_ready``) plays its pure-Python search
    at ``DEFAULT_BUDGET``: this never compiles anything.
    """
    if level not in DEFAULT_BUDGET:
        raise ValueError(f"unknown level {level!r}; choose from random, easy, medium, hard")
    moves = engine.legal_moves(state)
    if not moves:
        raise IllegalMove("the game is over: there is no move to choose")
    rng = random.Random(seed)
    if len(moves) == 1:
        return moves[0]
    if level == "random":
        return rng.choice(moves)
    budget = min(budget_for(engine.slug, level) if time_budget is None else time_budget, MAX_BUDGET)
    deadline = time.perf_counter() + budget
    module = player_module(engine.slug)
    move: str
    if engine.slug in _ready:
        move = module.choose(engine, state, level, rng, deadline)
    else:
        # The core is not loaded (or not compiled) yet: calling it would compile on this thread.
        with pure_python():
            move = module.choose(engine, state, level, rng, deadline)
    assert move in moves, f"{engine.slug} AI returned an illegal move {move!r}"
    return move
