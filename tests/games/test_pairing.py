"""Quick pairing: seekers in a pool paired by rating, ranges widening, blocks obeyed, never twice.

Live pools (a clock) and correspondence pools (days per move) alike.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from accounts.services.blocks import block
from accounts.signals import notify_socket_closed
from games import bus, hooks, services
from games.models import DAY_SECONDS, Game, Seek
from games.services import pairing
from tests.people import me

pytestmark = pytest.mark.django_db


@pytest.fixture
def ratings(monkeypatch):
    """The players' ratings, as the ratings app would give them."""
    table: dict[str, int] = {}

    def rating_of(user, game, *, correspondence=False):
        return table.get(user.username, hooks.DEFAULT_RATING)

    with hooks.ratings.overridden(replace(hooks.ratings.value, rating_of=rating_of)):
        yield table


def test_two_players_pressing_the_same_button_land_in_one_game_the_first_seeker_first(user_factory, ratings):
    alice, bob = user_factory("alice"), user_factory("bob")
    assert pairing.seek(identity=me(alice), game="ataxx", minutes=3, increment=2) is None
    game = pairing.seek(identity=me(bob), game="ataxx", minutes=3, increment=2)
    assert game is not None and game.status == Game.Status.ACTIVE
    assert (game.user0, game.user1, game.game) == (alice, bob, "ataxx")
    assert (game.time_control, game.increment, game.time_control_label) == (180, 2, "3+2")
    assert not game.casual  # nobody asked for casual: rated
    assert not Seek.objects.exists()


def test_different_pools_are_not_paired(user_factory, ratings):
    alice, bob = user_factory("alice"), user_factory("bob")
    pairing.seek(identity=me(alice), game="ataxx", minutes=3, increment=2)
    assert pairing.seek(identity=me(bob), game="ataxx", minutes=5, increment=3) is None
    assert Seek.objects.count() == 2


def test_the_rating_range_widens_while_they_wait(user_factory, ratings):
    alice, bob = user_factory("alice"), user_factory("bob")
    ratings.update(alice=1500, bob=1720)  # 220 apart: outside +/-150
    pairing.seek(identity=me(alice), game="reversi", minutes=5, increment=3)
    assert pairing.seek(identity=me(bob), game="reversi", minutes=5, increment=3) is None
    assert pairing.sweep() == 0
    # Both have waited 10 s: +/-250 now.
    Seek.objects.update(created_at=pairing.now() - timedelta(seconds=10))
    assert pairing.sweep() == 1
    assert Game.objects.filter(user0__in=[alice, bob], user1__in=[alice, bob]).count() == 1


def test_players_who_blocked_each_other_are_never_paired(user_factory, ratings):
    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    block(by=bob, user=alice)
    pairing.seek(identity=me(alice), game="reversi", minutes=5, increment=3)
    assert pairing.seek(identity=me(bob), game="reversi", minutes=5, increment=3) is None
    game = pairing.seek(identity=me(carol), game="reversi", minutes=5, increment=3)
    assert game is not None and {game.user0, game.user1} == {alice, carol}
    assert list(Seek.objects.values_list("user__username", flat=True)) == ["bob"]


def test_one_seek_per_player_and_a_cancelled_seek_is_gone(user_factory, ratings):
    alice, bob = user_factory("alice"), user_factory("bob")
    pairing.seek(identity=me(alice), game="reversi", minutes=5, increment=3)
    pairing.seek(
        identity=me(alice), game="ataxx", minutes=3, increment=2
    )  # changed her mind: only the newer one
    assert list(Seek.objects.values_list("game", flat=True)) == ["ataxx"]
    assert pairing.cancel_seek(user_id=alice.pk) is True
    assert pairing.seek(identity=me(bob), game="ataxx", minutes=3, increment=2) is None
    assert pairing.cancel_seek(user_id=alice.pk) is False


