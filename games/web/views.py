"""HTTP pages of live play. Thin: parse, authorise, call a service, render."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Q
from django.http import Http404, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.identity import forget_new_guest, identity_from_request
from core.ratelimit import request_address
from games import bus, hooks, services
from games.kinds import KINDS
from games.models import Analysis, Game, time_control_label
from games.services import analysis as game_analysis
from games.services import analysis_board as board_analysis
from games.services import replays
from games.store.selectors import open_challenges, record_text, your_move
from games.web.forms import LobbyFilterForm, NewGameForm


def _invitations(request):
    if not request.user.is_authenticated:
        return []
    return list(
        Game.objects.filter(
            status=Game.Status.WAITING, kind=Game.Kind.DIRECT, invited_user=request.user
        ).select_related("created_by")
    )


def home(request):
    return _render_home(
        request,
        NewGameForm(initial={"level": _default_level(request)}, registered=request.user.is_authenticated),
    )


def _render_home(request, form: NewGameForm, *, status: int = 200):
    """The home page; a refused new game comes back here with the form's errors, styled as ever."""
    identity = identity_from_request(request, create_guest=False)
    # The lobby's filters ride in the address (a page without script filters too); bad ones filter nothing.
    lobby_filter = LobbyFilterForm(request.GET)
    wanted = lobby_filter.wanted() if lobby_filter.is_valid() else None
    mine, untimed = [], []
    if identity.user or identity.guest:
        running = (
            Game.objects.filter(status__in=[Game.Status.WAITING, Game.Status.ACTIVE])
            .filter(_seat_filter(identity))
            .select_related("user0", "user1")
        )
        # Untimed games against the computer never end by themselves: listed apart, to resume or abandon.
        is_untimed = Q(kind=Game.Kind.COMPUTER, time_control=0)
        mine = list(running.exclude(is_untimed)[:20])
        untimed = list(running.filter(is_untimed).order_by("-turn_started_at", "-pk")[:20])
    return render(
        request,
        "games/home.html",
        {
            "engines": [kind.engine for kind in KINDS.values()],
            "form": form,
            "challenges": open_challenges(viewer=request.user, wanted=wanted),
            "lobby_filter": lobby_filter,
            "invitations": _invitations(request),
            "my_games": mine,
            "untimed_games": untimed,
            "your_move": your_move(identity.user) if identity.user is not None else [],
            "form_refused": status != 200,
            "quick_pools": _quick_pools(),
            "correspondence_pools": _correspondence_pools(),
            "waiting_seek": _waiting_correspondence(identity.user),
        },
        status=status,
    )


def _quick_pools() -> list[dict]:
    """The quick-game buttons of each game: the pools, labelled as players write them ("5+3")."""
    from games.services.pairing import QUICK_POOLS

    return [
        {"minutes": minutes, "increment": increment, "label": time_control_label(minutes * 60, increment)}
        for minutes, increment in QUICK_POOLS
    ]


def _correspondence_pools() -> list[dict]:
    """The quick correspondence buttons of each game: days per move, labelled "3 days"."""
    from games.services.pairing import CORRESPONDENCE_POOLS

    return [{"days": days, "label": time_control_label(0, 0, days)} for days in CORRESPONDENCE_POOLS]


def _waiting_correspondence(user):
    """The player's correspondence seek, shown when they come back: it outlives the page that made it."""
    from games.services.pairing import waiting_correspondence

    return waiting_correspondence(user)


def _default_level(request) -> str:
    try:
        from accounts.services.preferences import get_preferences

        return get_preferences(request).get("ai_level", "easy")
    except ImportError:
        return "easy"


def _seat_filter(identity) -> Q:
    if identity.user is not None:
        return Q(user0=identity.user) | Q(user1=identity.user)
    if identity.guest is not None:
        return Q(guest0_key=identity.guest.key) | Q(guest1_key=identity.guest.key)
    return Q(pk__in=[])


