"""The Celery application: computer moves, clock flags, draw offers, ratings."""

from __future__ import annotations

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="config.ping_channel")
def ping_channel(channel_name: str, text: str) -> None:
    """Send ``text`` back to a channel-layer channel: proves a worker reaches the websockets."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    async_to_sync(get_channel_layer().send)(channel_name, {"type": "worker.pong", "text": text})


@signals.worker_init.connect
def _warm_up_computer_players(**_kwargs: object) -> None:
    """Load the compiled search cores before the first computer move (pool children inherit them)."""
    from games.ai import warm_up

    warm_up()