def test_a_seek_taken_meanwhile_is_not_paired_again(user_factory, ratings, monkeypatch):
    alice, bob = user_factory("alice"), user_factory("bob")
    pairing.seek(identity=me(alice), game="reversi", minutes=5, increment=3)
    widen = pairing.rating_range

    def another_run_took_alice(seek, *, at):
        # After this run read the pool, another one paired alice and deleted her seek.
        Seek.objects.filter(user=alice).delete()
        return widen(seek, at=at)

    monkeypatch.setattr(pairing, "rating_range", another_run_took_alice)
    assert pairing.seek(identity=me(bob), game="reversi", minutes=5, increment=3) is None
    monkeypatch.setattr(pairing, "rating_range", widen)
    assert not Game.objects.exists()
    assert list(Seek.objects.values_list("user__username", flat=True)) == ["bob"]


def test_guests_and_bad_buttons_are_refused_and_change_nothing(user_factory, guest_factory, ratings):
    guest, _ = guest_factory()
    with pytest.raises(services.GameError) as guest_refused:
        pairing.seek(identity=guest, game="reversi", minutes=5, increment=3)
    assert guest_refused.value.code == "login_required"
    alice = user_factory("alice")
    with pytest.raises(services.GameError) as bad_time:
        pairing.seek(identity=me(alice), game="reversi", minutes=7)
    assert bad_time.value.code == "bad_time"
    with pytest.raises(services.GameError) as not_a_pool:
        pairing.seek(identity=me(alice), game="reversi", minutes=5, increment=0)  # a clock, but no button
    assert not_a_pool.value.code == "bad_time"
    with pytest.raises(services.GameError) as bad_game:
        pairing.seek(identity=me(alice), game="chess", minutes=5, increment=3)
    assert bad_game.value.code == "bad_kind"
    assert not Seek.objects.exists()


def test_seekers_are_paired_by_their_ratings_from_the_ratings_app(user_factory):
    from ratings.models import Rating

    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    Rating.objects.create(user=alice, game="reversi", value=1900)
    pairing.seek(identity=me(alice), game="reversi", minutes=5, increment=3)
    assert pairing.seek(identity=me(bob), game="reversi", minutes=5, increment=3) is None  # 1500: 400 below
    Rating.objects.create(user=carol, game="reversi", value=1820)
    game = pairing.seek(identity=me(carol), game="reversi", minutes=5, increment=3)
    assert game is not None and {game.user0, game.user1} == {alice, carol}
    assert Seek.objects.get().rating == 1500


def test_the_same_base_with_another_increment_is_another_pool(user_factory, ratings, monkeypatch):
    monkeypatch.setattr(pairing, "QUICK_POOLS", [(5, 0), (5, 3)])
    alice, bob = user_factory("alice"), user_factory("bob")
    pairing.seek(identity=me(alice), game="reversi", minutes=5, increment=0)
    assert pairing.seek(identity=me(bob), game="reversi", minutes=5, increment=3) is None
    assert sorted(Seek.objects.values_list("increment", flat=True)) == [0, 3]
    assert not Game.objects.exists()


def test_a_casual_seeker_makes_the_game_casual_when_paired_with_a_rated_one(user_factory, ratings):
    alice, bob = user_factory("alice"), user_factory("bob")
    pairing.seek(identity=me(alice), game="ataxx", minutes=10, increment=5, casual=True)
    game = pairing.seek(identity=me(bob), game="ataxx", minutes=10, increment=5)
    assert game is not None and game.casual
    assert (game.user0, game.user1, game.time_control_label) == (alice, bob, "10+5")


