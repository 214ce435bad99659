"""The Celery application: computer moves, clock flags, draw offers, ratings."""

from __future__ import annotations

import logging
import os

from celery import Celery, signals

from config.broker import mend_redis_channel_close

# A worker that loses Redis reconnects instead of exiting (config/broker.py: a kombu bug).
mend_redis_channel_close()

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

log = logging.getLogger(__name__)

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="config.ping_channel")
def ping_channel(channel_name: str, text: str) -> None:
    """Send ``text`` back to a channel-layer channel: proves a worker reaches the websockets."""
    from core.messages import send_to_channel

    send_to_channel(channel_name, {"type": "worker.pong", "text": text})


# The compiled search cores never hold a worker up (games/ai/preload.py): it consumes its queues
# at once, a child process compiles (or finds in numba's cache) one game's core after another,
# and each process that runs tasks loads a game's core on a background thread once it is on disk.
# Until then that game's computer plays its pure-Python search (games.ai.choose_move).


@signals.worker_init.connect
def _prepare_computer_players(sender: object = None, **_kwargs: object) -> None:
    """The per-game "on disk" events, made before the pool forks (the children share them).

    Sent once the worker has chosen its queues (``--queues``). A worker that consumes none of the
    queues whose tasks search (production's and `make run`'s "live" worker: clocks, draw offers,
    the sweep, pairing) never plays a move, so it neither compiles nor loads a core."""
    from django.conf import settings

    from games.ai import preload
    from games.services.analysis import ANALYSIS_QUEUE

    consumed = set(sender.app.amqp.queues.consume_from)  # type: ignore[attr-defined]
    searching = {settings.COMPUTER_QUEUE, settings.COMPUTER_QUICK_QUEUE, ANALYSIS_QUEUE}
    searches = not searching.isdisjoint(consumed)
    if not searches:
        log.info(
            "this worker consumes %s, where nothing searches: no compiled core is loaded",
            ", ".join(sorted(consumed)),
        )
    preload.prepare_compiler(searches=searches)


@signals.worker_process_init.connect
def _load_computer_players(**_kwargs: object) -> None:
    """A prefork child: load each compiled core on a background thread as it becomes ready."""
    from games.ai import preload

    preload.load_in_background()


@signals.worker_ready.connect
def _compile_computer_players(sender: object = None, **_kwargs: object) -> None:
    """Consuming: now start the compiling child (started earlier it slowed the worker's own start).

    The solo and thread pools run tasks in this main process (the thread pool sends no
    worker_process_init; the solo pool does, and loading starts only once either way).
    """
    from celery.concurrency.prefork import TaskPool

    from games.ai import preload

    preload.start_compiler()
    if not isinstance(getattr(sender, "pool", None), TaskPool):
        preload.load_in_background()


@signals.worker_shutdown.connect
def _stop_compiling(**_kwargs: object) -> None:
    from games.ai import preload

    preload.stop_compiler()
