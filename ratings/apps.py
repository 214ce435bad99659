from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from games.store import ratings as lent_ratings
        from ratings import receivers  # noqa: F401  (connects to games' game_finished signal)
        from ratings.selectors import rating_changes_of, rating_value, ratings_in, standing

        # Quick pairing, the lobby and the Watch page read ratings; games never imports ratings,
        # so ratings lends its readers.
        lent_ratings.rating_of = rating_value
        lent_ratings.ratings_in = ratings_in
        lent_ratings.standing_of = standing
        # The game page's snapshot and game-over panel show the change a finished game made.
        lent_ratings.changes_of = rating_changes_of
