"""The game socket's route: one consumer for ``/ws/game/<id>/``; other apps add parts to it (games/hooks.py)."""

from django.urls import path

from games.live.consumers import GameConsumer

websocket_urlpatterns = [path("ws/game/<int:game_id>/", GameConsumer.as_asgi())]
