"""What games shows of the other apps comes through its declared hooks, each with one provider."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.core.exceptions import ImproperlyConfigured

from games import hooks
from ratings.selectors import rating_value
from tournaments.selectors import tournament_of_game

pytestmark = pytest.mark.django_db


def test_the_ratings_and_tournaments_apps_fill_in_games_hooks_when_they_start():
    assert hooks.ratings.value.rating_of is rating_value
    assert hooks.tournaments.value is tournament_of_game


def test_without_the_ratings_app_everyone_starts_at_the_default_rating_and_no_game_moved_one(user_factory):
    with hooks.ratings.overridden(hooks.ratings.default):
        alice = user_factory("alice")
        assert hooks.rating_of(alice, "ataxx") == hooks.DEFAULT_RATING
        assert hooks.standing_of(alice, "ataxx", correspondence=True) == (hooks.DEFAULT_RATING, True)
        assert hooks.changes_of(None) == [None, None]


def test_a_second_app_providing_other_rating_readers_is_refused_at_start_up():
    other = replace(hooks.ratings.value, rating_of=lambda user, game, *, correspondence=False: 1200)
    with pytest.raises(ImproperlyConfigured, match="rating readers"):
        hooks.register_rating_readers(other)
    hooks.register_rating_readers(hooks.ratings.value)  # the same readers again: nothing changes
