from __future__ import annotations

from django.shortcuts import render


def home(request):
    from games.engines import ENGINES

    return render(request, "games/home.html", {"engines": ENGINES.values()})
