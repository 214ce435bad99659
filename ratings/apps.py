from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from games.hooks import RatingReaders, register_rating_readers
        from ratings import receivers  # noqa: F401  (connects to games' game_finished signal)
        from ratings.selectors import rating_changes_of, rating_value, ratings_in, standing

        # Quick pairing, the lobby, the Watch page and a finished game's snapshot show
        # ratings; games never imports ratings, so it reads them through its hook.
        register_rating_readers(
            RatingReaders(
                rating_of=rating_value,
                standing_of=standing,
                ratings_in=ratings_in,
                changes_of=rating_changes_of,
            )
        )
