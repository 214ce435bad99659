from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, npgettext

from games.models import (
    AI_LEVEL_CHOICES,
    DAYS_PER_MOVE_CHOICES,
    DEFAULT_TIME_MINUTES,
    FISCHER_PRESETS,
    GAME_CHOICES,
    MAX_BASE_MINUTES,
    MAX_INCREMENT_SECONDS,
    Speed,
)
from games.store.selectors import LobbyFilter

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

OPPONENT_CHOICES = [
    ("computer", _("The computer")),
    ("link", _("A friend, with an invite link")),
    ("direct", _("A registered player, by invitation")),
    ("lobby", _("Anyone: an open challenge in the lobby")),
]
RATED_CHOICES = [("rated", _("Rated")), ("casual", _("Casual: no rating change"))]
SIDE_CHOICES = [("random", _("Random")), ("0", _("First player")), ("1", _("Second player"))]


def time_choices() -> list[tuple[int, StrOrPromise]]:
    """The base times (1 to 60 minutes), worded when the form is shown: in the page's language, with plurals."""
    return [(0, _("Untimed (computer games)"))] + [
        (m, npgettext("time per player", "%(m)d minute", "%(m)d minutes", m) % {"m": m})
        for m in range(1, MAX_BASE_MINUTES + 1)
    ]


def increment_choices() -> list[tuple[int, StrOrPromise]]:
    """The increments (0 to 60 seconds a move), worded when the form is shown."""
    return [
        (s, npgettext("increment per move", "%(s)d second", "%(s)d seconds", s) % {"s": s})
        for s in range(0, MAX_INCREMENT_SECONDS + 1)
    ]


def days_choices() -> list[tuple[int, StrOrPromise]]:
    """Live (the clock above) or a correspondence game of so many days per move."""
    return [(0, _("No: a live game with the clock above"))] + [
        (d, ngettext("%(d)d day per move", "%(d)d days per move", d) % {"d": d})
        for d in DAYS_PER_MOVE_CHOICES
    ]


class NewGameForm(forms.Form):
    clock_presets = FISCHER_PRESETS  # the buttons that fill in minutes and increment ("5+3")

    game = forms.ChoiceField(label=_("Game"), choices=GAME_CHOICES)
    opponent = forms.ChoiceField(label=_("Opponent"), choices=OPPONENT_CHOICES, initial="computer")
    level = forms.ChoiceField(
        label=_("Computer level"), choices=AI_LEVEL_CHOICES, initial="easy", required=False
    )
    minutes = forms.TypedChoiceField(
        label=_("Time per player"),
        coerce=int,
        choices=time_choices,
        initial=DEFAULT_TIME_MINUTES,
    )
    increment = forms.TypedChoiceField(
        label=_("Increment per move"),
        coerce=int,
        choices=increment_choices,
        initial=0,
        required=False,  # a disabled select (an untimed game) sends nothing: no increment
        empty_value=None,
    )
    days = forms.TypedChoiceField(
        label=_("Correspondence: days per move"),
        coerce=int,
        choices=days_choices,
        initial=0,
        required=False,  # an older page without the field: a live game
        empty_value=None,
    )
    rated = forms.ChoiceField(
        label=_("Rated or casual"), choices=RATED_CHOICES, initial="rated", required=False
    )
    side = forms.ChoiceField(label=_("Play as"), choices=SIDE_CHOICES, initial="random")
    invitee = forms.CharField(label=_("Player to invite"), max_length=150, required=False)

    def __init__(self, *args: Any, registered: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.registered = registered
        if not registered:
            # Correspondence needs an account (the game is found again and mailed about): a guest is not offered it.
            del self.fields["days"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        opponent = data.get("opponent")
        if not self.registered and self.data.get("days") not in (None, "", "0"):
            # A page from before a logout still has the field: say so rather than start a live game instead.
            self.add_error(None, _("Log in to play a correspondence game."))
        data["days"] = data.get("days") or 0
        if data["days"]:
            # The days replace the live clock: the two selects above it do not count.
            if opponent == "computer":
                self.add_error("days", _("Correspondence games are between people."))
            data["minutes"], data["increment"] = DEFAULT_TIME_MINUTES, 0
            return self._finish(data, opponent)
        if opponent != "computer" and data.get("minutes") == 0:
            self.add_error("minutes", _("Games between people need a clock."))
        data["increment"] = data.get("increment") or 0
        if data.get("minutes") == 0 and data["increment"]:
            self.add_error("increment", _("An untimed game has no increment."))
        return self._finish(data, opponent)

    def _finish(self, data: dict[str, Any], opponent: str | None) -> dict[str, Any]:
        if opponent == "computer" and not data.get("level"):
            data["level"] = "easy"
        if opponent == "direct":
            name = (data.get("invitee") or "").strip()
            user = get_user_model().objects.filter(username__iexact=name).first() if name else None
            if user is None:
                self.add_error("invitee", _("There is no player with that name."))
            data["invited_user"] = user
        # Games against the computer are never rated: the choice is for games between people.
        data["casual"] = opponent != "computer" and data.get("rated") == "casual"
        data["side_number"] = None if data.get("side") in (None, "random") else int(data["side"])
        return data


MODE_FILTER_CHOICES = [("", _("Rated and casual")), ("rated", _("Rated")), ("casual", _("Casual"))]
LOWEST_RATING, HIGHEST_RATING = 0, 4000


class LobbyFilterForm(forms.Form):
    """The lobby's filters (the home page's form and /lobby.json's query): every field may stay empty."""

    game = forms.ChoiceField(label=_("Game"), choices=[("", _("All games")), *GAME_CHOICES], required=False)
    speed = forms.ChoiceField(
        label=_("Time control"), choices=[("", _("Any time control")), *Speed.choices], required=False
    )
    mode = forms.ChoiceField(label=_("Rated or casual"), choices=MODE_FILTER_CHOICES, required=False)
    rating_min = forms.IntegerField(
        label=_("Rating from"), min_value=LOWEST_RATING, max_value=HIGHEST_RATING, required=False
    )
    rating_max = forms.IntegerField(
        label=_("Rating to"), min_value=LOWEST_RATING, max_value=HIGHEST_RATING, required=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            # Each field's error is shown under it (games/home.html), and read with it.
            field.widget.attrs["aria-describedby"] = f"filter-error-{name}"

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        low, high = data.get("rating_min"), data.get("rating_max")
        if low is not None and high is not None and low > high:
            self.add_error("rating_max", _("The highest rating cannot be below the lowest."))
        return data

    def wanted(self) -> LobbyFilter:
        """The filter asked for (call after ``is_valid``)."""
        data = self.cleaned_data
        mode = data.get("mode")
        return LobbyFilter(
            game=data.get("game") or "",
            speed=data.get("speed") or "",
            casual=None if not mode else mode == "casual",
            rating_min=data.get("rating_min"),
            rating_max=data.get("rating_max"),
        )
