"""The Celery application: computer moves, clock flags, draw offers, ratings."""

from __future__ import annotations

import os

from celery import Celery, signals

from config.broker import mend_redis_channel_close

# A worker that loses Redis reconnects instead of exiting (config/broker.py: a kombu bug).
mend_redis_channel_close()

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

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

    Sent once the worker has chosen its queues (``--queues``): a worker with no searching queue
    prepares nothing."""
    from games.ai import preload

    consumed = getattr(getattr(getattr(sender, "app", None), "amqp", None), "queues", None)
    preload.prepare_compiler(list(consumed.consume_from) if consumed is not None else None)


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
