"""An arena, as its players live it: join, get paired, win, get paired again, leave the page, get paused."""

from __future__ import annotations

import pytest

from accounts.services.blocks import block
from games import services as play
from games.models import Game
from tests.people import me
from tests.tournaments.conftest import leaves_the_page, on_the_page
from tournaments import services
from tournaments.models import Pairing, Participant, Tournament
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db(transaction=True)


def entry(tournament, user) -> Participant:
    return Participant.objects.get(tournament=tournament, user=user)


def game_of(tournament, user) -> Game:
    return entry(tournament, user).playing


def test_two_players_who_join_a_running_arena_are_paired_at_once(arena, alice, bob):
    on_the_page(arena, alice, bob)
    services.join(tournament_id=arena.pk, user=alice)
    assert game_of(arena, alice) is None  # alone: waits
    services.join(tournament_id=arena.pk, user=bob)
    game = game_of(arena, alice)
    assert game is not None and game == game_of(arena, bob)
    assert game.status == Game.Status.ACTIVE and {game.user0, game.user1} == {alice, bob}
    assert game.time_control == 60 and not game.casual  # the arena's clock, rated as usual


def test_a_win_scores_2_and_the_winner_is_paired_with_the_next_free_player(arena, alice, bob, carol):
    on_the_page(arena, alice, bob, carol)
    for user in (alice, bob, carol):
        services.join(tournament_id=arena.pk, user=user)
    game = game_of(arena, alice) or game_of(arena, bob)
    waiting = next(u for u in (alice, bob, carol) if game_of(arena, u) is None)
    loser = game.user0
    winner = game.user1
    play.resign(game_id=game.pk, identity=me(loser))
    assert (entry(arena, winner).score, entry(arena, winner).streak) == (2, 1)
    assert entry(arena, loser).score == 0
    # Both are free; the waiting player is paired, never with the opponent just met twice in a row.
    new = game_of(arena, waiting)
    assert new is not None and {new.user0, new.user1} != {winner, loser}
    assert Pairing.objects.get(game=game).scored_at is not None


def test_a_result_counts_once_however_often_it_is_scored(arena, alice, bob):
    on_the_page(arena, alice, bob)
    services.join(tournament_id=arena.pk, user=alice)
    services.join(tournament_id=arena.pk, user=bob)
    game = game_of(arena, alice)
    play.resign(game_id=game.pk, identity=me(game.user0))
    assert services.score_game(game.pk) is False  # already counted by the signal's task
    services.sweep()
    assert entry(arena, game.user1).score == 2 and entry(arena, game.user1).games == 1


def test_three_wins_in_a_row_the_third_counts_double(arena, alice, bob, carol, user_factory):
    dave = user_factory("dave")
    on_the_page(arena, alice, bob, carol, dave)
    for user in (alice, bob, carol, dave):
        services.join(tournament_id=arena.pk, user=user)
    for _ in range(3):
        game = game_of(arena, alice)
        opponent = game.user1 if game.user0 == alice else game.user0
        play.resign(game_id=game.pk, identity=me(opponent))
        # Whoever else is still playing finishes too, so everyone is free again.
        for other in Game.objects.filter(status=Game.Status.ACTIVE).exclude(pk__in=[game.pk]):
            if alice.pk not in (other.user0_id, other.user1_id):
                play.abort(game_id=other.pk, identity=me(other.user0))
        services.pair_arena(arena.pk)
    assert entry(arena, alice).score == 2 + 2 + 4


def test_a_player_who_left_the_page_is_paused_when_their_game_ends(arena, alice, bob, carol):
    on_the_page(arena, alice, bob)
    services.join(tournament_id=arena.pk, user=alice)
    services.join(tournament_id=arena.pk, user=bob)
    game = game_of(arena, alice)
    leaves_the_page(arena, bob)
    on_the_page(arena, carol)
    services.join(tournament_id=arena.pk, user=carol)
    play.resign(game_id=game.pk, identity=me(alice))
    assert entry(arena, bob).paused is True and game_of(arena, bob) is None
    assert game_of(arena, alice) is not None  # alice, still there, plays carol
    on_the_page(arena, bob)
    services.resume(tournament_id=arena.pk, user=bob)
    assert entry(arena, bob).paused is False


