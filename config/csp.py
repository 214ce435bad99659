"""The Content-Security-Policy header: django-csp's middleware, plus the site's websocket origin.

The policy itself is ``CONTENT_SECURITY_POLICY`` in settings. CSP3 browsers let
``connect-src 'self'`` cover ws:/wss: of the page's own host; older ones do not,
so the request's own host is named with the websocket scheme that matches the
page (wss: behind HTTPS, never plain ws: then).
"""

from __future__ import annotations

from csp.middleware import CSPMiddleware, PolicyParts
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase


def websocket_origin(request: HttpRequest) -> str | None:
    """``wss://host[:port]`` (``ws://`` for plain HTTP) of this request; None for a host not allowed."""
    try:
        host = request.get_host()  # validated against ALLOWED_HOSTS
    except DisallowedHost:
        return None  # the 400 that refuses it needs no websocket
    return f"{'wss' if request.is_secure() else 'ws'}://{host}"


class SiteCSPMiddleware(CSPMiddleware):
    def get_policy_parts(
        self,
        request: HttpRequest,
        response: HttpResponseBase,
        report_only: bool = False,  # noqa: FBT001, FBT002 (django-csp's own signature)
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        origin = websocket_origin(request)
        if origin is not None:
            parts.update = {**(parts.update or {})}
            parts.update["connect-src"] = [*parts.update.get("connect-src", ()), origin]
        return parts
