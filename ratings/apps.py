from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from ratings import receivers  # noqa: F401  (connects to games' game_finished signal)
