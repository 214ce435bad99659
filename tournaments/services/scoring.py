"""Counting a tournament game's result, once, and what follows: the next pairing, a round, the end."""

from __future__ import annotations

from django.db import transaction

from games.models import Game
from tournaments import live
from tournaments.models import Pairing, Participant, Tournament
from tournaments.rules import BASE, Result, arena_points, buchholz, next_streak
from tournaments.services.base import locked, now

OVER = (Game.Status.FINISHED, Game.Status.ABORTED)


def _result(game: Game, side: int) -> Result:
    if game.winner is None:
        return Result.DRAW
    return Result.WIN if game.winner == side else Result.LOSS


def score_game(game_id: int) -> bool:
    """Count a finished game in its tournament (idempotent: ``Pairing.scored_at``); True if it did.

    An aborted game counts for nobody: no points, no game played, the streak
    goes on; both players are simply free again.
    """
    found = Pairing.objects.filter(game_id=game_id).values_list("pk", "tournament_id").first()
    if found is None:
        return False
    pairing_id, tournament_id = found
    # No savepoint: inside after_game's transaction nobody catches a failure here and goes on,
    # and on a busy arena's serialised results each round trip counts.
    with transaction.atomic(savepoint=False):
        tournament = locked(tournament_id)
        # of=self: PostgreSQL cannot lock the nullable side of the join (a bye has no game).
        pairing = Pairing.objects.select_related("game").select_for_update(of=("self",)).get(pk=pairing_id)
        if pairing.scored_at is not None or pairing.game is None or not pairing.game.is_over:
            return False
        _count(tournament, [pairing])
    return True


def score_finished(tournament: Tournament) -> int:
    """Count every game of the tournament that is over and not counted yet, inside the caller's lock.

    A busy arena's results queue behind its lock: the first to get it counts
    every game that ended meanwhile, so the results waiting behind it find
    theirs counted and its players paired, and return at once. Returns how many.
    """
    pairings = list(
        Pairing.objects.select_related("game")
        .select_for_update(of=("self",))
        .filter(tournament=tournament, scored_at=None, game__status__in=OVER)
        .order_by("game__finished_at", "pk")
    )
    _count(tournament, pairings)
    return len(pairings)


def _count(tournament: Tournament, pairings: list[Pairing]) -> None:
    """Points, streaks and the players' freedom for these locked, finished, uncounted pairings."""
    if not pairings:
        return
    seats = [seat for pairing in pairings for seat in (pairing.white_id, pairing.black_id)]
    entries = Participant.objects.select_for_update().in_bulk(seats)
    moment = now()
    for pairing in pairings:
        game = pairing.game
        assert game is not None and pairing.black_id is not None  # a bye has no game, and is counted at once
        white, black = entries[pairing.white_id], entries[pairing.black_id]
        counted = game.status == Game.Status.FINISHED
        for side, entry, opponent in ((0, white, black), (1, black, white)):
            entry.playing = None
            entry.last_game = game
            entry.last_opponent_id = opponent.user_id
            entry.free_since = game.finished_at or moment
            if counted:
                result = _result(game, side)
                points = arena_points(result, streak=entry.streak) if tournament.is_arena else BASE[result]
                entry.score += points
                entry.streak = next_streak(result, entry.streak)
                entry.games += 1
                entry.wins += result == Result.WIN
                entry.draws += result == Result.DRAW
                entry.losses += result == Result.LOSS
                if side == 0:
                    pairing.points_white = points
                else:
                    pairing.points_black = points
            entry.save()
        pairing.scored_at = moment
        pairing.save(update_fields=["points_white", "points_black", "scored_at"])
    tournament_id = tournament.pk
    transaction.on_commit(lambda: live.announce(tournament_id), robust=True)


def update_buchholz(tournament: Tournament) -> None:
    """Every player's Buchholz from the scores now (Swiss: at the end of each round)."""
    entries = list(Participant.objects.filter(tournament=tournament))
    scores = {e.pk: e.score for e in entries}
    opponents: dict[int, list[int]] = {e.pk: [] for e in entries}
    for white_id, black_id in Pairing.objects.filter(tournament=tournament, black__isnull=False).values_list(
        "white_id", "black_id"
    ):
        opponents[white_id].append(black_id)
        opponents[black_id].append(white_id)
    for entry in entries:
        value = buchholz(opponents[entry.pk], scores)
        if value != entry.buchholz:
            entry.buchholz = value
            entry.save(update_fields=["buchholz"])