def test_a_seeker_meets_someone_who_asked_the_same_before_someone_who_did_not(user_factory, ratings):
    bob, carol, erin = user_factory("bob"), user_factory("carol"), user_factory("erin")
    ratings.update(bob=1500, carol=1680, erin=1320)  # 180 from bob each, 360 apart: nobody fits yet
    pairing.seek(identity=me(bob), game="reversi", minutes=1)
    pairing.seek(identity=me(carol), game="reversi", minutes=1, casual=True)
    pairing.seek(identity=me(erin), game="reversi", minutes=1)
    assert not Game.objects.exists()
    # 5 s later bob's range (+/-200) holds both: he asked for a rated game, so he meets erin, rated.
    Seek.objects.update(created_at=pairing.now() - timedelta(seconds=5))
    assert pairing.sweep() == 1
    game = Game.objects.get()
    assert {game.user0, game.user1} == {bob, erin} and not game.casual
    assert list(Seek.objects.values_list("user__username", "casual")) == [("carol", True)]


# --- correspondence pools ---------------------------------------------------------------


def test_two_players_pressing_three_days_get_a_correspondence_game_like_a_challenge_s(
    user_factory, ratings, monkeypatch, django_capture_on_commit_callbacks
):
    paired, turns = [], []
    monkeypatch.setattr(
        bus, "send_paired", lambda user_id, game_id, **notice: paired.append((user_id, notice))
    )
    monkeypatch.setattr(bus, "send_your_turn", lambda user_id, game_id: turns.append((user_id, game_id)))
    alice, bob = user_factory("alice"), user_factory("bob")
    assert pairing.seek(identity=me(alice), game="reversi", days_per_move=3) is None
    assert Seek.objects.get().time_control_label == "3 days"
    with django_capture_on_commit_callbacks(execute=True):
        game = pairing.seek(identity=me(bob), game="reversi", days_per_move=3)
    assert game is not None and game.status == Game.Status.ACTIVE
    assert (game.user0, game.user1, game.kind) == (alice, bob, Game.Kind.LOBBY)
    # No live clock: each move may take three days, as in a correspondence challenge.
    assert (game.days_per_move, game.time_control, game.increment) == (3, 3 * DAY_SECONDS, 0)
    assert game.time_control_label == "3 days" and game.correspondence
    assert game.deadline() == game.turn_started_at + timedelta(days=3)
    assert not game.casual and not Seek.objects.exists()
    # Alice moves first and hears it on any page; both hear where the game is, and against whom.
    assert turns == [(alice.pk, game.pk)]
    assert paired == [
        (alice.pk, {"days_per_move": 3, "opponent": "bob", "bot": False}),
        (bob.pk, {"days_per_move": 3, "opponent": "alice", "bot": False}),
    ]


def test_other_days_or_a_live_clock_are_other_pools(user_factory, ratings):
    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    pairing.seek(identity=me(alice), game="ataxx", days_per_move=1)
    assert pairing.seek(identity=me(bob), game="ataxx", days_per_move=7) is None
    assert pairing.seek(identity=me(carol), game="ataxx", minutes=1) is None
    assert pairing.sweep() == 0
    assert sorted(Seek.objects.values_list("days_per_move", flat=True)) == [0, 1, 7]
    assert not Game.objects.exists()


def test_correspondence_seekers_are_paired_by_their_correspondence_rating(user_factory):
    from ratings.models import Rating

    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    # Alice is 1500 live, 1900 by correspondence; Bob is 1500 in both.
    Rating.objects.create(user=alice, game="reversi", value=1900, correspondence=True)
    pairing.seek(identity=me(alice), game="reversi", days_per_move=7)
    assert Seek.objects.get(user=alice).rating == 1900
    assert pairing.seek(identity=me(bob), game="reversi", days_per_move=7) is None  # 400 below
    Rating.objects.create(user=carol, game="reversi", value=1820, correspondence=True)
    Rating.objects.create(user=carol, game="reversi", value=1200)  # her live rating does not count here
    game = pairing.seek(identity=me(carol), game="reversi", days_per_move=7)
    assert game is not None and {game.user0, game.user1} == {alice, carol}
    assert game.days_per_move == 7


