"""The free analysis board: positions set up by FEN or by moves, evaluated on request.

An evaluation runs on the analysis queue like a game's analysis (never in the
web process, where it would hold up live games) and is kept, so a position is
evaluated once at the fixed budget. The page polls for the answer (a second or
two). Limits: one evaluation under way per player, and ``BOARD_DAILY_QUOTA`` /
``BOARD_GUEST_DAILY_QUOTA`` new ones per 24 hours; positions already evaluated
cost nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.identity import Identity
from games.ai import analysis as maths
from games.models import PositionEvaluation
from games.services import queue
from games.services.analysis import (
    ANALYSIS_QUEUE,
    AnalysisRefused,
    Refusal,
    _guest_key,
    _quota_frees_at,
    _refuse_when_guests_are_busy,
    _requester_filter,
)

EVALUATION_STALE_AFTER = timedelta(minutes=1)


def board_position(slug: str, fen: str = "", moves: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """The board's position from ``fen`` (or the usual start) after ``moves``: its FEN and view.

    Raises AnalysisRefused for an unknown game, a bad FEN or an illegal move.
    """
    from games.engines import ENGINES
    from games.engines.base import IllegalMove, InvalidPosition

    engine = ENGINES.get(slug)
    if engine is None:
        raise AnalysisRefused(Refusal.NOT_FOUND, _("There is no such game."))
    try:
        state = engine.from_fen(fen.strip()) if fen.strip() else engine.initial()
    except InvalidPosition as exc:
        raise AnalysisRefused(
            Refusal.BAD_POSITION, _("That position is not valid: %(reason)s") % {"reason": exc}
        ) from None
    for move in moves:
        try:
            state = engine.play(state, move)
        except IllegalMove as exc:
            raise AnalysisRefused(
                Refusal.ILLEGAL, _("That move is not legal here: %(reason)s") % {"reason": exc}
            ) from None
    return {"fen": engine.fen(state), "position": engine.view(state)}


def _evaluation_json(row: PositionEvaluation) -> dict[str, Any]:
    if row.result is None:
        return {"status": "pending", "fen": row.fen}
    return {"status": "done", "fen": row.fen, **row.result}


def board_evaluation(slug: str, fen: str) -> dict[str, Any]:
    """The stored evaluation of a position, or ``{"status": "none"}``."""
    position = board_position(slug, fen)
    row = PositionEvaluation.objects.filter(game=slug, fen=position["fen"]).first()
    return {"status": "none", "fen": position["fen"]} if row is None else _evaluation_json(row)


def request_board_evaluation(
    *, slug: str, fen: str, identity: Identity, now: datetime | None = None
) -> dict[str, Any]:
    """Evaluate a position of the analysis board (queued), or the stored answer at once."""
    now = now or timezone.now()
    position = board_position(slug, fen)
    if position["position"]["outcome"] is not None:
        raise AnalysisRefused(Refusal.POSITION_OVER, _("The game is already over in that position."))
    if identity.user is None and identity.guest is None:
        raise AnalysisRefused(
            Refusal.NO_IDENTITY, _("Open the page again to get a guest name, then ask again.")
        )
    with transaction.atomic():
        row = PositionEvaluation.objects.select_for_update().filter(game=slug, fen=position["fen"]).first()
        if row is not None and (row.result is not None or row.created_at >= now - EVALUATION_STALE_AFTER):
            return _evaluation_json(row)
        _refuse_when_guests_are_busy(
            identity,
            PositionEvaluation.objects.filter(
                requested_by__isnull=True, result__isnull=True, created_at__gte=now - EVALUATION_STALE_AFTER
            ),
        )
        mine = PositionEvaluation.objects.filter(_requester_filter(identity))
        if mine.filter(result__isnull=True, created_at__gte=now - EVALUATION_STALE_AFTER).exists():
            raise AnalysisRefused(Refusal.BUSY, _("Wait for the evaluation you asked for first."))
        quota = (
            int(getattr(settings, "BOARD_DAILY_QUOTA", 200))
            if identity.is_registered
            else int(getattr(settings, "BOARD_GUEST_DAILY_QUOTA", 30))
        )
        retry_at = _quota_frees_at(mine, quota, now=now)
        if retry_at is not None:
            raise AnalysisRefused(
                Refusal.QUOTA,
                _(
                    "You have used your %(quota)s evaluations of the last 24 hours; "
                    "the next one is possible at %(time)s UTC."
                )
                % {"quota": quota, "time": retry_at.astimezone(UTC).strftime("%H:%M")},
                retry_at,
            )
        fields = {"requested_by": identity.user, "created_at": now, "requested_guest": _guest_key(identity)}
        if row is None:
            row = PositionEvaluation.objects.create(game=slug, fen=position["fen"], **fields)
        else:  # its worker vanished: ask again
            PositionEvaluation.objects.filter(pk=row.pk).update(**fields)
        row_id = row.pk
        transaction.on_commit(lambda: _enqueue_evaluation(row_id))
    return {"status": "pending", "fen": position["fen"]}


def _enqueue_evaluation(row_id: int) -> None:
    queue.tasks().evaluate_position.apply_async((row_id,), queue=ANALYSIS_QUEUE)


def run_board_evaluation(row_id: int) -> None:
    """The worker's side: evaluate and store (once; a repeat changes nothing)."""
    from games.engines import get

    row = PositionEvaluation.objects.filter(pk=row_id, result__isnull=True).first()
    if row is None:
        return
    engine = get(row.game)
    result = maths.evaluate(engine, engine.from_fen(row.fen)).as_dict()
    PositionEvaluation.objects.filter(pk=row_id, result__isnull=True).update(
        result=result, finished_at=timezone.now()
    )
