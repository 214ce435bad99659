"""The board page of a game and the seats around it: joining by link, taking a challenge, declining,
cancelling or abandoning a game."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.identity import forget_new_guest, identity_from_request
from games import bus, hooks, services
from games.models import Game
from games.services import replays


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
