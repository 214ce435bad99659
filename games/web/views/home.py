"""The home page and its lobby: the new-game form, the open challenges (and their JSON), the quick-game
buttons, and each game's rules page."""

from __future__ import annotations

from django.db.models import Q
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.identity import forget_new_guest, identity_from_request
from core.ratelimit import request_address
from games import services
from games.kinds import KINDS
from games.models import Game, time_control_label
from games.store.selectors import open_challenges, your_move
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
                    "bot": bool(row.game.created_by and row.game.created_by.is_bot),
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


def rules(request, slug: str):
    kind = KINDS.get(slug)
    if kind is None:
        raise Http404
    return render(request, kind.rules_template, {"engine": kind.engine, "kind": kind})