def test_correspondence_ranges_widen_with_the_wait_as_live_ones_do(user_factory, ratings):
    alice, bob = user_factory("alice"), user_factory("bob")
    ratings.update(alice=1500, bob=1720)
    pairing.seek(identity=me(alice), game="ultimate_ttt", days_per_move=1)
    assert pairing.seek(identity=me(bob), game="ultimate_ttt", days_per_move=1) is None
    assert pairing.sweep() == 0
    Seek.objects.update(created_at=pairing.now() - timedelta(seconds=10))
    assert pairing.sweep() == 1
    assert Game.objects.get().days_per_move == 1


def test_correspondence_seekers_who_blocked_each_other_are_never_paired(user_factory, ratings):
    alice, bob, carol = user_factory("alice"), user_factory("bob"), user_factory("carol")
    block(by=alice, user=bob)
    pairing.seek(identity=me(alice), game="reversi", days_per_move=3)
    assert pairing.seek(identity=me(bob), game="reversi", days_per_move=3) is None
    Seek.objects.update(created_at=pairing.now() - timedelta(days=2))  # waiting for days changes nothing
    assert pairing.sweep() == 0
    game = pairing.seek(identity=me(carol), game="reversi", days_per_move=3)
    assert game is not None and {game.user0, game.user1} == {alice, carol}
    assert list(Seek.objects.values_list("user__username", flat=True)) == ["bob"]


def test_a_casual_correspondence_seeker_makes_the_game_casual(user_factory, ratings):
    alice, bob = user_factory("alice"), user_factory("bob")
    pairing.seek(identity=me(alice), game="four_tac_toe", days_per_move=1, casual=True)
    game = pairing.seek(identity=me(bob), game="four_tac_toe", days_per_move=1)
    assert game is not None and game.casual and game.days_per_move == 1


def test_a_correspondence_seek_outlives_the_seeker_s_page_a_live_one_does_not(user_factory, ratings):
    alice, bob = user_factory("alice"), user_factory("bob")
    pairing.seek(identity=me(alice), game="reversi", days_per_move=3)
    pairing.seek(identity=me(bob), game="reversi", minutes=5, increment=3)
    for player in (alice, bob):
        notify_socket_closed.send(sender=None, user_id=player.pk)  # both closed the site
    assert list(Seek.objects.values_list("user__username", flat=True)) == ["alice"]
    assert pairing.waiting_correspondence(alice) == Seek.objects.get()
    assert pairing.waiting_correspondence(bob) is None
    # A day later someone presses the same button: she is paired though no page of hers is open.
    Seek.objects.update(created_at=pairing.now() - timedelta(days=1))
    game = pairing.seek(identity=me(bob), game="reversi", days_per_move=3)
    assert game is not None and (game.user0, game.user1) == (alice, bob)


def test_one_seek_per_player_of_either_kind_the_last_press_wins(user_factory, ratings):
    alice = user_factory("alice")
    pairing.seek(identity=me(alice), game="reversi", days_per_move=3)
    pairing.seek(identity=me(alice), game="ataxx", minutes=3, increment=2)
    assert list(Seek.objects.values_list("game", "days_per_move")) == [("ataxx", 0)]
    pairing.seek(identity=me(alice), game="reversi", days_per_move=7)
    assert list(Seek.objects.values_list("game", "days_per_move", "minutes")) == [("reversi", 7, 0)]
    assert pairing.cancel_seek(user_id=alice.pk) is True
    assert not Seek.objects.exists()


@pytest.mark.parametrize("days", [2, 5, 14, -1])
def test_days_without_a_button_are_refused_and_nothing_waits(user_factory, ratings, days):
    alice = user_factory("alice")
    with pytest.raises(services.GameError) as refused:
        pairing.seek(identity=me(alice), game="reversi", days_per_move=days)
    assert refused.value.code == "bad_time"
    assert not Seek.objects.exists()