@require_POST
def new_game(request):
    form = NewGameForm(request.POST, registered=request.user.is_authenticated)
    if not form.is_valid():
        return _render_home(request, form, status=400)
    changed = _player_changed(request)
    if changed:
        # Nothing starts: the game would have been a guest's (or another account's) without a word.
        # The page comes back for who is here now, so pressing Start again is a choice made knowingly.
        form.add_error(None, changed)
        return _render_home(request, form, status=409)
    data = form.cleaned_data
    identity = identity_from_request(request)
    try:
        if data["opponent"] == "computer":
            game = services.create_computer_game(
                identity=identity,
                game=data["game"],
                level=data["level"],
                side=data["side_number"],
                minutes=data["minutes"],
                increment=data["increment"],
                address=request_address(request),
            )
        else:
            game = services.create_human_game(
                identity=identity,
                game=data["game"],
                kind=data["opponent"],
                side=data["side_number"],
                minutes=data["minutes"],
                increment=data["increment"],
                casual=data["casual"],
                invited_user=data.get("invited_user"),
                days_per_move=data["days"],
            )
    except services.GameError as exc:
        forget_new_guest(request)
        form.add_error(None, exc.message)
        return _render_home(request, form, status=429 if exc.code == services.Code.RATE_LIMITED else 400)
    return redirect(game.get_absolute_url())


def _player_changed(request) -> str:
    """Why a form sent from a page rendered for another player is refused; empty when it is not.

    The home page's form names the player it was rendered for (``as_player``). Logging
    out in another tab leaves the old tab's form working (the CSRF cookie survives a
    logout), and it used to start a guest's game silently (docs/decisions.md).
    """
    was = request.POST.get("as_player", "")
    if not was:
        return ""  # rendered for a guest, or a page from before this check
    if not request.user.is_authenticated:
        return _(
            "This page was opened while you were logged in as %(name)s, and you have logged out since. "
            "Nothing was started: log in again, or press Start once more to play as a guest."
        ) % {"name": was}
    if request.user.get_username() != was:
        return _(
            "This page was opened while you were logged in as %(name)s; you are now logged in as %(now)s. "
            "Nothing was started: press Start once more to play as %(now)s."
        ) % {"name": was, "now": request.user.get_username()}
    return ""


def play(request, game_id: int):
    game = get_object_or_404(Game.objects.select_related("user0", "user1"), pk=game_id)
    # Watching makes no guest (and so no session): a guest who plays got its identity
    # when it created or joined the game over HTTP, before its socket opened.
    identity = identity_from_request(request, create_guest=False)
    side = game.side_of(identity)
    return render(
        request,
        "games/play.html",
        {
            "game": game,
            "side": side,
            "snapshot": {**bus.snapshot(game), "you": side},
            "replay_page_size": replays.PAGE,  # looking back fetches the replay's pages
            "tournament": hooks.tournament_of(game.pk) if game.kind == Game.Kind.LOBBY else None,
            # The link is the key to the free seat: only a seated player gets it.
            "invite_url": request.build_absolute_uri(f"/join/{game.invite_token}/")
            if side is not None
            else "",
        },
    )


def join(request, token: str):
    game = get_object_or_404(Game, invite_token=token)
    identity = identity_from_request(request, create_guest=False)
    if game.side_of(identity) is not None or game.status != Game.Status.WAITING:
        return redirect(game.get_absolute_url())
    if request.method == "POST":
        identity = identity_from_request(request)  # joining is an action: a guest starts here
        try:
            services.join_game(game_id=game.pk, identity=identity, token=token)
        except services.GameError as exc:
            forget_new_guest(request)
            messages.error(request, exc.message)
            return redirect("home")
        return redirect(game.get_absolute_url())
    return render(request, "games/join.html", {"game": game})


@require_POST
def take_challenge(request, game_id: int):
    return _post_service(request, game_id, services.join_game)


