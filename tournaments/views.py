"""Tournament pages: the list, one tournament, the form to create one, and the buttons (POST)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from core.ratelimit import request_address
from tournaments import selectors, services
from tournaments.forms import TournamentForm
from tournaments.models import Participant, Tournament

ACTIONS: dict[str, Callable[..., object]] = {
    "join": services.join,
    "leave": services.leave,
    "pause": services.pause,
    "resume": services.resume,
}


def index(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.select_related("winner", "created_by")
    context = {
        "running": tournaments.filter(status=Tournament.Status.RUNNING).order_by("starts_at"),
        "upcoming": tournaments.filter(status=Tournament.Status.SCHEDULED).order_by("starts_at"),
        "finished": tournaments.filter(status=Tournament.Status.FINISHED).order_by("-finished_at")[:20],
        "form": TournamentForm() if request.user.is_authenticated else None,
    }
    return render(request, "tournaments/index.html", context)


def detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(
        Tournament.objects.select_related("winner", "created_by"), pk=tournament_id
    )
    entry = None
    if request.user.is_authenticated:
        entry = Participant.objects.filter(tournament=tournament, user=request.user).first()
    context = {
        "tournament": tournament,
        "entry": entry,
        "standings": selectors.rows(tournament),
        "games": selectors.current_games(tournament),
    }
    return render(request, "tournaments/detail.html", context)


@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect("tournaments:index")
    try:
        tournament = services.create(user=request.user, **form.cleaned_data)
    except services.TournamentError as exc:
        messages.error(request, exc.message)
        return redirect("tournaments:index")
    try:
        services.join(
            tournament_id=tournament.pk,
            user=request.user,
            password=form.cleaned_data["password"],
            address=request_address(request),
        )
    except services.TournamentError as exc:  # e.g. the password throttle: created, not joined
        messages.error(request, exc.message)
    return redirect(tournament.get_absolute_url())


@login_required
@require_POST
def act(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    command = ACTIONS.get(action)
    if command is None:
        raise Http404
    kwargs = (
        {"password": request.POST.get("password", ""), "address": request_address(request)}
        if action == "join"
        else {}
    )
    try:
        command(tournament_id=tournament_id, user=request.user, **kwargs)
    except services.TournamentError as exc:
        if exc.code == services.Code.NOT_FOUND:
            raise Http404 from None
        messages.error(request, exc.message)
    return redirect("tournaments:detail", tournament_id=tournament_id)
