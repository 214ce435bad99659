"""The site's own 400, 403 and CSRF-failure pages: translated, in the site's layout, with a way back.

Django's defaults are bare pages (the CSRF one in English with a developer's
explanation). These render ``error.html`` (the full layout, as the 404 page has)
and, should that fail (a page that failed because the request, the database or a
context processor did may fail again while rendering the layout), the same text in
``bare.html``, which needs none of them. The 500 and 503 pages always use
``bare.html`` (``config/templates/500.html``, ``config/unavailable.py``). None shows a
stack trace or the exception's text: those go to the log only.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)


def _way_back(request: HttpRequest) -> str:
    """The page the player came from, when it was on this site; else empty (the page offers the home page)."""
    referer = request.META.get("HTTP_REFERER", "")
    try:
        host = request.get_host()
    except Exception:  # a refused Host header is one reason for a 400: then there is no "back" we trust
        return ""
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={host}, require_https=request.is_secure()
    ):
        return referer
    return ""


def error_page(
    request: HttpRequest, *, status: int, title: str, heading: str, explanation: str
) -> HttpResponse:
    """An error page in the site's layout; in the bare layout if the full one cannot be rendered."""
    context: dict[str, Any] = {
        "title": title,
        "heading": heading,
        "explanation": explanation,
        "back": _way_back(request),
    }
    try:
        return render(request, "error.html", context, status=status)
    except Exception:
        logger.exception("the %s page could not be rendered in the full layout", status)
        return HttpResponse(render_to_string("error_bare.html", context), status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler400``."""
    return error_page(
        request,
        status=400,
        title=_("Bad request"),
        heading=_("This request could not be understood"),
        explanation=_(
            "Nothing was changed. Please go back and try again; if it happens again, reload the page first."
        ),
    )


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler403``."""
    return error_page(
        request,
        status=403,
        title=_("Not allowed"),
        heading=_("You may not open this page"),
        explanation=_(
            "This page is not for your account. If you think it should be, log in with the right one."
        ),
    )


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a form sent from a page that is out of date (or from another site)."""
    # The reason is logged by Django (django.security.csrf); the player gets no developer's explanation.
    return error_page(
        request,
        status=403,
        title=_("Form expired"),
        heading=_("This form has expired"),
        explanation=_(
            "The page it came from is out of date: you may have logged in or out in another tab, "
            "or your browser did not keep this site's cookies. Nothing was changed. "
            "Go back, reload the page and try again."
        ),
    )
