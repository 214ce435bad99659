from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = _("Chat")

    def ready(self) -> None:
        from chat.consumers import ChatPart
        from games.hooks import register_game_socket_part

        # The chat rides on the game's socket: games answers the chat's commands and
        # group events with this part, and never imports the chat.
        register_game_socket_part(ChatPart)
