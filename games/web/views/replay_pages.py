"""A game after (or while) it is played: the replay page, its pages of positions, and the record as text."""

from __future__ import annotations

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _

from games import bus
from games.models import Analysis, Game
from games.services import analysis as game_analysis
from games.services import replays
from games.store.selectors import record_text


def replay(request, game_id: int):
    """The replay page: the moves, the final snapshot and one page of positions (the one
    shown first: the last ply, or ``?ply=N``); the script fetches the other pages."""
    game = get_object_or_404(Game.objects.select_related("user0", "user1"), pk=game_id)
    if game.status == Game.Status.WAITING:
        raise Http404
    total = len(game.tokens)
    asked = request.GET.get("ply", "")
    start = min(int(asked), total) if asked.isascii() and asked.isdigit() else total
    full = bus.snapshot(game)
    moves = full["moves"]
    # The moves are sent once, beside the snapshot: the page gets the snapshot without them.
    snapshot = {key: value for key, value in full.items() if key != "moves"}
    return render(
        request,
        "games/replay.html",
        {
            "game": game,
            "replay": {
                "game": game.game,
                "moves": moves,
                "snapshot": snapshot,
                "start": start,
                "page_size": replays.PAGE,
                "pages": [replays.positions_page(game, replays.page_of(start))],
                # A game in play may change (a move, a takeback): its pages come with their moves.
                "over": game.is_over,
                "positions_url": reverse("replay_positions", args=[game.pk]),
            },
            "analysis": game_analysis.as_json(Analysis.objects.filter(game=game).first()),
        },
    )


def replay_positions(request, game_id: int):
    """One page of a replay's positions (``?page=N``; ``&moves=1``: with the moves up to it)."""
    game = get_object_or_404(Game, pk=game_id)
    if game.status == Game.Status.WAITING:
        raise Http404
    page = request.GET.get("page", "")
    if not (page.isascii() and page.isdigit()):
        return JsonResponse({"error": "bad_page", "message": _("Ask for a page by its number.")}, status=400)
    if int(page) > replays.last_page(game):
        return JsonResponse(
            {"error": "bad_page", "message": _("This game has no page %(page)s.") % {"page": page}},
            status=404,
        )
    data = replays.page_for_viewer(game, int(page), with_moves=request.GET.get("moves") == "1")
    response = JsonResponse(data)
    if game.is_over:  # never changes again: the browser may keep it
        patch_cache_control(response, private=True, max_age=replays.CACHE_SECONDS)
    return response


def record(request, game_id: int):
    game = get_object_or_404(Game.objects.select_related("user0", "user1"), pk=game_id)
    if game.status == Game.Status.WAITING:
        raise Http404
    text = record_text(game, site=request.get_host())
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{game.game}-{game.pk}.txt"'
    return response
