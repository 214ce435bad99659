"""The game socket with its chat (the site's route for ``/ws/game/<id>/``)."""

from django.urls import path

from chat.consumers import GameSocket

websocket_urlpatterns = [path("ws/game/<int:game_id>/", GameSocket.as_asgi())]
