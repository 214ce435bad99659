from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from games.hooks import register_tournament_reader
        from tournaments import receivers  # noqa: F401  (connects to games' game_finished signal)
        from tournaments.selectors import tournament_of_game

        # The game page names its tournament; games never imports tournaments, so it reads it through its hook.
        register_tournament_reader(tournament_of_game)
