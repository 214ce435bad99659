"""The Bots page (issue #41): the BOT accounts, whether each is online and what it accepts; people challenge them here."""

from __future__ import annotations

from django import forms
from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.identity import identity_from_request
from accounts.models import User
from api import bots
from games import services
from games.kinds import choices as game_choices
from games.models import Game
from games.services import GameError

PAGE_SIZE = 100  # BOTs listed, the online ones first


class BotChallengeForm(forms.Form):
    """A challenge to one BOT: only the games and clocks it accepts are offered (and taken)."""

    game = forms.ChoiceField(label=gettext_lazy("Game"))
    clock = forms.ChoiceField(label=gettext_lazy("Time control"))
    rated = forms.BooleanField(label=gettext_lazy("Rated"), required=False, initial=True)

    def __init__(self, bot: User, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        names = dict(game_choices())
        game, clock = self.fields["game"], self.fields["clock"]
        assert isinstance(game, forms.ChoiceField) and isinstance(clock, forms.ChoiceField)
        game.choices = [(slug, names[slug]) for slug in bots.accepted_games(bot)]
        clocks = [f"{m}+{i}" for m, i in bots.accepted_clocks(bot)]
        days = (bot.bot_accepts or {}).get("days") or []
        clock.choices = [(c, c) for c in clocks] + [
            (f"d{d}", _("%(days)d days per move") % {"days": d}) for d in days
        ]
        # Unique per BOT: the page holds one form per BOT.
        self.auto_id = f"id_{bot.username}_%s"


def bots_page(request: HttpRequest) -> HttpResponse:
    listed = list(User.objects.filter(is_bot=True, is_active=True).order_by("username")[:PAGE_SIZE])
    online = bots.online_ids([bot.pk for bot in listed])
    names = dict(game_choices())
    rows = [
        {
            "bot": bot,
            "online": bot.pk in online,
            "games": [names[slug] for slug in bots.accepted_games(bot)],
            "clocks": [f"{m}+{i}" for m, i in bots.accepted_clocks(bot)],
            "days": (bot.bot_accepts or {}).get("days") or [],
            "said": bool(bot.bot_accepts),
            "form": BotChallengeForm(bot) if request.user.is_authenticated and bot != request.user else None,
        }
        for bot in listed
    ]
    rows.sort(key=lambda row: not row["online"])
    return render(request, "api/bots.html", {"rows": rows})


@login_required
@require_POST
def challenge(request: HttpRequest, username: str) -> HttpResponse:
    """A direct challenge to the BOT through the same service the API's ``POST /api/challenge/{username}`` uses."""
    bot = get_object_or_404(User, username=username, is_bot=True, is_active=True)
    form = BotChallengeForm(bot, request.POST)
    if not form.is_valid():
        flash.error(request, _("Choose one of the games and time controls this BOT accepts."))
        return redirect("bots:index")
    clock = form.cleaned_data["clock"]
    minutes, increment, days = 0, 0, 0
    if clock.startswith("d"):
        days = int(clock[1:])
    else:
        minutes, increment = (int(n) for n in clock.split("+"))
    try:
        game = services.create_human_game(
            identity=identity_from_request(request),
            game=form.cleaned_data["game"],
            kind=Game.Kind.DIRECT,
            minutes=minutes,
            increment=increment,
            invited_user=bot,
            casual=not form.cleaned_data["rated"],
            days_per_move=days,
        )
    except GameError as error:
        flash.error(request, error.message)
        return redirect("bots:index")
    # The game page waits for the BOT's answer (its event stream hears the challenge) and starts with it.
    return redirect(game.get_absolute_url())
