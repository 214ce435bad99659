"""Listens to the games app: a tournament game that ended is counted and its players paired again."""

from __future__ import annotations

from django.db import transaction
from django.dispatch import receiver

from games.signals import game_finished


@receiver(game_finished, dispatch_uid="tournaments.after_game")
def enqueue_after_game(sender, *, game_id: int, **kwargs) -> None:
    from tournaments.models import Pairing
    from tournaments.tasks import after_game

    # One indexed read, so the live queue gets a task only for tournament games.
    if not Pairing.objects.filter(game_id=game_id, scored_at=None).exists():
        return

    # robust: a broker outage must not break the request that ended the game;
    # the sweep counts such a result within TOURNAMENTS_SWEEP_SECONDS.
    transaction.on_commit(lambda: after_game.delay(game_id), robust=True)