def test_players_who_blocked_each_other_are_never_paired(arena, alice, bob):
    block(by=alice, user=bob)
    on_the_page(arena, alice, bob)
    services.join(tournament_id=arena.pk, user=alice)
    services.join(tournament_id=arena.pk, user=bob)
    assert game_of(arena, alice) is None and game_of(arena, bob) is None


def test_a_paused_or_departed_player_is_not_paired(arena, alice, bob, carol):
    on_the_page(arena, alice, bob, carol)
    services.join(tournament_id=arena.pk, user=alice)
    services.pause(tournament_id=arena.pk, user=alice)
    services.join(tournament_id=arena.pk, user=bob)
    assert game_of(arena, bob) is None
    services.leave(tournament_id=arena.pk, user=bob)
    services.join(tournament_id=arena.pk, user=carol)
    assert game_of(arena, carol) is None
    services.resume(tournament_id=arena.pk, user=alice)
    assert game_of(arena, carol) == game_of(arena, alice) is not None


def test_a_private_arena_wants_its_password_and_a_wrong_one_changes_nothing(alice, bob):
    private = services.create(
        user=alice, name="Club", kind="arena", game="ataxx", minutes=3, duration=60, password="owls"
    )
    with pytest.raises(TournamentError) as refused:
        services.join(tournament_id=private.pk, user=bob, password="cats")
    assert refused.value.code == "bad_password" and not private.participants.exists()
    services.join(tournament_id=private.pk, user=bob, password="owls")
    assert private.participants.filter(user=bob).exists()


def test_bad_settings_are_refused_with_a_reason(alice):
    with pytest.raises(TournamentError, match="durations"):
        services.create(user=alice, name="x", kind="arena", game="reversi", minutes=3, duration=7)
    with pytest.raises(TournamentError, match="name"):
        services.create(user=alice, name="  ", kind="arena", game="reversi", minutes=3)
    assert not Tournament.objects.exists()


def test_when_time_is_up_the_last_game_still_counts_and_its_winner_wins(arena, alice, bob):
    on_the_page(arena, alice, bob)
    for user in (alice, bob):
        services.join(tournament_id=arena.pk, user=user)
    game = game_of(arena, alice)
    Tournament.objects.filter(pk=arena.pk).update(duration_minutes=0)  # the clock runs out
    services.sweep()
    arena.refresh_from_db()
    assert arena.status == Tournament.Status.RUNNING  # a game is still being played: it counts
    play.resign(game_id=game.pk, identity=me(game.user0))
    arena.refresh_from_db()
    assert arena.status == Tournament.Status.FINISHED and arena.winner == game.user1
    assert entry(arena, game.user1).place == 1 and entry(arena, game.user0).place == 2
    assert Game.objects.filter(status=Game.Status.ACTIVE).count() == 0


def test_games_that_end_while_the_worker_is_busy_are_counted_and_paired_by_the_first_run(
    arena, alice, bob, carol, user_factory, monkeypatch, django_assert_num_queries
):
    dave = user_factory("dave")
    on_the_page(arena, alice, bob, carol, dave)
    for user in (alice, bob, carol, dave):
        services.join(tournament_id=arena.pk, user=user)
    first, second = Game.objects.filter(status=Game.Status.ACTIVE).order_by("pk")
    # Both results wait in the queue: the worker is busy.
    monkeypatch.setattr("tournaments.tasks.after_game.delay", lambda game_id: None)
    play.resign(game_id=first.pk, identity=me(first.user0))
    play.resign(game_id=second.pk, identity=me(second.user0))
    monkeypatch.undo()

    services.after_game(first.pk)

    # Both games counted, every winner scored, and all four paired again, never with the same opponent.
    assert Pairing.objects.filter(game__in=[first, second], scored_at=None).count() == 0
    assert entry(arena, first.user1).score == 2 and entry(arena, second.user1).score == 2
    for game in (first, second):
        for user in (game.user0, game.user1):
            new = game_of(arena, user)
            assert new is not None and {new.user0, new.user1} != {game.user0, game.user1}
    # The second game's own run finds it counted: one read, no lock, nothing paired twice.
    with django_assert_num_queries(1):
        services.after_game(second.pk)
    assert Game.objects.filter(status=Game.Status.ACTIVE).count() == 2


