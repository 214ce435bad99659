"""A Swiss tournament: rounds paired all at once, a bye for the odd one out, Buchholz to break ties."""

from __future__ import annotations

import pytest

from games import services as play
from games.models import Game
from tests.people import me
from tournaments import services
from tournaments.models import Pairing, Participant, Tournament
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db(transaction=True)


def play_round_white_wins(tournament) -> None:
    for pairing in Pairing.objects.filter(tournament=tournament, round=tournament.round, black__isnull=False):
        play.resign(game_id=pairing.game_id, identity=me(pairing.black.user))


def test_three_players_three_rounds_each_gets_one_bye_and_buchholz_orders_the_ties(swiss, alice, bob, carol):
    for user in (alice, bob, carol):
        services.join(tournament_id=swiss.pk, user=user)
    services.start_if_due(swiss.pk)
    services.advance(swiss.pk)
    for number in (1, 2, 3):
        swiss.refresh_from_db()
        assert swiss.round == number
        this_round = Pairing.objects.filter(tournament=swiss, round=number)
        assert this_round.filter(black__isnull=True).count() == 1  # one bye, scored at once
        assert this_round.filter(game__status=Game.Status.ACTIVE).count() == 1  # the other two play
        play_round_white_wins(swiss)
    swiss.refresh_from_db()
    assert swiss.status == Tournament.Status.FINISHED
    entries = Participant.objects.filter(tournament=swiss)
    assert sorted(e.byes for e in entries) == [1, 1, 1]  # nobody had two byes
    # Nobody met the same opponent twice: three rounds, three games, three different pairs.
    games = list(Pairing.objects.filter(tournament=swiss, black__isnull=False))
    assert len(games) == len({frozenset((p.white_id, p.black_id)) for p in games}) == 3
    standings = list(entries.order_by("place"))
    assert standings[0].user == swiss.winner
    for better, worse in zip(standings, standings[1:], strict=False):
        assert (better.score, better.buchholz) >= (worse.score, worse.buchholz)
    scores = {e.pk: e.score for e in entries}
    for e in entries:
        met = [
            p.black_id if p.white_id == e.pk else p.white_id
            for p in games
            if e.pk in (p.white_id, p.black_id)
        ]
        assert e.buchholz == sum(scores[o] for o in met)


def test_a_round_waits_for_its_last_game(swiss, alice, bob, carol, user_factory):
    dave = user_factory("dave")
    for user in (alice, bob, carol, dave):
        services.join(tournament_id=swiss.pk, user=user)
    services.start_if_due(swiss.pk)
    services.advance(swiss.pk)
    first, second = Pairing.objects.filter(tournament=swiss, round=1)
    play.resign(game_id=first.game_id, identity=me(first.black.user))
    services.sweep()
    swiss.refresh_from_db()
    assert swiss.round == 1  # one game of round 1 is still being played
    play.resign(game_id=second.game_id, identity=me(second.white.user))
    swiss.refresh_from_db()
    assert swiss.round == 2 and Pairing.objects.filter(tournament=swiss, round=2).count() == 2
    # Round 2 pairs the two winners together (top score group), and the two losers.
    winners = {first.white.user_id, second.black.user_id}
    top = [p for p in Pairing.objects.filter(tournament=swiss, round=2) if p.white.user_id in winners]
    assert len(top) == 1 and {top[0].white.user_id, top[0].black.user_id} == winners


def test_nobody_joins_a_swiss_tournament_once_it_started(swiss, alice, bob, carol):
    services.join(tournament_id=swiss.pk, user=alice)
    services.join(tournament_id=swiss.pk, user=bob)
    services.sweep()
    with pytest.raises(TournamentError) as refused:
        services.join(tournament_id=swiss.pk, user=carol)
    assert refused.value.code == "started"
    assert not swiss.participants.filter(user=carol).exists()


@pytest.mark.parametrize(
    "late", [True, False], ids=["stale-copy-sent-after-the-end", "stale-copy-sent-before"]
)
def test_after_the_end_every_page_gets_the_final_standings_whatever_order_the_sends_arrive_in(
    swiss, alice, bob, carol, monkeypatch, late
):
    # Issue #37, defect 4: a send that read the standings before the last
    # result, arriving after the end's own send, was kept for 300 s: pages
    # opened then said "Round 3 / 3" with the tie-breaks of before the last round.
    import json

    from core.websocket import compact_json
    from tournaments import live, selectors

    for user in (alice, bob, carol):
        services.join(tournament_id=swiss.pk, user=user)
    services.start_if_due(swiss.pk)
    services.advance(swiss.pk)
    for _ in (1, 2):
        swiss.refresh_from_db()
        play_round_white_wins(swiss)
    swiss.refresh_from_db()
    assert swiss.round == 3
    before_the_end = selectors.snapshot(swiss.pk)
    read = selectors.snapshot

    def send_stale() -> None:
        monkeypatch.setattr(selectors, "snapshot", lambda tournament_id: before_the_end)
        live.send_standings(swiss.pk)  # the task that read before the end, late
        monkeypatch.setattr(selectors, "snapshot", read)

    if not late:
        send_stale()
    play_round_white_wins(swiss)
    swiss.refresh_from_db()
    assert swiss.status == Tournament.Status.FINISHED
    if late:
        send_stale()
    final = selectors.snapshot(swiss.pk)
    shown = json.loads(live.standings_text(swiss.pk))
    assert shown == json.loads(compact_json(final))
    assert shown["status"] == "finished" and shown["winner"] == swiss.winner.username
    entries = Participant.objects.filter(tournament=swiss).order_by("place").select_related("user")
    assert [(row["name"], row["buchholz"]) for row in shown["players"]] == [
        (e.user.username, selectors.score_text(swiss, e.buchholz)) for e in entries
    ]
