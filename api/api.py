"""The public API (docs/api.md): django-ninja, so the OpenAPI document at /api/openapi.json is generated
from the endpoints' own type hints and cannot drift from them."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, ValidationError

from api import play
from api.auth import ApiError
from api.read import ANONYMOUS_TAG
from api.read import router as read_router


class SiteApi(NinjaAPI):
    def get_openapi_schema(self, **kwargs: Any) -> Any:
        """The document, with the token optional where anonymous callers are served (the read endpoints)."""
        schema = super().get_openapi_schema(**kwargs)
        for methods in schema["paths"].values():
            for operation in methods.values():
                if ANONYMOUS_TAG in operation.get("tags", ()):
                    operation["security"] = [*operation.get("security", []), {}]
        return schema


api = SiteApi(
    title="Five Boards API",
    version="1",
    description=(
        "Read the site's public data; later, play through it. Authenticate with "
        "`Authorization: Bearer <token>` (tokens are made on the settings page). "
        "Rate limits and scopes: docs/api.md."
    ),
    urls_namespace="api",
    docs_url=None,  # the document is served; the interactive page would need a CDN script the CSP refuses
)
api.add_router("/", read_router)
api.add_router("/", play.router)
api.add_router("/", play.bot_router)
api.add_router("/", play.board_router)


def _error(request: HttpRequest, status: int, message: str, **extra: object) -> HttpResponse:
    return api.create_response(request, {"error": message, **extra}, status=status)


@api.exception_handler(ApiError)
def on_api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    response = _error(request, exc.status, exc.message, **exc.extra)
    for header, value in exc.headers.items():
        response[header] = value
    return response


@api.exception_handler(ValidationError)
def on_validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    problems = "; ".join(
        f"{'.'.join(str(part) for part in error.get('loc', ())[1:]) or 'request'}: {error.get('msg', 'invalid')}"
        for error in exc.errors
    )
    return _error(request, 400, f"Bad request: {problems}")


@api.exception_handler(AuthenticationError)
def on_authentication_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(request, 401, "This endpoint needs a token: send Authorization: Bearer <token>.")


@api.exception_handler(Http404)
def on_not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, 404, "Not found.")
