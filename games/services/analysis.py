"""Computer analysis of finished games: requests, limits and the worker's loop.

The maths lives in ``games.ai.analysis`` (pure); this module stores it. One
``Analysis`` row per game: the second viewer gets the stored result at once.

Limits, so nobody keeps the workers busy:

* only finished games (not aborted ones, not games still being played);
* one analysis under way per player (registered or guest);
* a daily quota: ``ANALYSIS_DAILY_QUOTA`` new analyses per account in any 24
  hours, ``ANALYSIS_GUEST_DAILY_QUOTA`` per guest. Opening an analysis someone
  already made costs nothing.

A refusal (``AnalysisRefused``) says why, and for the quota when the next one
is possible.

The worker (``run_analysis``, called by the Celery task on queue ``analysis``)
appends one position's evaluation at a time with a conditional update on the
count done, so a redelivered or repeated task continues where the last one
stopped and two runs never write the same position twice. An analysis whose
worker vanished (no progress for ``STALE_AFTER``) no longer counts as under way,
and asking again continues it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.fields.json import KeyTransform
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.identity import Identity
from core.messages import AnalysisProgress, notify, send_to_group
from games.ai import analysis as maths
from games.engines.base import replay
from games.models import Analysis, Game
from games.services import queue

if TYPE_CHECKING:
    from games.services.base import Code  # for the annotation only, like play_from_here's local import

logger = logging.getLogger(__name__)

ANALYSIS_QUEUE = "analysis"  # its own queue: live games never wait behind an analysis
STALE_AFTER = timedelta(minutes=5)
WINDOW = timedelta(hours=24)
UNDER_WAY = (Analysis.Status.QUEUED, Analysis.Status.RUNNING)


def group_name(game_id: int) -> str:
    """The channel group a page watching this game's analysis joins."""
    return f"analysis.{game_id}"


class Refusal(StrEnum):
    """Why an analysis or an evaluation was refused: the ``code`` of the JSON answer."""

    NOT_FOUND = "not_found"
    NOT_FINISHED = "not_finished"
    NO_IDENTITY = "no_identity"
    BUSY = "busy"  # this requester's own request is still under way
    GUESTS_BUSY = "guests_busy"  # too many guests' requests under way
    QUOTA = "quota"
    BAD_PLY = "bad_ply"
    BAD_SIDE = "bad_side"
    BAD_POSITION = "bad_position"
    ILLEGAL = "illegal"
    POSITION_OVER = "position_over"


@dataclass
class AnalysisRefused(Exception):
    code: Refusal | Code  # Code: a refusal of the game services ("Play from here")
    message: str
    retry_at: datetime | None = None

    def __str__(self) -> str:
        return self.message


def daily_quota(identity: Identity) -> int:
    if identity.is_registered:
        return int(getattr(settings, "ANALYSIS_DAILY_QUOTA", 20))
    return int(getattr(settings, "ANALYSIS_GUEST_DAILY_QUOTA", 3))


def _guest_key(identity: Identity) -> str:
    """The requesting guest's key, "" for a registered player (nobody else may ask)."""
    if identity.user is not None:
        return ""
    if identity.guest is None:
        raise ValueError("an analysis needs a registered player or a guest")
    return identity.guest.key


def _requester_filter(identity: Identity) -> Q:
    if identity.user is not None:
        return Q(requested_by=identity.user)
    return Q(requested_guest=_guest_key(identity), requested_by__isnull=True)


def _is_stale(analysis: Analysis, now: datetime) -> bool:
    return analysis.status in UNDER_WAY and analysis.updated_at < now - STALE_AFTER


def _quota_frees_at(mine: QuerySet[Any], quota: int, *, now: datetime) -> datetime | None:
    """When the oldest request inside the daily window leaves it, if ``quota`` is used up; else None."""
    recent = list(
        mine.filter(created_at__gte=now - WINDOW).order_by("created_at").values_list("created_at", flat=True)
    )
    return recent[len(recent) - quota] + WINDOW if len(recent) >= quota else None


def _refuse_when_guests_are_busy(identity: Identity, guests_under_way: QuerySet[Any]) -> None:
    if identity.user is None and guests_under_way.count() >= settings.ANALYSIS_GUESTS_AT_ONCE:
        raise AnalysisRefused(
            Refusal.GUESTS_BUSY,
            _("Too many guests are analysing games right now; log in, or try again in a minute."),
        )


