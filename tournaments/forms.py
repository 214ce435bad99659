from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.kinds import choices as game_choices
from tournaments.models import Tournament
from tournaments.services.entries import DURATIONS, MAX_ROUNDS

MINUTES = [1, 2, 3, 5, 10, 15]
STARTS_IN = [0, 2, 5, 10, 15, 30, 60]


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    kind = forms.ChoiceField(label=_("Format"), choices=Tournament.Kind.choices)
    game = forms.ChoiceField(label=_("Game"), choices=game_choices)
    minutes = forms.TypedChoiceField(
        label=_("Minutes per player"), choices=[(m, m) for m in MINUTES], coerce=int, initial=3
    )
    increment = forms.IntegerField(label=_("Increment (seconds)"), min_value=0, max_value=60, initial=0)
    starts_in = forms.TypedChoiceField(
        label=_("Starts in (minutes)"), choices=[(m, m) for m in STARTS_IN], coerce=int, initial=5
    )
    duration = forms.TypedChoiceField(
        label=_("Arena: duration (minutes)"), choices=[(m, m) for m in DURATIONS], coerce=int, initial=30
    )
    rounds = forms.IntegerField(label=_("Swiss: rounds"), min_value=1, max_value=MAX_ROUNDS, initial=5)
    allow_bots = forms.BooleanField(label=_("BOT accounts may join"), required=False, initial=False)
    password = forms.CharField(
        label=_("Password (leave empty for a public tournament)"),
        required=False,
        max_length=64,
        widget=forms.PasswordInput(render_value=False),
    )
