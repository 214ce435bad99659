from __future__ import annotations

from django.urls import path

from api import pages

app_name = "bots"

urlpatterns = [
    path("bots/", pages.bots_page, name="index"),
    path("bots/<str:username>/challenge/", pages.challenge, name="challenge"),
]