def request_analysis(*, game_id: int, identity: Identity, now: datetime | None = None) -> Analysis:
    """The game's analysis: the stored one, the one under way, or a new one queued.

    Raises ``AnalysisRefused`` (and changes nothing) when the game cannot be
    analysed or the player is over a limit.
    """
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise AnalysisRefused(Refusal.NOT_FOUND, _("There is no such game."))
        if game.status != Game.Status.FINISHED:
            raise AnalysisRefused(Refusal.NOT_FINISHED, _("Only finished games can be analysed."))
        existing = Analysis.objects.filter(game=game).first()
        if existing is not None and (
            existing.status == Analysis.Status.DONE
            or (existing.status in UNDER_WAY and not _is_stale(existing, now))
        ):
            return existing
        if identity.user is None and identity.guest is None:
            raise AnalysisRefused(
                Refusal.NO_IDENTITY, _("Open the page again to get a guest name, then ask again.")
            )
        if existing is not None:  # failed, or its worker vanished: continue it, at no cost
            existing.status = Analysis.Status.QUEUED
            existing.error = ""
            existing.updated_at = now
            existing.save(update_fields=["status", "error", "updated_at"])
            transaction.on_commit(lambda: _enqueue(existing.pk))
            return existing
        # A new cookie is a new guest with a new quota: this bounds what all guests
        # together can put in the workers' queue at any moment.
        _refuse_when_guests_are_busy(
            identity,
            Analysis.objects.filter(
                requested_by__isnull=True, status__in=UNDER_WAY, updated_at__gte=now - STALE_AFTER
            ),
        )
        mine = Analysis.objects.filter(_requester_filter(identity))
        busy = mine.filter(status__in=UNDER_WAY, updated_at__gte=now - STALE_AFTER).first()
        if busy is not None:
            raise AnalysisRefused(
                Refusal.BUSY,
                _("Your analysis of game %(game)s is still running: you can start another one when it ends.")
                % {"game": busy.game_id},
            )
        quota = daily_quota(identity)
        retry_at = _quota_frees_at(mine, quota, now=now)
        if retry_at is not None:
            raise AnalysisRefused(
                Refusal.QUOTA,
                _(
                    "You have used your %(quota)s analyses of the last 24 hours; "
                    "the next one is possible at %(time)s UTC."
                )
                % {"quota": quota, "time": retry_at.astimezone(UTC).strftime("%H:%M")},
                retry_at,
            )
        analysis = Analysis.objects.create(
            game=game,
            requested_by=identity.user,
            requested_guest=_guest_key(identity),
            budget=dict(maths.BUDGET[game.game]),  # the worker records the one it uses
            total=len(game.tokens) + 1,
            created_at=now,
            updated_at=now,
        )
        transaction.on_commit(lambda: _enqueue(analysis.pk))
    return analysis


def _enqueue(analysis_id: int) -> None:
    queue.tasks().analyse_game.apply_async((analysis_id,), queue=ANALYSIS_QUEUE)


def _announce(analysis: Analysis, status: str, done: int) -> None:
    """Progress to every page watching this game's analysis (via the notification socket)."""
    progress: AnalysisProgress = {
        "type": "analysis",
        "game": analysis.game_id,
        "status": status,
        "done": done,
        "total": analysis.total,
    }
    try:
        send_to_group(group_name(analysis.game_id), notify(progress))
    except Exception:  # progress is a courtesy: the page also reads the stored state
        logger.warning("could not announce analysis progress of game %s", analysis.game_id, exc_info=True)


