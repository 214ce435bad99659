"""The JavaScript translation catalogue at one address per language and content, cached for a year.

Django's ``JavaScriptCatalog`` answers ``/jsi18n/`` in whatever language the request is in, so no
browser may keep its answer: every page view fetched it again, some 50-60 KB in Hindi, Bengali and
Greek, before the page's scripts could run. Here the address names the language and a digest of
the catalogue itself (``/jsi18n/hi.3f2a9c0b1d4e.js``): a page asks for the one it needs, a switch
of language or a release with new translations asks for another address, and what a browser kept
is never stale. An address with an old digest (a page from before a release) is sent on to the
current one.
"""

from __future__ import annotations

import hashlib
from functools import cache

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import translation
from django.views.i18n import JavaScriptCatalog

ONE_YEAR = 365 * 24 * 60 * 60

_catalogue_view = JavaScriptCatalog.as_view()


def _language(code: str) -> str:
    if code not in dict(settings.LANGUAGES):
        raise Http404("no such language")
    return code


@cache
def _catalogue(language: str) -> tuple[bytes, str]:
    """The catalogue's script in ``language`` and its digest, built once a process.

    Translations are read when a process starts, so they cannot change under it."""
    request = HttpRequest()
    request.method = "GET"
    with translation.override(language):
        response = _catalogue_view(request)
    assert isinstance(response, HttpResponse)  # JavaScriptCatalog renders; it never streams
    body = response.content
    return body, hashlib.sha256(body).hexdigest()[:12]


def catalogue_url(language: str) -> str:
    """The address of the catalogue in ``language`` (a code of settings.LANGUAGES)."""
    _, digest = _catalogue(_language(language))
    return reverse("javascript-catalog", kwargs={"language": language, "digest": digest})


def javascript_catalog(request: HttpRequest, language: str, digest: str) -> HttpResponse:
    body, current = _catalogue(_language(language))
    if digest != current:
        return HttpResponseRedirect(catalogue_url(language))
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"
    return response


def javascript_catalog_url(request: HttpRequest) -> dict[str, str]:
    """Context processor: ``javascript_catalog_url``, the catalogue in the page's language."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    if language not in dict(settings.LANGUAGES):
        language = settings.LANGUAGE_CODE
    return {"javascript_catalog_url": catalogue_url(language)}
