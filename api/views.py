"""The settings page's API-token buttons: make a token (shown once), revoke one."""

from __future__ import annotations

from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts.identity import AuthenticatedHttpRequest
from api import tokens

SECTION = "/settings/#api-tokens"


@never_cache  # the page carries the secret: no browser or proxy may keep a copy
@login_required
@require_POST
def create(request: AuthenticatedHttpRequest) -> HttpResponse:
    try:
        new = tokens.create_token(
            user=request.user, name=request.POST.get("name", ""), scopes=request.POST.getlist("scopes")
        )
    except tokens.TokenError as error:
        flash.error(request, str(error))
        return redirect(SECTION)
    # Rendered in answer to the POST, never stored: reloading or coming back cannot show it again.
    return render(request, "api/token_created.html", {"token": new.token, "secret": new.secret})


@login_required
@require_POST
def revoke(request: AuthenticatedHttpRequest, token_id: int) -> HttpResponse:
    if tokens.revoke_token(user=request.user, token_id=token_id):
        flash.success(request, _("The token was revoked: programs using it are refused from now on."))
    else:
        flash.error(request, _("There is no such token."))
    return redirect(SECTION)
