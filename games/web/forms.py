from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.kinds import choices as game_choices
from games.kinds import choices_or_all
from games.models import (
    AI_LEVEL_CHOICES,
    CLOCK_PRESETS,
    DAYS_PER_MOVE_CHOICES,
    DEFAULT_TIME_MINUTES,
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


def days_choices() -> list[tuple[int, StrOrPromise]]:
    """Live (the clock above) or a correspondence game of so many days per move."""
    return [(0, _("No: a live game with the clock above"))] + [
        (d, ngettext("%(d)d day per move", "%(d)d days per move", d) % {"d": d})
        for d in DAYS_PER_MOVE_CHOICES
    ]


UNTIMED, CUSTOM = "untimed", "custom"


def clock_label(minutes: int, increment: int) -> str:
    """A Fischer clock as players write it: 5 minutes each and 3 seconds a move is "5+3"."""
    return f"{minutes}+{increment}"


class ClockForm(forms.Form):
    """The time control: one click on a preset ("5+3"), untimed (computer games), or a custom pair of numbers.

    The radio buttons work without scripts; home.js only keeps the two numbers and the readout in step with
    them. The numbers keep the names minutes and increment, so a post without ``clock`` (an older page, a
    script) is read as a custom clock, as before. A preset or "untimed" wins over the numbers, which are then
    not looked at (docs/decisions.md, "The time control: presets and a custom pair").
    """

    clock_presets: list[tuple[int, int]] = CLOCK_PRESETS
    offer_untimed = True  # minutes 0: games against the computer only
    max_minutes = MAX_BASE_MINUTES
    max_increment = MAX_INCREMENT_SECONDS
    default_clock = (DEFAULT_TIME_MINUTES, 0)

    clock = forms.ChoiceField(label=_("Time control"), required=False, widget=forms.RadioSelect)
    minutes = forms.IntegerField(
        label=_("Custom: minutes per player"),
        required=False,
        error_messages={"invalid": _("Write the minutes as a whole number.")},
    )
    increment = forms.IntegerField(
        label=_("Custom: seconds added per move"),
        required=False,
        error_messages={"invalid": _("Write the seconds as a whole number.")},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        presets = [(clock_label(m, i), clock_label(m, i)) for m, i in self.clock_presets]
        untimed = [(UNTIMED, _("Untimed"))] if self.offer_untimed else []
        # The class's ChoiceField (self.fields types every field as a plain Field).
        clock = self.fields["clock"]
        assert isinstance(clock, forms.ChoiceField)
        clock.choices = [*presets, *untimed, (CUSTOM, _("Custom"))]
        clock.initial = clock_label(*self.default_clock)
        self.fields["minutes"].initial, self.fields["increment"].initial = self.default_clock
        for name, top in (("minutes", self.max_minutes), ("increment", self.max_increment)):
            # No "required"/"max" checks by the browser (the form is novalidate): the messages below, translated,
            # are shown at the field; the bounds still give the phone a number pad and the arrows their range.
            self.fields[name].widget.attrs.update(
                {
                    "min": 1 if name == "minutes" else 0,
                    "max": top,
                    "inputmode": "numeric",
                    "class": "clock-number",
                    "aria-describedby": "clock-errors",
                }
            )

    def minutes_message(self) -> str:
        return gettext("Choose from 1 to %(max)d minutes per player.") % {"max": self.max_minutes}

    def increment_message(self) -> str:
        return gettext("Choose from 0 to %(max)d seconds added per move.") % {"max": self.max_increment}

    def chosen_clock(self) -> str:
        """The choice the page shows as made: the posted one (even if refused), else the default."""
        value = self["clock"].value()
        if self.is_bound and not value:
            return CUSTOM  # a post with only the two numbers
        return str(value or "")

    def readout(self) -> str:
        """The time control in words under the group's name: "5+3", "Untimed", or the custom numbers."""
        choice = self.chosen_clock()
        if choice == UNTIMED:
            return str(_("Untimed"))
        if choice == CUSTOM:
            return f"{self['minutes'].value() or '?'}+{self['increment'].value() or 0}"
        return choice

    def clean_clock_fields(self, data: dict[str, Any]) -> None:
        """Put the chosen clock in data["minutes"] and data["increment"], or an error at the field that is wrong."""
        # Called from clean(): self.errors is then the ErrorDict full_clean is filling, not a second cleaning.
        if "clock" in self.errors:
            return  # a forged choice: said at the group
        choice = data.get("clock") or CUSTOM
        if choice != CUSTOM:
            # A preset or "untimed" was chosen: whatever is in the custom boxes does not count.
            for name in ("minutes", "increment"):
                self.errors.pop(name, None)
            data["minutes"], data["increment"] = (
                (0, 0) if choice == UNTIMED else tuple(int(part) for part in choice.split("+"))
            )
            return
        lowest = 0 if self.offer_untimed else 1  # 0 minutes: untimed, refused below for games between people
        minutes, increment = data.get("minutes"), data.get("increment")
        if "minutes" not in self.errors and (minutes is None or not lowest <= minutes <= self.max_minutes):
            self.add_error("minutes", self.minutes_message())
        if increment is None:
            data["increment"] = 0
        elif "increment" not in self.errors and not 0 <= increment <= self.max_increment:
            self.add_error("increment", self.increment_message())

    def drop_clock_errors(self) -> None:
        """The live clock does not count (a correspondence game): nothing in it is an error."""
        # Called from clean(), like clean_clock_fields: self.errors is the ErrorDict being filled.
        for name in ("clock", "minutes", "increment"):
            self.errors.pop(name, None)


class NewGameForm(ClockForm):
    game = forms.ChoiceField(label=_("Game"), choices=game_choices)
    opponent = forms.ChoiceField(label=_("Opponent"), choices=OPPONENT_CHOICES, initial="computer")
    level = forms.ChoiceField(
        label=_("Computer level"), choices=AI_LEVEL_CHOICES, initial="easy", required=False
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
            # The days replace the live clock: the time control above them does not count.
            self.drop_clock_errors()
            if opponent == "computer":
                self.add_error("days", _("Correspondence games are between people."))
            data["minutes"], data["increment"] = DEFAULT_TIME_MINUTES, 0
            return self._finish(data, opponent)
        self.clean_clock_fields(data)
        if opponent != "computer" and data.get("minutes") == 0:
            # Untimed is for the computer's games only: said where it was chosen.
            where = "clock" if data.get("clock") == UNTIMED else "minutes"
            self.add_error(where, _("Games between people need a clock."))
        if data.get("minutes") == 0 and data.get("increment"):
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

    game = forms.ChoiceField(label=_("Game"), choices=choices_or_all, required=False)
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