def test_pages_that_open_after_the_standings_went_out_get_them_without_reading_the_arena_again(
    arena, alice, bob, monkeypatch
):
    import json

    from django.core.cache import cache

    from tournaments import live, selectors

    on_the_page(arena, alice, bob)
    services.join(tournament_id=arena.pk, user=alice)
    services.join(tournament_id=arena.pk, user=bob)
    live.send_standings(arena.pk)
    read = selectors.snapshot

    def read_again(tournament_id):
        raise AssertionError("a page's opening read the whole arena again")

    monkeypatch.setattr(selectors, "snapshot", read_again)
    sent = json.loads(live.standings_text(arena.pk))
    assert sorted(row["name"] for row in sent["players"]) == ["alice", "bob"]
    # Nothing kept (a restarted cache): the page reads the arena itself.
    monkeypatch.setattr(selectors, "snapshot", read)
    cache.clear()
    assert json.loads(live.standings_text(arena.pk)) == sent
    assert live.standings_text(10**9) is None  # no such tournament: the page is refused


def test_players_with_their_own_games_running_are_paired_all_the_same(arena, alice, bob, carol, user_factory):
    # Issue #37, defect 3: a correspondence game (or a casual game in another
    # tab) kept a player out of every arena pairing for as long as it ran.
    dave, erin = user_factory("dave"), user_factory("erin")
    correspondence = play.create_paired_game(game="ataxx", users=(alice, erin), minutes=0, days_per_move=3)
    casual = play.create_paired_game(game="reversi", users=(bob, erin), minutes=5, casual=True)
    assert correspondence.status == casual.status == Game.Status.ACTIVE
    on_the_page(arena, alice, bob, carol)
    for user in (alice, bob, carol):
        services.join(tournament_id=arena.pk, user=user)
    # Three players: two are paired at once, correspondence game or not.
    first = next(game for game in map(lambda u: game_of(arena, u), (alice, bob, carol)) if game is not None)
    waiting = next(u for u in (alice, bob, carol) if game_of(arena, u) is None)
    on_the_page(arena, dave)
    services.join(tournament_id=arena.pk, user=dave)
    # The fourth arrives: the third is paired with them, and so all three were.
    assert game_of(arena, waiting) is not None and game_of(arena, waiting) == game_of(arena, dave)
    assert {first.user0, first.user1} | {waiting} == {alice, bob, carol}


def test_a_live_game_of_another_tournament_keeps_a_player_waiting(arena, alice, bob, carol):
    other = services.create(
        user=alice, name="Other arena", kind="arena", game="ataxx", minutes=3, starts_in=0, duration=30
    )
    services.start_if_due(other.pk)
    on_the_page(other, alice, carol)
    services.join(tournament_id=other.pk, user=alice)
    services.join(tournament_id=other.pk, user=carol)
    elsewhere = game_of(other, alice)
    assert elsewhere is not None
    on_the_page(arena, alice, bob)
    services.join(tournament_id=arena.pk, user=alice)
    services.join(tournament_id=arena.pk, user=bob)
    assert game_of(arena, alice) is None and game_of(arena, bob) is None  # alice's other clock is running
    play.resign(game_id=elsewhere.pk, identity=me(carol))
    services.pair_arena(arena.pk)
    assert game_of(arena, alice) is not None and game_of(arena, alice) == game_of(arena, bob)
