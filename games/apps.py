from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # receivers: guests keep their games on login. tasks: registered with the Celery
        # app in every process (web ones too), and handed to the services that queue them:
        # games.tasks imports the services, so they cannot import it (games/services/queue.py).
        from accounts.hooks import register_notify_socket_part
        from games import receivers, tasks  # noqa: F401
        from games.live.watch import WatchPart
        from games.services import queue

        queue.use_tasks(
            queue.Tasks(
                computer_move=tasks.computer_move,
                flag=tasks.flag,
                lapse_draw_offer=tasks.lapse_draw_offer,
                analyse_game=tasks.analyse_game,
                evaluate_position=tasks.evaluate_position,
            )
        )

        # The Watch page's feed rides on every page's notification socket (accounts'),
        # which never imports games.
        register_notify_socket_part(WatchPart)
