"""The Play API listens to the games app: a finished game wakes its players' event streams (gameFinish)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.bus import wake_streams
from games.models import Game
from games.signals import game_finished


@receiver(game_finished, dispatch_uid="api.wake_streams_on_game_finished")
def wake_players_streams(sender: Any, game_id: int, **kwargs: Any) -> None:
    seats = Game.objects.filter(pk=game_id).values_list("user0_id", "user1_id").first()
    if seats is not None:
        wake_streams(*seats)