def run_analysis(analysis_id: int) -> bool:
    """Evaluate the positions still missing, then judge the moves. True when done.

    Safe to run again at any time, and alongside another run of the same
    analysis: each position is stored with a conditional update on ``done``.
    """
    analysis = Analysis.objects.select_related("game").filter(pk=analysis_id).first()
    if analysis is None:
        return False
    if analysis.status == Analysis.Status.DONE:
        return True
    game = analysis.game
    engine = game.engine
    tokens = list(game.tokens)
    # The budget of this process: the compiled one once the game's core is loaded here, the
    # pure-Python one before (a worker's first seconds); the row records the one it started with.
    budget = maths.budget_for(game.game)
    positions: list[dict[str, Any]] = list(analysis.positions)
    started = {"budget": budget} if not positions else {}
    Analysis.objects.filter(pk=analysis.pk).update(
        status=Analysis.Status.RUNNING, updated_at=timezone.now(), **started
    )
    start = game.start_state()
    state = replay(engine, tokens[: len(positions)], start)
    for index in range(len(positions), len(tokens) + 1):
        positions.append(maths.evaluate(engine, state, budget).as_dict())
        stored = Analysis.objects.filter(pk=analysis.pk, done=index).update(
            positions=positions, done=index + 1, status=Analysis.Status.RUNNING, updated_at=timezone.now()
        )
        if not stored:
            return False  # another run is ahead of this one
        _announce(analysis, Analysis.Status.RUNNING, index + 1)
        if index < len(tokens):
            state = engine.play(state, tokens[index])
    evals = [maths.PositionEval.from_dict(p) for p in positions]
    judgements = maths.judge_game(engine, tokens, evals, start)
    rows = []
    state = start
    for judged, token in zip(judgements, tokens, strict=True):
        row = judged.as_dict()
        if judged.best is not None:  # the board after the better move, for the page to show
            row["better_position"] = engine.view(engine.play(state, judged.best))
        rows.append(row)
        state = engine.play(state, token)
    summary = [side.as_dict() for side in maths.summarize(judgements, [e.chances for e in evals])]
    finished = (
        Analysis.objects.filter(pk=analysis.pk, done=len(tokens) + 1)
        .exclude(status=Analysis.Status.DONE)
        .update(
            status=Analysis.Status.DONE,
            judgements=rows,
            summary=summary,
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
    )
    if finished:
        _announce(analysis, Analysis.Status.DONE, len(tokens) + 1)
    return True


def mark_failed(analysis_id: int, error: str) -> None:
    Analysis.objects.filter(pk=analysis_id).exclude(status=Analysis.Status.DONE).update(
        status=Analysis.Status.FAILED, error=error[:200], updated_at=timezone.now()
    )
    analysis = Analysis.objects.filter(pk=analysis_id).first()
    if analysis is not None:
        _announce(analysis, Analysis.Status.FAILED, analysis.done)


def as_json(analysis: Analysis | None, *, now: datetime | None = None) -> dict[str, Any]:
    """What the replay page reads: progress while it runs, everything once done."""
    if analysis is None:
        return {"status": "none"}
    now = now or timezone.now()
    status = analysis.status
    if _is_stale(analysis, now):
        status = "stalled"
    data: dict[str, Any] = {"status": status, "done": analysis.done, "total": analysis.total}
    if analysis.status == Analysis.Status.DONE:
        data["chances"] = [p["chances"] for p in analysis.positions]
        data["exact"] = [p.get("exact") for p in analysis.positions]
        # Without the board after each better move (a whole view, ~2 KB a ply in a long
        # Ataxx game): the page asks for the one it shows (``better_position``).
        data["judgements"] = [
            {
                **{k: v for k, v in row.items() if k != "better_position"},
                "has_better": bool(row.get("better_position")),
            }
            for row in analysis.judgements
        ]
        data["summary"] = analysis.summary
        data["budget"] = analysis.budget
    return data


def better_position(game_id: int, ply: int) -> dict[str, Any] | None:
    """The board after the better move at ``ply`` of a done analysis (None: there is none),
    read from the stored row without reading the rest of the analysis."""
    if ply < 0:
        return None
    found = (
        Analysis.objects.filter(game_id=game_id, status=Analysis.Status.DONE)
        .annotate(better=KeyTransform("better_position", KeyTransform(str(ply), "judgements")))
        .values_list("better", flat=True)
        .first()
    )
    return found


def summaries_for(game_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Finished analyses' per-player summaries, by game (for the history page)."""
    return dict(
        Analysis.objects.filter(game_id__in=game_ids, status=Analysis.Status.DONE).values_list(
            "game_id", "summary"
        )
    )


def position_at(game: Game, ply: int) -> Any:
    """The engine state of ``game`` after ``ply`` moves; AnalysisRefused for a ply it never reached."""
    if not 0 <= ply <= len(game.tokens):
        raise AnalysisRefused(Refusal.BAD_PLY, _("This game has no move %(ply)s.") % {"ply": ply})
    return replay(game.engine, list(game.tokens[:ply]), game.start_state())


def play_from_here(
    *, game_id: int, ply: int, identity: Identity, level: str, side: int, address: str = ""
) -> Game:
    """A new game against the computer from the position after ``ply`` moves of a finished game.

    Only games that are over: a position of a game still being played would be
    a way to get the computer's help in it. ``side`` is the side the player takes.
    """
    from games import services

    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise AnalysisRefused(Refusal.NOT_FOUND, _("There is no such game."))
    if not game.is_over:
        raise AnalysisRefused(Refusal.NOT_FINISHED, _("You can play from a position once the game is over."))
    if side not in (0, 1):
        raise AnalysisRefused(Refusal.BAD_SIDE, _("Choose a side."))
    state = position_at(game, ply)
    try:
        return services.create_computer_game(
            identity=identity,
            game=game.game,
            level=level,
            side=side,
            minutes=0,
            start_fen=game.engine.fen(state),
            address=address,
        )
    except services.GameError as exc:
        raise AnalysisRefused(exc.code, exc.message) from None
