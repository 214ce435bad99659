"""Fill numba's on-disk cache with every compiled core: ``python -m games.ai.precompile``.

Prints one line per game as it is done, ``<slug> <seconds> s`` (5-12 s a game to
compile, a fraction of a second when the cache already holds it), and exits 0;
exits 1 with the reason when the cache directory cannot be written. Without
numba (or with ``GAMES_AI_PURE_PYTHON=1``) it prints nothing and exits 0.

The cache is ``NUMBA_CACHE_DIR`` (default ``var/numba-cache/<digest of the
cores' sources>``, see ``games/ai/__init__.py``). Its entries are keyed by each
source file's full path and modification time, so every new release directory
needs this once: the release steps (docs/deploy.md) run it before the workers
restart, and a worker runs it in a child process at start (``games.ai.preload``)
for whatever is still missing. Processes filling one cache take turns (a lock
file in it): the second then loads what the first compiled instead of compiling
it again alongside. With the default directory it then removes the directories
of other digests beside it (earlier versions of the sources), so that they do
not pile up; a ``NUMBA_CACHE_DIR`` set by hand is left as it is.

A run that compiled or found every game's core leaves a stamp in the cache
(``complete_stamp()``), named by what numba checks its entries against: the cores'
source files (path, time, size, and here their contents too), numba's version,
Python's and the processor. A worker that finds the stamp starts no compiling
child (``games.ai.preload``): each of its pool processes loads the cores at once.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from games.ai import DIGEST_LENGTH, compiled_games, core_sources, default_numba_cache_dir, warm_up_game

LOCK_NAME = ".compile.lock"
STAMP_PREFIX = ".complete-"
DIGEST_NAME = re.compile(f"[0-9a-f]{{{DIGEST_LENGTH}}}")


class CacheNotWritable(Exception):
    """NUMBA_CACHE_DIR cannot be created or written by this user."""


def cache_dir() -> Path:
    """The directory numba caches the cores in (``games.ai`` has set the default by now)."""
    return Path(os.environ["NUMBA_CACHE_DIR"])


@contextmanager
def _turn(directory: Path) -> Iterator[None]:
    """Hold the cache's lock file (released by the kernel if this process is killed)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle = (directory / LOCK_NAME).open("a")
    except OSError as error:
        raise CacheNotWritable(
            f"NUMBA_CACHE_DIR={directory} cannot be written by this user ({error.strerror}); "
            "create it for the user the workers run as, or point NUMBA_CACHE_DIR elsewhere"
        ) from error
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def compile_cores(
    games: tuple[str, ...] | None = None, report: Callable[[str, float], None] | None = None
) -> dict[str, float]:
    """Compile (or load, when cached) each game's core in this process (every game with one by
    default); seconds per game.

    ``report(slug, seconds)`` is called as each game is done. Games without a core here
    (numba missing or turned off) are left out. Raises CacheNotWritable.
    """
    taken: dict[str, float] = {}
    with _turn(cache_dir()):
        for slug in compiled_games() if games is None else games:
            seconds = warm_up_game(slug)
            if seconds is None:
                continue
            taken[slug] = seconds
            if report is not None:
                report(slug, seconds)
        if taken and set(taken) == set(compiled_games()):
            _stamp_complete()
    if taken:
        remove_other_versions()
    return taken


def completeness_key() -> str:
    """What a complete cache holds the cores for: 16 hex digits over the cores' sources (where they
    lie, their times, sizes and contents), Python's and numba's versions and this processor.

    numba loads an entry only for the same source path and time, numba and processor; a cache
    stamped with this key has every game's entries for this code here, so nothing will compile.
    """
    from importlib.metadata import version

    import llvmlite.binding as llvm

    digest = hashlib.sha256()
    for part in (
        sys.version,
        version("numba"),
        llvm.get_host_cpu_name(),
        llvm.get_host_cpu_features().flatten(),
    ):
        digest.update(part.encode() + b"\0")
    for path in core_sources():
        status = path.stat()
        digest.update(f"{path.resolve()} {status.st_mtime_ns} {status.st_size}".encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def complete_stamp() -> Path:
    """The file that says the cache holds every game's core for this code, numba and processor."""
    return cache_dir() / f"{STAMP_PREFIX}{completeness_key()}"


def cache_is_complete() -> bool:
    """Whether ``compile_cores`` has already compiled (or found) every game's core for this code here."""
    try:
        return complete_stamp().exists()
    except (ImportError, OSError):  # no numba, or a cache that cannot be read: nothing to skip
        return False


def _stamp_complete() -> None:
    """Stamp the cache complete (under the compile lock), replacing the stamps of other code."""
    stamp = complete_stamp()
    for old in stamp.parent.glob(f"{STAMP_PREFIX}*"):
        if old != stamp:
            old.unlink(missing_ok=True)
    stamp.touch()


def remove_other_versions() -> list[Path]:
    """Remove the default cache's siblings named by other digests (earlier versions of the cores'
    sources, which this checkout no longer loads); the directories removed.

    Only when the cache is the default one: a ``NUMBA_CACHE_DIR`` set by hand (the worker
    units', a test's) is somebody else's to manage, and what lies beside it is not ours.
    """
    current = cache_dir()
    if current != default_numba_cache_dir():
        return []
    removed = []
    for sibling in current.parent.iterdir():
        if sibling != current and sibling.is_dir() and DIGEST_NAME.fullmatch(sibling.name):
            shutil.rmtree(sibling, ignore_errors=True)  # a process still loading from it compiles anew
            removed.append(sibling)
    return removed


def main(argv: list[str] | None = None) -> int:
    with_core = compiled_games()
    parser = argparse.ArgumentParser(
        prog="python -m games.ai.precompile",
        description="Fill numba's on-disk cache with the compiled cores.",
    )
    parser.add_argument("games", nargs="*", metavar="GAME", help=f"only these: {', '.join(with_core)}")
    parser.add_argument(
        "--nice", type=int, default=0, metavar="N", help="lower this process's priority by N first (0-19)"
    )
    args = parser.parse_args(argv)
    if not 0 <= args.nice <= 19:
        parser.error("--nice is 0 to 19")
    unknown = [slug for slug in args.games if slug not in with_core]
    if unknown:
        parser.error(f"no compiled core for {', '.join(unknown)}; choose from {', '.join(with_core)}")
    os.nice(args.nice)

    def report(slug: str, seconds: float) -> None:
        print(f"{slug} {seconds:.2f} s", flush=True)  # a worker's reader acts on each line at once

    try:
        compile_cores(tuple(args.games) or with_core, report)
    except CacheNotWritable as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
