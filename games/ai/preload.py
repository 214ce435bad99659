"""Compiled cores for a worker without making anybody wait: a child process compiles, the pool loads.

A cold numba cache costs 30-40 s of compiling (5-12 s a game), a warm one about
2 s of loading. Neither may happen on a task's thread: the worker consumes its
queues from its first second, and a game whose core is not ready yet plays its
pure-Python search (``games.ai.choose_move``). So:

1. ``prepare_compiler()``, in the worker's main process before its pool forks,
   makes one ``multiprocessing`` event per game (shared with every pool process
   forked later). ``start_compiler()``, once the worker consumes, starts
   ``python -m games.ai.precompile --nice 10``: a separate process (its own core,
   its own GIL, a lower priority) that compiles into, or finds in, the on-disk
   cache one game after another. A thread reads its report and sets each game's
   event. When the cache is stamped complete for this code (``games.ai.precompile``:
   a restart, the release step having compiled), no child starts and every event
   is set at once.
2. ``load_in_background()``, in every process that runs tasks (each prefork
   child, or the main process of a solo/thread pool), starts a daemon thread that
   waits for each game's event and then loads that game's core from the cache
   (a fraction of a second) and marks it ready (``games.ai.warm_up_game``); after
   the last one it freezes the long-lived objects (``gc.freeze``) as warm_up does,
   without warm_up's full collection first (half a second holding the GIL).

A worker whose queues hold no search (``prepare_compiler(searches=False)``: the "live"
worker of production and of ``make run``) does none of this: it never plays a move.

Why not compile on a thread of the worker itself: compiling is mostly Python
(numba's typing and lowering), so it holds the GIL most of the time, halves
what the task thread gets and itself takes longer; and every pool process
would compile again. docs/operations.md ("First minute after a release") has
the figures.

The compiler is in the worker's process group: a ``kill -9`` of the group (or
systemd stopping the unit) ends it too; what it had written stays valid (numba
writes each entry whole), and the next worker's compiler carries on from there.
"""

from __future__ import annotations

import importlib.util
import logging
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from games.ai import compiled_games, freeze_long_lived_objects, warm_up_game
from games.ai._cores import close_gate
from games.ai.precompile import cache_is_complete

if TYPE_CHECKING:
    from multiprocessing.synchronize import Event

log = logging.getLogger(__name__)

PROJECT_DIR = Path(__file__).resolve().parents[2]  # the compiler imports this checkout's games.ai
COMPILER_NICENESS = 10


class _Compiler:
    """The compiling child and what it has reported so far (events shared with forked processes)."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")  # Celery's prefork pool forks: children inherit these
        self.on_disk: dict[str, Event] = {slug: context.Event() for slug in compiled_games()}
        self.finished = context.Event()  # the child has exited, whatever it managed
        self.stopping = False
        self.started = time.monotonic()
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        if self.process is not None or self.finished.is_set():
            return
        self.started = time.monotonic()
        if cache_is_complete():
            # A restart on a warm cache: the child would only load every core to say so (a second
            # or two of CPU, and the loaders waiting for its word meanwhile).
            log.info("every compiled core is in the cache already: no compiler started")
            for event in self.on_disk.values():
                event.set()
            self.finished.set()
            return
        try:
            self.process = subprocess.Popen(
                # Niced: on a busy machine the compile takes the spare CPU, not the moves' and pages'.
                [sys.executable, "-m", "games.ai.precompile", "--nice", str(COMPILER_NICENESS)],
                cwd=PROJECT_DIR,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,  # stderr: the worker's own (its log)
                text=True,
            )
        except OSError:
            log.exception(
                "could not start the compiler of the cores: the computer players stay on pure Python"
            )
            self.finished.set()  # the loaders stop waiting
            return
        threading.Thread(target=self._relay, name="cores-compiler", daemon=True).start()

    def _relay(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            slug = line.split(maxsplit=1)[0] if line.strip() else ""
            if slug in self.on_disk:
                log.info(
                    "compiled core of %s on disk %.1f s after start (%s)",
                    slug,
                    time.monotonic() - self.started,
                    line.strip(),
                )
                self.on_disk[slug].set()
        code = self.process.wait()
        self.finished.set()
        missing = [slug for slug, event in self.on_disk.items() if not event.is_set()]
        if missing and self.stopping:
            log.info(
                "stopped the compiler of the cores before %s (the worker is shutting down)",
                ", ".join(missing),
            )
        elif missing:
            log.error(
                "the compiled cores of %s were not prepared (compiler exit status %s): those computer "
                "players keep their pure-Python search until the worker restarts",
                ", ".join(missing),
                code,
            )

    def wait_for(self, slug: str) -> bool:
        """Block until ``slug``'s core is on disk (True) or the compiler ended without it (False)."""
        event = self.on_disk[slug]
        while not event.wait(0.5):
            if self.finished.is_set():
                return event.is_set()
        return True

    def stop(self) -> None:
        self.stopping = True
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()


_compiler: _Compiler | None = None


def cores_available() -> bool:
    """Whether this process could use compiled cores at all (numba installed, not turned off)."""
    if os.environ.get("GAMES_AI_PURE_PYTHON", "") not in ("", "0"):
        return False
    return importlib.util.find_spec("numba") is not None


def prepare_compiler(*, searches: bool = True) -> bool:
    """Make the per-game events, before a prefork pool forks; False when there is nothing to compile.

    ``searches=False``: the worker consumes no queue whose tasks search (``config/celery.py``
    decides), so no core is prepared: about 2.5 s of CPU and 100 MB per pool process saved. The
    gate is still closed, so a search that did reach such a worker plays its pure-Python version
    rather than compile on a task's thread.
    """
    global _compiler
    if not searches:
        if cores_available():
            close_gate()
        return False
    if _compiler is None and cores_available():
        _compiler = _Compiler()
        # Nothing in this process (or the pool forked from it) may now reach a core before it is
        # loaded: an analysis calling the reversi solver would otherwise compile on its task's thread.
        close_gate()
    return _compiler is not None


def start_compiler() -> None:
    """Start the compiling child (once), after ``prepare_compiler``.

    A worker starts it when it is ready to consume, so that the compile does not slow its own start.
    """
    if _compiler is not None:
        _compiler.start()


def stop_compiler() -> None:
    """Terminate the compiling child if it still runs (a worker shutting down)."""
    if _compiler is not None:
        _compiler.stop()


_loader: tuple[int, threading.Thread] | None = None  # (pid, thread): a forked child starts its own


def load_in_background() -> threading.Thread | None:
    """In a process that runs tasks: load each core on a daemon thread as soon as it is on disk.

    Once per process (the solo pool sends worker_process_init in the main process, which
    then also hears worker_ready).
    """
    global _loader
    if _compiler is None:
        return None
    if _loader is not None and _loader[0] == os.getpid():
        return _loader[1]
    thread = threading.Thread(target=_load, args=(_compiler,), name="cores-loader", daemon=True)
    thread.start()
    _loader = (os.getpid(), thread)
    return thread


def _load(compiler: _Compiler) -> None:
    loaded = 0
    for slug in compiled_games():
        if not compiler.wait_for(slug):
            continue
        try:
            seconds = warm_up_game(slug)
        except Exception:  # that game stays on its pure-Python search; the others still load
            log.exception("loading the compiled core of %s failed", slug)
            continue
        if seconds is not None:
            loaded += 1
            log.info(
                "the computer player of %s searches compiled from now on (loaded in %.2f s)", slug, seconds
            )
    if loaded:
        freeze_long_lived_objects(collect=False)  # a task may be running on the other thread
