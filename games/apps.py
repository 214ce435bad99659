from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from games import receivers  # noqa: F401  (guests keep their games on login)
        # Registers the tasks with the Celery app in every process (web ones too):
        # services queue them by name (games/services/queue.py).
        from games import tasks  # noqa: F401
