from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from games.services import pairing
        from games.store import watchlist
        from ratings import receivers  # noqa: F401  (connects to games' game_finished signal)
        from ratings.selectors import rating_value, ratings_in

        # Quick pairing pairs by rating, the Watch page shows and sorts by them; games never
        # imports ratings, so ratings lends its readers.
        pairing.rating_of = rating_value
        watchlist.ratings_of = ratings_in