@require_POST
def decline(request, game_id: int):
    _post_service(request, game_id, services.decline_invitation, create_guest=False)
    return redirect("home")


@require_POST
def abandon(request, game_id: int):
    identity = identity_from_request(request, create_guest=False)
    try:
        services.abandon_computer_game(game_id=game_id, identity=identity)
    except services.GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The game was abandoned."))
    return redirect("home")


@require_POST
def cancel(request, game_id: int):
    _post_service(request, game_id, services.cancel_waiting_game, create_guest=False)
    return redirect("home")


def _post_service(request, game_id: int, func, *, create_guest: bool = True):
    """``create_guest=False`` for what only a seated player may do: a new guest sits nowhere."""
    identity = identity_from_request(request, create_guest=create_guest)
    try:
        game = func(game_id=game_id, identity=identity)
    except services.GameError as exc:
        forget_new_guest(request)
        messages.error(request, exc.message)
        return redirect("home")
    return redirect(game.get_absolute_url())


@require_POST
def quick_seek(request):
    """A "Quick game" button: wait in that pool; the game when paired at once (else "paired" comes over /ws/notify/)."""
    from games.services import pairing

    try:
        days = int(request.POST.get("days_per_move") or "0")
        # A correspondence button sends days per move and no clock.
        minutes = int(request.POST.get("minutes") or ("0" if days else ""))
        increment = int(request.POST.get("increment") or "0")
    except ValueError:
        days, minutes, increment = -1, -1, -1
    casual = request.POST.get("casual", "") in ("1", "true", "on")
    identity = identity_from_request(request, create_guest=False)
    try:
        game = pairing.seek(
            identity=identity,
            game=request.POST.get("game", ""),
            minutes=minutes,
            increment=increment,
            casual=casual,
            days_per_move=days,
        )
    except services.GameError as exc:
        status = 429 if exc.code == services.Code.RATE_LIMITED else 400
        return JsonResponse({"error": exc.code, "message": exc.message}, status=status)
    if game is None:
        return JsonResponse({"status": "waiting"})
    return JsonResponse({"status": "paired", "url": game.get_absolute_url()})


@require_POST
def quick_cancel(request):
    from games.services import pairing

    pairing.cancel_seek(user_id=request.user.pk if request.user.is_authenticated else None)
    return JsonResponse({"status": "cancelled"})


def lobby(request):
    """The open challenges (filtered as the query asks) and invitations, for the home page's live list."""
    wanted = LobbyFilterForm(request.GET)
    if not wanted.is_valid():
        field, errors = next(iter(wanted.errors.items()))
        return JsonResponse({"error": "bad_filter", "field": field, "message": errors[0]}, status=400)
    user = request.user if request.user.is_authenticated else None
    return JsonResponse(
        {
            "challenges": [
                {
                    "id": row.game.pk,
                    "game": row.game.game,
                    "name": row.game.get_game_display(),
                    "by": row.game.created_by.username if row.game.created_by else "",
                    "rating": row.rating,
                    "provisional": row.provisional,
                    "minutes": row.game.time_control // 60,
                    "increment": row.game.increment,
                    "clock": row.game.time_control_label,
                    "days_per_move": row.game.days_per_move,
                    "speed": row.speed,
                    "casual": row.game.casual,
                    "mine": user is not None and row.game.created_by_id == user.pk,
                }
                for row in open_challenges(viewer=request.user, wanted=wanted.wanted())
            ],
            "invitations": [
                {
                    "id": game.pk,
                    "game": game.game,
                    "name": game.get_game_display(),
                    "by": game.created_by.username if game.created_by else "",
                    "bot": bool(game.created_by and game.created_by.is_bot),
                    "terms": game.invitation_terms(),
                }
                for game in _invitations(request)
            ],
        }
    )


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


def rules(request, slug: str):
    kind = KINDS.get(slug)
    if kind is None:
        raise Http404
    return render(request, kind.rules_template, {"engine": kind.engine, "kind": kind})


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
