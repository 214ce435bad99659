"""apply_ratings_for_game: which games count, Elo applied once, places at the end, farming."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from ratings.models import AppliedGame, Rating, RatingChange
from ratings.services import apply_ratings_for_game

pytestmark = pytest.mark.django_db


def test_a_win_between_two_new_players_moves_them_to_1530_and_1470(alice, bob, finished_game, rating_of):
    game = finished_game(alice, bob, winner=0)

    assert apply_ratings_for_game(game_id=game.pk) == "rated"

    a, b = rating_of(alice), rating_of(bob)
    assert (a.value, a.rated_games, a.wins, a.losses, a.peak) == (1530.0, 1, 1, 0, 1530.0)
    assert (b.value, b.rated_games, b.wins, b.losses, b.peak) == (1470.0, 1, 0, 1, 1500.0)
    game.refresh_from_db()
    assert game.rated is True and game.unrated_reason == ""
    changes = {c.user_id: (c.before, c.after) for c in RatingChange.objects.filter(game=game)}
    assert changes == {alice.pk: (1500.0, 1530.0), bob.pk: (1500.0, 1470.0)}


@pytest.mark.parametrize("end_reason", ["line", "count", "resignation", "exit", "time"])
def test_every_decisive_ending_is_rated(alice, bob, finished_game, rating_of, end_reason):
    game = finished_game(alice, bob, winner=1, end_reason=end_reason)
    apply_ratings_for_game(game_id=game.pk)
    assert rating_of(bob).value == 1530.0
    assert rating_of(alice).value == 1470.0


def test_side_one_winning_is_applied_to_the_right_players(alice, bob, finished_game, rating_of):
    game = finished_game(bob, alice, winner=1)
    apply_ratings_for_game(game_id=game.pk)
    assert rating_of(alice).value == 1530.0
    assert rating_of(bob).value == 1470.0


def _untouched(*users) -> bool:
    return (
        not Rating.objects.filter(user__in=users, rated_games__gt=0).exists()
        and not RatingChange.objects.exists()
    )


def test_a_draw_leaves_ratings_untouched(alice, bob, finished_game):
    game = finished_game(alice, bob, winner=None, end_reason="agreed")
    assert apply_ratings_for_game(game_id=game.pk) == "unrated"
    game.refresh_from_db()
    assert (game.rated, game.unrated_reason) == (False, "draw")
    assert _untouched(alice, bob)


def test_a_game_against_the_computer_leaves_ratings_untouched(alice, finished_game):
    game = finished_game(alice, None, ai1="hard", kind=Game.Kind.COMPUTER, winner=0)
    assert apply_ratings_for_game(game_id=game.pk) == "unrated"
    game.refresh_from_db()
    assert (game.rated, game.unrated_reason) == (False, "computer")
    assert _untouched(alice)


def test_a_game_with_a_guest_leaves_ratings_untouched(alice, finished_game):
    game = finished_game(
        alice, None, guest1_key="guest-key", guest1_name="Guest 4821", kind=Game.Kind.INVITE_LINK
    )
    assert apply_ratings_for_game(game_id=game.pk) == "unrated"
    game.refresh_from_db()
    assert (game.rated, game.unrated_reason) == (False, "guest")
    assert _untouched(alice)


def test_an_aborted_game_never_counts(alice, bob, finished_game):
    game = finished_game(alice, bob, status=Game.Status.ABORTED, winner=0)
    assert apply_ratings_for_game(game_id=game.pk) == "unrated"
    game.refresh_from_db()
    assert (game.rated, game.unrated_reason) == (False, "aborted")
    assert _untouched(alice, bob)


def test_a_game_still_in_progress_is_left_alone(alice, bob, finished_game):
    game = finished_game(alice, bob, status=Game.Status.ACTIVE, winner=None, finished_at=None)
    assert apply_ratings_for_game(game_id=game.pk) == "not_over"
    assert not AppliedGame.objects.exists()


def test_a_missing_game_is_not_an_error():
    assert apply_ratings_for_game(game_id=987654) == "missing"


def test_applying_the_same_game_twice_changes_ratings_once(alice, bob, finished_game, rating_of):
    game = finished_game(alice, bob, winner=0)
    assert apply_ratings_for_game(game_id=game.pk) == "rated"
    assert apply_ratings_for_game(game_id=game.pk) == "already_applied"
    assert rating_of(alice).value == 1530.0 and rating_of(alice).rated_games == 1
    assert RatingChange.objects.filter(game=game).count() == 2


def test_a_crash_mid_update_leaves_nothing_half_done_and_a_retry_applies_once(
    alice, bob, finished_game, rating_of, monkeypatch
):
    game = finished_game(alice, bob, winner=0)
    real_create = RatingChange.objects.create
    calls = []

    def crash_on_second(**kwargs):
        calls.append(kwargs)
        if len(calls) == 2:
            raise RuntimeError("worker died")
        return real_create(**kwargs)

    monkeypatch.setattr(RatingChange.objects, "create", crash_on_second)
    with pytest.raises(RuntimeError):
        apply_ratings_for_game(game_id=game.pk)
    assert rating_of(alice).value == 1500.0 and rating_of(alice).rated_games == 0
    assert not RatingChange.objects.exists() and not AppliedGame.objects.exists()

    monkeypatch.undo()
    assert apply_ratings_for_game(game_id=game.pk) == "rated"
    assert (rating_of(alice).value, rating_of(bob).value) == (1530.0, 1470.0)


@pytest.mark.parametrize(
    ("games_before", "gain"),
    [(29, 20.0), (30, 10.0)],  # K=40 up to and including the 30th rated game, then K=20
)
def test_k_drops_from_40_to_20_after_30_rated_games(alice, bob, finished_game, rating_of, games_before, gain):
    Rating.objects.create(user=alice, game="reversi", rated_games=games_before, wins=games_before)
    Rating.objects.create(user=bob, game="reversi", rated_games=100, losses=100)
    apply_ratings_for_game(game_id=finished_game(alice, bob, winner=0).pk)
    assert rating_of(alice).value == pytest.approx(1500 + gain)
    assert rating_of(bob).value == pytest.approx(1500 - 10.0)  # bob: K=20


def test_k_is_10_once_a_player_has_reached_2400(alice, bob, finished_game, rating_of):
    Rating.objects.create(user=alice, game="reversi", value=2390, peak=2405, rated_games=300, wins=300)
    Rating.objects.create(user=bob, game="reversi", value=2390, peak=2390, rated_games=300, losses=300)
    apply_ratings_for_game(game_id=finished_game(alice, bob, winner=0).pk)
    assert rating_of(alice).value == pytest.approx(2395.0)  # K=10
    assert rating_of(bob).value == pytest.approx(2380.0)  # K=20


def test_ratings_are_kept_per_game(alice, bob, finished_game, rating_of):
    apply_ratings_for_game(game_id=finished_game(alice, bob, winner=0, game="ataxx").pk)
    assert rating_of(alice, "ataxx").value == 1530.0
    assert rating_of(alice, "reversi") is None


def test_places_at_the_end_are_stored_before_the_change(alice, bob, carol, finished_game):
    apply_ratings_for_game(game_id=finished_game(carol, bob, winner=0).pk)  # carol 1530 (1st), bob 1470 (2nd)
    game = finished_game(alice, bob, winner=0)
    apply_ratings_for_game(game_id=game.pk)
    game.refresh_from_db()
    assert game.place0_at_end is None  # alice was not ranked yet
    assert game.place1_at_end == 2


def test_places_at_the_end_are_stored_for_unrated_games_too(alice, bob, finished_game):
    apply_ratings_for_game(game_id=finished_game(alice, bob, winner=0).pk)
    draw = finished_game(alice, bob, winner=None)
    apply_ratings_for_game(game_id=draw.pk)
    draw.refresh_from_db()
    assert (draw.place0_at_end, draw.place1_at_end) == (1, 2)


def test_only_three_decisive_games_between_the_same_players_count_within_24_hours(
    alice, bob, finished_game, rating_of
):
    start = timezone.now() - timedelta(hours=30)
    games = [
        finished_game(alice, bob, winner=i % 2, finished_at=start + timedelta(hours=i)) for i in range(5)
    ]
    for game in games:
        apply_ratings_for_game(game_id=game.pk)
    for game in games:
        game.refresh_from_db()
    assert [g.rated for g in games] == [True, True, True, False, False]
    assert [g.unrated_reason for g in games[3:]] == ["farming", "farming"]
    assert rating_of(alice).rated_games == 3

    # A day after the first one, the window has room again.
    later = finished_game(bob, alice, winner=0, finished_at=start + timedelta(hours=24, minutes=1))
    apply_ratings_for_game(game_id=later.pk)
    later.refresh_from_db()
    assert later.rated is True


def test_draws_do_not_use_up_the_three_rated_games(alice, bob, finished_game):
    for _ in range(3):
        apply_ratings_for_game(game_id=finished_game(alice, bob, winner=None).pk)
    game = finished_game(alice, bob, winner=0)
    assert apply_ratings_for_game(game_id=game.pk) == "rated"


def test_the_farming_limit_is_per_pair_of_players(alice, bob, carol, finished_game):
    for _ in range(3):
        apply_ratings_for_game(game_id=finished_game(alice, bob, winner=0).pk)
    assert apply_ratings_for_game(game_id=finished_game(alice, carol, winner=0).pk) == "rated"
