from __future__ import annotations

from allauth.account.decorators import secure_admin_login
from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.static import serve

from accounts import views as accounts_views
from api.api import api
from config import js_catalog
from config.health import healthz

# The admin signs in through the site's own login page, which allauth throttles
# (ACCOUNT_RATE_LIMITS): the admin's own form would let anybody guess passwords freely.
# (Replacing the bound method on this one AdminSite is the point, hence the ignore.)
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers and feed readers ask for /favicon.ico whatever the page says: send them the icon."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


# An unreachable Redis or broker is a 503 ("try again", and nginx tries another
# daphne), never a 500 traceback page (config/unavailable.py).
handler500 = "config.unavailable.server_error_or_unavailable"
# Translated, in the site's layout, with a way back (config/errors.py); 404 is config/templates/404.html.
handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon),
    # Django's language menu, wrapped: a player's account remembers the choice for their mails.
    path("i18n/setlang/", accounts_views.set_language, name="set_language"),
    # The translations for the pages' scripts, one cacheable address per language (config/js_catalog.py).
    path("jsi18n/<str:language>.<str:digest>.js", js_catalog.javascript_catalog, name="javascript-catalog"),
    path(settings.ADMIN_PATH, admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("api/", api.urls),
    path("", include("api.urls")),
    path("", include("api.bot_urls")),
    path("", include("accounts.urls")),
    path("", include("ratings.urls")),
    path("", include("tournaments.urls")),
    path("", include("games.web.urls")),
]

if settings.DEBUG:
    # Production: nginx serves media (docs/deploy.md).
    urlpatterns.append(path("media/<path:path>", serve, {"document_root": settings.MEDIA_ROOT}))
