"""Site settings for everyone: registered players in the database, guests in the session.

Every page reads them (the theme is on <html>), so ``get_preferences`` never
writes and costs at most one query per request.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Field
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from accounts.models import Preferences

SESSION_KEY = "preferences"
FIELDS = (
    "theme",
    "palette",
    "ai_level",
    "hints",
    "sound",
    "block_invitations",
    "chat",
    "chat_spectators",
    "correspondence_mail",
    "screen_reader",
)
# Guests cannot be invited (they have no name to invite), so the switch is theirs only when registered.
GUEST_FIELDS = ("theme", "palette", "ai_level", "hints", "sound", "chat", "chat_spectators")
# A guest's screen-reader mode is a cookie, not session data: it must hold from the very
# first page (before any session exists) and outlive the session, as a browser setting.
SCREEN_READER_COOKIE = "sr"
SCREEN_READER_COOKIE_AGE = 365 * 24 * 3600


def _default(name: str) -> Any:
    field = Preferences._meta.get_field(name)
    assert isinstance(field, Field), name  # FIELDS are the model's own columns, not relations
    return field.get_default()


DEFAULTS: dict[str, Any] = {name: _default(name) for name in FIELDS}
_CHOICES: dict[str, set[str]] = {
    "theme": set(Preferences.Theme.values),
    "palette": set(Preferences.Palette.values),
    "ai_level": set(Preferences.Level.values),
}


def clean_preferences(data: dict[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with the valid values of ``data`` (a session may hold anything)."""
    result = dict(DEFAULTS)
    for name, default in DEFAULTS.items():
        value = data.get(name)
        if isinstance(default, bool):
            if isinstance(value, bool):
                result[name] = value
        elif isinstance(value, str) and value in _CHOICES[name]:
            result[name] = value
    return result


def preferences_for_user(user: Any) -> dict[str, Any]:
    """A registered player's settings (defaults if they never saved any)."""
    row = Preferences.objects.filter(user_id=user.pk).values(*FIELDS).first()
    return clean_preferences(row or {})


def get_preferences(request: HttpRequest) -> dict[str, Any]:
    """The settings of whoever is behind ``request``, memoised on the request."""
    cached = getattr(request, "_site_preferences", None)
    if cached is not None:
        return cached
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        prefs = preferences_for_user(user)
    else:
        session = getattr(request, "session", None)
        stored = session.get(SESSION_KEY) if session is not None else None
        prefs = clean_preferences(stored if isinstance(stored, dict) else {})
        prefs["block_invitations"] = False
        prefs["correspondence_mail"] = False
        prefs["screen_reader"] = guest_screen_reader(request)
    request._site_preferences = prefs  # type: ignore[attr-defined]
    return prefs


def guest_screen_reader(request: HttpRequest) -> bool:
    """Whether this browser's cookie asks for the screen-reader mode."""
    return request.COOKIES.get(SCREEN_READER_COOKIE) == "1"


def set_screen_reader(request: HttpRequest, response: HttpResponse, *, on: bool) -> None:
    """Switch the screen-reader mode: on the account for a player, in the cookie for a guest."""
    user = request.user
    if user.is_authenticated:
        Preferences.objects.update_or_create(user_id=user.pk, defaults={"screen_reader": on})
        request._site_preferences = None  # type: ignore[attr-defined]
        return
    response.set_cookie(
        SCREEN_READER_COOKIE,
        "1" if on else "0",
        max_age=SCREEN_READER_COOKIE_AGE,
        samesite="Lax",
        secure=request.is_secure(),
        httponly=True,
    )


def remember_language(user: Any, language: str, *, keep_chosen: bool = False) -> None:
    """Store the language a player uses (one of the site's), for the mails sent outside a request.

    ``keep_chosen``: only if they never chose one (a sign-in must not undo the menu's choice).
    """
    if user is None or not user.is_authenticated or language not in dict(settings.LANGUAGES):
        return
    if keep_chosen and Preferences.objects.filter(user_id=user.pk).exclude(language="").exists():
        return
    Preferences.objects.update_or_create(user_id=user.pk, defaults={"language": language})


def apply_account_language(request: HttpRequest | None, response: HttpResponse | None, user: Any) -> None:
    """At log-in, the player's language follows them: this browser is switched to their account's.

    The menu's choice is stored on the account (``remember_language``), but Django keeps
    the language in a cookie, per browser: a player who chose Greek on their phone got
    English on their laptop. The account's language wins over this browser's (docs/decisions.md).
    """
    stored = (
        Preferences.objects.filter(user_id=user.pk).values_list("language", flat=True).first()
        if user is not None and user.pk
        else None
    )
    if not stored or stored not in dict(settings.LANGUAGES):
        return
    if response is not None and hasattr(response, "set_cookie"):
        # As Django's own set_language view sets it.
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            stored,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    if request is not None:
        translation.activate(stored)  # the rest of this request (a page rendered after the log-in) too
        request.LANGUAGE_CODE = stored


def languages_of(user_ids: set[int]) -> dict[int, str]:
    """Each player's stored language, the site's default for those who have none."""
    stored = dict(
        Preferences.objects.filter(user_id__in=user_ids)
        .exclude(language="")
        .values_list("user_id", "language")
    )
    return {user_id: stored.get(user_id, settings.LANGUAGE_CODE) for user_id in user_ids}


def save_preferences(request: HttpRequest, values: dict[str, Any]) -> dict[str, Any]:
    """Store validated ``values`` for the request's player or guest; returns the new settings."""
    user = request.user
    if user.is_authenticated:
        fields = {name: values[name] for name in FIELDS if name in values}
        Preferences.objects.update_or_create(user_id=user.pk, defaults=fields)
        prefs = preferences_for_user(user)
    else:
        fields = {name: values[name] for name in GUEST_FIELDS if name in values}
        prefs = clean_preferences({**get_preferences(request), **fields})
        prefs["block_invitations"] = False
        prefs["correspondence_mail"] = False
        prefs["screen_reader"] = guest_screen_reader(request)
        request.session[SESSION_KEY] = {name: prefs[name] for name in GUEST_FIELDS}
    request._site_preferences = prefs  # type: ignore[attr-defined]
    return prefs
