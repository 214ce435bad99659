"""The rules the tournament director follows, without a database: points, streaks, arena and Swiss pairings."""

from __future__ import annotations

from tournaments.rules import (
    Candidate,
    Result,
    arena_pairs,
    arena_points,
    buchholz,
    next_streak,
    swiss_round,
)


def player(key: int, score: int = 0, rating: int = 1500, **more) -> Candidate:
    return Candidate(key=key, user_id=100 + key, score=score, rating=rating, **more)


def test_a_win_is_2_a_draw_1_a_loss_0_and_they_double_after_two_wins_in_a_row():
    streak, earned = 0, []
    for result in [Result.WIN, Result.WIN, Result.WIN, Result.DRAW, Result.WIN, Result.LOSS]:
        earned.append(arena_points(result, streak=streak))
        streak = next_streak(result, streak)
    assert earned == [
        2,
        2,
        4,
        2,
        2,
        0,
    ]  # the third win in a row counts 4, the draw on fire 2; the draw ends it


def test_arena_pairs_the_closest_score_first_then_the_closest_rating():
    leader, close_score, close_rating, far = (
        player(1, score=10, rating=1500),
        player(2, score=9, rating=1200),
        player(3, score=4, rating=1500),
        player(4, score=0, rating=1510),
    )
    pairs = arena_pairs([far, close_rating, close_score, leader])
    assert {(a.key, b.key) for a, b in pairs} == {(1, 2), (3, 4)}
    equal_scores = arena_pairs([player(5, 6, 1500), player(6, 6, 1900), player(7, 6, 1550)])
    assert [(a.key, b.key) for a, b in equal_scores] == [(6, 7)]  # 5 waits: 6-7 are closer than 6-5


def test_arena_never_pairs_the_last_opponent_again_nor_players_who_blocked_each_other():
    a, b = player(1, last_opponent=102), player(2, last_opponent=101)
    assert arena_pairs([a, b]) == []  # they wait for someone else
    c = player(3)
    assert [(x.key, y.key) for x, y in arena_pairs([a, b, c])] == [(1, 3)]
    blocks = {frozenset((101, 103))}
    paired = arena_pairs([a, b, c], blocked=lambda x, y: frozenset((x, y)) in blocks)
    assert [(x.key, y.key) for x, y in paired] == [(2, 3)]


def test_swiss_pairs_the_top_half_against_the_bottom_half_of_a_score_group():
    players = [player(k, rating=2000 - 10 * k) for k in range(1, 7)]
    pairs, byes = swiss_round(players)
    assert byes == []
    assert sorted(tuple(sorted((a.key, b.key))) for a, b in pairs) == [(1, 4), (2, 5), (3, 6)]


def test_an_odd_count_gives_the_lowest_ranked_player_without_a_bye_the_bye():
    players = [player(1, 4), player(2, 2), player(5, 2), player(3, 0), player(4, 0, rating=1400, byes=1)]
    pairs, byes = swiss_round(players)
    assert [b.key for b in byes] == [3]  # 4 is ranked last but had a bye already
    assert len(pairs) == 2 and all(3 not in (a.key, b.key) for a, b in pairs)


def test_swiss_avoids_a_rematch_when_another_pairing_exists():
    one, two, three, four = (
        player(1, 2, met=frozenset({102})),
        player(2, 2, met=frozenset({101})),
        player(3, 0, met=frozenset({104})),
        player(4, 0, met=frozenset({103})),
    )
    pairs, _ = swiss_round([one, two, three, four])
    assert sorted(tuple(sorted((a.key, b.key))) for a, b in pairs) == [(1, 3), (2, 4)]


def test_swiss_gives_white_to_who_had_it_less():
    pairs, _ = swiss_round([player(1, 2, whites=1), player(2, 2, blacks=1)])
    white, black = pairs[0]
    assert (white.key, black.key) == (2, 1)


def test_buchholz_adds_up_the_opponents_scores_and_a_bye_adds_nothing():
    assert buchholz([2, 3], {1: 4, 2: 2, 3: 1}) == 3
    assert buchholz([], {1: 4}) == 0
