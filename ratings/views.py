"""Rankings, the player's history and its star toggle. Views only bind requests to selectors/services."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from accounts.identity import identity_from_request
from games.engines import ENGINES
from games.models import Game
from ratings import selectors, services
from ratings.forms import HistoryFilterForm

RANKING_PAGE_SIZE = 50
HISTORY_PAGE_SIZE = 25


@require_GET
def rankings_index(request: HttpRequest) -> HttpResponse:
    boards = [(engine, list(selectors.ranking(slug)[:5])) for slug, engine in ENGINES.items()]
    return render(request, "ratings/rankings_index.html", {"boards": boards, "engines": ENGINES.values()})


@require_GET
def rankings(request: HttpRequest, game: str) -> HttpResponse:
    engine = ENGINES.get(game)
    if engine is None:
        raise Http404
    order = request.GET.get("sort", "rating")
    if order not in selectors.RANKING_ORDERS:
        order = "rating"
    # The correspondence tab: games of days per move are ranked apart from live ones.
    correspondence = request.GET.get("pool") == "correspondence"
    page = Paginator(
        selectors.ranking(game, order=order, correspondence=correspondence), RANKING_PAGE_SIZE
    ).get_page(request.GET.get("page"))
    my_place = (
        selectors.place_of(request.user, game, correspondence=correspondence)
        if request.user.is_authenticated
        else None
    )
    return render(
        request,
        "ratings/rankings.html",
        {
            "engine": engine,
            "engines": ENGINES.values(),
            "page": page,
            "my_place": my_place,
            "order": order,
            "correspondence": correspondence,
            "pool_query": "pool=correspondence&" if correspondence else "",
        },
    )


@require_GET
def history(request: HttpRequest) -> HttpResponse:
    identity = identity_from_request(request, create_guest=False)
    if identity.user is None and identity.guest is None:
        return redirect_to_login(request.get_full_path())
    form = HistoryFilterForm(request.GET or None)
    filters = form.cleaned_data if form.is_valid() else {}
    guest_starred = services.guest_starred_ids(request.session)
    games = selectors.history_for(
        identity,
        game=filters.get("game", ""),
        result=filters.get("result", ""),
        starred_only=filters.get("starred", False),
        guest_starred=guest_starred,
    )
    page = Paginator(games, HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    starred = selectors.starred_ids_among(identity, [g.pk for g in page], guest_starred=guest_starred)
    rows = selectors.history_rows(identity, page.object_list, starred_ids=starred)
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "ratings/history.html",
        {"form": form, "page": page, "rows": rows, "identity": identity, "query": query.urlencode()},
    )


@require_POST
def star(request: HttpRequest, game_id: int) -> HttpResponse:
    identity = identity_from_request(request, create_guest=False)
    game = get_object_or_404(Game, pk=game_id)
    # Stars are private: only someone who played the game may star it, and the
    # answer for anyone else is the same as for a game that does not exist.
    if (identity.user is None and identity.guest is None) or game.side_of(identity) is None:
        raise Http404
    wanted = {"1": True, "0": False}.get(request.POST.get("starred", ""))
    starred = services.favourite_set(identity=identity, game=game, session=request.session, starred=wanted)
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"starred": starred})
    next_url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(next_url, {request.get_host()}, require_https=request.is_secure()):
        next_url = "ratings:history"
    return redirect(next_url)
