from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.kinds import choices_or_all
from ratings.selectors import RESULT_LABELS


class HistoryFilterForm(forms.Form):
    game = forms.ChoiceField(label=_("Game"), required=False, choices=choices_or_all)
    result = forms.ChoiceField(
        label=_("Result"), required=False, choices=[("", _("All results")), *RESULT_LABELS.items()]
    )
    starred = forms.BooleanField(label=_("Favourites only"), required=False)
