from django.urls import path

from accounts.consumers import NotificationConsumer

websocket_urlpatterns = [path("ws/notify/", NotificationConsumer.as_asgi())]
