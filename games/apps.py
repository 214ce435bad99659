from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # receivers: guests keep their games on login. tasks: registered with the
        # Celery app in every process (web ones too), since services queue them
        # by name (games/services/queue.py).
        from accounts.hooks import register_notify_socket_part
        from games import receivers, tasks  # noqa: F401
        from games.live.watch import WatchPart

        # The Watch page's feed rides on every page's notification socket (accounts'),
        # which never imports games.
        register_notify_socket_part(WatchPart)
