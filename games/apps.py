from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # receivers: guests keep their games on login. tasks: registered with the
        # Celery app in every process (web ones too), since services queue them
        # by name (games/services/queue.py).
        from games import receivers, tasks  # noqa: F401
