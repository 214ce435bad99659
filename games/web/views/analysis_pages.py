"""The computer's analysis: a finished game's (its JSON, "Play from here") and the free analysis board."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.identity import forget_new_guest, identity_from_request
from core.ratelimit import request_address
from games.kinds import KINDS
from games.models import Analysis, Game
from games.services import analysis as game_analysis
from games.services import analysis_board as board_analysis

_REFUSAL_STATUS: dict[str, int] = {
    game_analysis.Refusal.NOT_FOUND: 404,
    game_analysis.Refusal.NOT_FINISHED: 409,
    game_analysis.Refusal.NO_IDENTITY: 403,
    game_analysis.Refusal.BUSY: 429,
    game_analysis.Refusal.GUESTS_BUSY: 429,
    game_analysis.Refusal.QUOTA: 429,
}


def analysis(request, game_id: int):
    """GET: the game's analysis (progress or result). POST: start it (or get the stored one)."""
    if request.method == "POST":
        try:
            found = game_analysis.request_analysis(game_id=game_id, identity=identity_from_request(request))
        except game_analysis.AnalysisRefused as refused:
            forget_new_guest(request)
            response = JsonResponse(
                {
                    "error": refused.message,
                    "code": refused.code,
                    "retry_at": refused.retry_at.isoformat() if refused.retry_at else None,
                },
                status=_REFUSAL_STATUS.get(refused.code, 400),
            )
            if refused.retry_at is not None:
                response["Retry-After"] = str(
                    max(1, int((refused.retry_at - timezone.now()).total_seconds()))
                )
            return response
        return JsonResponse(game_analysis.as_json(found))
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET", "POST"])
    game = get_object_or_404(Game, pk=game_id)
    asked = request.GET.get("ply")
    if asked is not None:  # the board after the better move at one ply (the page leaves them out)
        if not (asked.isascii() and asked.isdigit()):
            return JsonResponse({"error": "bad_ply", "message": _("Choose a move.")}, status=400)
        return JsonResponse(
            {"ply": int(asked), "better_position": game_analysis.better_position(game.pk, int(asked))}
        )
    return JsonResponse(game_analysis.as_json(Analysis.objects.filter(game=game).first()))


@require_POST
def play_from_here(request, game_id: int):
    """'Play from here' on a replay: a game against the computer from the position shown."""
    try:
        ply = int(request.POST.get("ply", ""))
        side = int(request.POST.get("side", ""))
    except ValueError:
        messages.error(request, _("Choose a move and a side."))
        return redirect("replay", game_id=game_id)
    try:
        game = game_analysis.play_from_here(
            game_id=game_id,
            ply=ply,
            identity=identity_from_request(request),
            level=request.POST.get("level", ""),
            side=side,
            address=request_address(request),
        )
    except game_analysis.AnalysisRefused as refused:
        forget_new_guest(request)
        if refused.code == game_analysis.Refusal.NOT_FOUND:
            raise Http404 from None
        messages.error(request, refused.message)
        return redirect("replay", game_id=game_id)
    return redirect(game.get_absolute_url())


_EVALUATION_REFUSAL_STATUS: dict[str, int] = {
    game_analysis.Refusal.NOT_FOUND: 404,
    game_analysis.Refusal.BUSY: 429,
    game_analysis.Refusal.QUOTA: 429,
    game_analysis.Refusal.NO_IDENTITY: 403,
}


def _refusal(refused: game_analysis.AnalysisRefused) -> JsonResponse:
    status = _EVALUATION_REFUSAL_STATUS.get(refused.code, 400)
    response = JsonResponse(
        {
            "error": refused.message,
            "code": refused.code,
            "retry_at": refused.retry_at.isoformat() if refused.retry_at else None,
        },
        status=status,
    )
    if refused.retry_at is not None:
        response["Retry-After"] = str(max(1, int((refused.retry_at - timezone.now()).total_seconds())))
    return response


def analysis_board(request, slug: str):
    """The free analysis board of a game: set up a position by FEN or by moves, evaluate it on request."""
    if slug not in KINDS:
        raise Http404
    error = ""
    try:
        start = board_analysis.board_position(slug, request.GET.get("fen", ""))
    except game_analysis.AnalysisRefused as refused:
        error = refused.message
        start = board_analysis.board_position(slug)
    return render(
        request, "games/analysis_board.html", {"slug": slug, "start": {"game": slug, **start}, "error": error}
    )


@require_POST
def analysis_board_position(request, slug: str):
    """The position after a FEN (or the start) and moves: its FEN and view, or why not."""
    try:
        return JsonResponse(
            board_analysis.board_position(
                slug, request.POST.get("fen", ""), request.POST.get("moves", "").split()
            )
        )
    except game_analysis.AnalysisRefused as refused:
        return _refusal(refused)


def analysis_board_evaluation(request, slug: str):
    """GET: the stored evaluation of ``fen``. POST: evaluate it (queued) unless it is stored."""
    try:
        if request.method == "POST":
            return JsonResponse(
                board_analysis.request_board_evaluation(
                    slug=slug, fen=request.POST.get("fen", ""), identity=identity_from_request(request)
                )
            )
        if request.method == "GET":
            return JsonResponse(board_analysis.board_evaluation(slug, request.GET.get("fen", "")))
    except game_analysis.AnalysisRefused as refused:
        forget_new_guest(request)
        return _refusal(refused)
    return HttpResponseNotAllowed(["GET", "POST"])
