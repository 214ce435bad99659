"""A tournament's life, driven from the database: start, rounds, the end; and the sweep that drives it.

Nothing here depends on a task having run: the sweep (``sweep``, beat every
TOURNAMENTS_SWEEP_SECONDS) derives what each tournament is owed from its rows,
as the games' obligations sweep does: starts that are due, results not yet
counted (their task was lost with a worker), free arena players, a Swiss round
whose games are all over, an arena whose time is up. Each step takes the
tournament's row lock, the sweep with SKIP LOCKED (a run in progress is left
to finish), so running it twice, late or from two processes changes nothing.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction

from games.models import Game
from tournaments import live
from tournaments.models import Pairing, Tournament
from tournaments.selectors import standings
from tournaments.services.base import locked, now
from tournaments.services.pairing import pair_arena, pair_free_players, pair_swiss_round
from tournaments.services.scoring import score_finished, score_game, update_buchholz

logger = logging.getLogger(__name__)


def start_if_due(tournament_id: int, *, skip_locked: bool = False) -> bool:
    with transaction.atomic():
        tournament = locked(tournament_id, skip_locked=skip_locked)
        if tournament is None or tournament.status != Tournament.Status.SCHEDULED:
            return False
        if now() < tournament.starts_at:
            return False
        tournament.status = Tournament.Status.RUNNING
        tournament.save(update_fields=["status"])
        transaction.on_commit(lambda: live.announce(tournament_id), robust=True)
    return True


def _finish(tournament: Tournament) -> None:
    """Places and the winner (the first, if they played at all), inside the caller's lock."""
    for place, entry in enumerate(standings(tournament), start=1):
        entry.place = place
        entry.playing = None
        entry.save(update_fields=["place", "playing"])
        if place == 1 and (entry.games or entry.byes):
            tournament.winner = entry.user
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now()
    tournament.save(update_fields=["status", "finished_at", "winner"])
    tournament_id = tournament.pk
    transaction.on_commit(lambda: live.send_standings(tournament_id), robust=True)


def advance(tournament_id: int, *, skip_locked: bool = False) -> None:
    """Whatever comes next once results are in: a Swiss round or the end; an arena's end once its games are."""
    with transaction.atomic():
        tournament = locked(tournament_id, skip_locked=skip_locked)
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return
        unscored = Pairing.objects.filter(tournament=tournament, scored_at=None)
        if tournament.is_arena:
            # Games paired before the end are played out and count.
            if now() >= tournament.ends_at and not unscored.exists():
                _finish(tournament)
            return
        if tournament.round and unscored.exists():
            return  # the round is still being played
        update_buchholz(tournament)
        if tournament.round >= tournament.rounds or (
            tournament.round == 0 and tournament.participants.filter(withdrawn=False).count() < 2
        ):
            _finish(tournament)
            return
        tournament.round += 1
        tournament.save(update_fields=["round"])
        pair_swiss_round(tournament)
        transaction.on_commit(lambda: live.announce(tournament_id), robust=True)


def after_game(game_id: int) -> None:
    """A game ended: count it, then pair (arena) or move on (Swiss): the task of ``game_finished``.

    An arena counts and pairs in one transaction, under one take of the
    tournament's lock, and counts every game that ended while this task waited
    for it: when results come faster than the worker counts them one by one
    (several games ending together), the first run counts them all and pairs
    once, and the runs queued behind it find their games counted and return.
    """
    found = (
        Pairing.objects.filter(game_id=game_id)
        .values_list(
            "tournament_id",
            "tournament__kind",
            "tournament__starts_at",
            "tournament__duration_minutes",
            "scored_at",
        )
        .first()
    )
    if found is None:
        return
    tournament_id, kind, starts_at, duration, scored_at = found
    if scored_at is not None:
        return  # counted by an earlier run, which paired or moved on then
    if kind != Tournament.Kind.ARENA:
        score_game(game_id)
        attend(tournament_id)
        return
    with transaction.atomic():
        tournament = locked(tournament_id)
        counted = score_finished(tournament)
        if counted:
            pair_free_players(tournament)
    if counted and now() >= starts_at + timedelta(minutes=duration):
        advance(tournament_id)  # the arena's end, once its last game is counted


def attend(tournament_id: int, *, skip_locked: bool = False) -> None:
    kind = Tournament.objects.filter(pk=tournament_id).values_list("kind", flat=True).first()
    if kind == Tournament.Kind.ARENA:
        pair_arena(tournament_id, skip_locked=skip_locked)
    advance(tournament_id, skip_locked=skip_locked)


def sweep() -> int:
    """The beat's pass over every tournament that is due or running; returns how many were attended."""
    moment = now()
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, starts_at__lte=moment)
    for tournament_id in due.values_list("pk", flat=True):
        start_if_due(tournament_id, skip_locked=True)
    # Results whose task was lost: games over, pairing not counted.
    lost = Pairing.objects.filter(
        scored_at=None,
        tournament__status=Tournament.Status.RUNNING,
        game__status__in=[Game.Status.FINISHED, Game.Status.ABORTED],
    ).values_list("game_id", flat=True)
    for game_id in list(lost[:500]):
        try:
            score_game(game_id)
        except Exception:
            logger.exception("tournaments sweep: game %s", game_id)
    running = list(Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True))
    for tournament_id in running:
        try:
            attend(tournament_id, skip_locked=True)
        except Exception:  # one broken tournament must not starve the others
            logger.exception("tournaments sweep: tournament %s", tournament_id)
    return len(running)
