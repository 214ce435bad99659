"""A new release directory's first worker: numba's cache is empty, and nobody may wait for it.

The worker answers at once and a child process compiles the cores
(games/ai/preload.py). Killed with ``kill -9`` mid-compile, the compiler dies with
it; the next worker again serves at once, its computer playing the pure-Python
search while its own compiler carries on, and loads the cores when they are done.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from games import engines
from games import services as play
from games.models import Game
from tests.faults.test_kill import me, ply_of, within

pytestmark = [pytest.mark.heavy, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def compilers_filling(cache: Path) -> list[int]:
    """Pids of the ``games.ai.precompile`` processes writing into ``cache`` (this user's only)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:  # gone, or another user's
            continue
        if b"games.ai.precompile" in command and f"NUMBA_CACHE_DIR={cache}".encode() in environ:
            found.append(int(entry.name))
    return found


def on_disk(log: Path) -> str:
    """The worker log's lines saying which cores its compiler has finished."""
    return "\n".join(line for line in log.read_text().splitlines() if "on disk" in line)


def copy_cached(modules: tuple[str, ...], *, into: Path) -> None:
    """Copy the warm cache's entries of these modules (name prefixes) into ``into``, laid out as numba lays them."""
    warm = Path(os.environ["NUMBA_CACHE_DIR"])  # games.ai's default, filled by the session's warm_up
    for entry in warm.rglob("*"):
        if entry.is_file() and entry.name.startswith(modules):
            target = into / entry.relative_to(warm)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(entry, target)


@pytest.fixture
def cold_worker(services, worker_broker, database_url_for_processes, tmp_path):
    """Starts workers on an empty numba cache of their own; ``start()`` returns the new worker's log."""
    pytest.importorskip("numba")
    cache = tmp_path / "numba-cache"
    # Every core but Four Tac Toe's (compiled last) comes from the session's warm cache: the story
    # only needs the last game compiled, and compiling all five cost a busy run two minutes.
    copy_cached(("_bits.", "_reversi_fast", "_ataxx_fast", "_uttt_fast", "_qttt_fast"), into=cache)

    class Worker:
        def start(self) -> Path:
            services.start_worker(database_url_for_processes, NUMBA_CACHE_DIR=str(cache))
            log = services.logs[-1]
            services.wait_for_worker(timeout=30)
            return log

    worker = Worker()
    worker.cache = cache
    yield worker
    services.stop_worker()  # later tests get a plain worker on the warm cache again


def test_a_worker_killed_mid_compile_leaves_the_next_one_serving_at_once(cold_worker, services, user_factory):
    first = cold_worker.start()  # answers a ping although nothing is compiled yet
    within(30, lambda: bool(compilers_filling(cold_worker.cache)), "the compiler starting", services)
    assert "four_tac_toe" not in on_disk(first), "the compile was over before the kill"
    services.kill_worker()
    within(
        10, lambda: not compilers_filling(cold_worker.cache), "the compiler dying with its worker", services
    )

    second = cold_worker.start()
    alice = user_factory("alice")
    engine = engines.get("four_tac_toe")  # its core is compiled last: ready long after this move
    game = play.create_computer_game(identity=me(alice), game="four_tac_toe", level="hard", side=0, minutes=5)
    play.play_move(
        game_id=game.pk,
        identity=me(alice),
        token=engine.legal_moves(engine.initial())[40],
        ply=0,
        client_id="a",
    )
    # Generous: the pure-Python Hard thinks 1 s; the point is that it does not wait 30-60 s of compiling.
    within(20, lambda: ply_of(game.pk) >= 2, "the computer's reply", services)
    assert "four_tac_toe" not in on_disk(second), "the reply waited for the compile"
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE

    # The compile does finish off the task's path, and the worker's pool then loads every core.
    ready = "the computer player of four_tac_toe searches compiled"
    within(300, lambda: ready in second.read_text(), "the cores being loaded", services)
    assert os.path.exists(cold_worker.cache / ".compile.lock")
