"""URLs for tests/config/test_error_pages.py: views that end in each of the site's error handlers."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from config.urls import handler400, handler403, handler500  # noqa: F401  the site's own, as a URLconf must name them


def bad(request: HttpRequest) -> HttpResponse:
    raise SuspiciousOperation("a tampered request: the text a player must never see")


def forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("an internal reason a player must never see")


def bug(request: HttpRequest) -> HttpResponse:
    raise ZeroDivisionError("a bug: the text a player must never see")


urlpatterns = [
    path("bad/", bad),
    path("forbidden/", forbidden),
    path("bug/", bug),
    path("", include("config.urls")),
]
