"""Thin views: parse, authorise, call a service, render."""

from __future__ import annotations

from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import i18n
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import ComposeForm, ProfileForm, ReplyForm, SettingsForm
from accounts.identity import AuthenticatedHttpRequest
from accounts.models import User
from accounts.services import blocks
from accounts.services import messages as msgs
from accounts.services.preferences import (
    get_preferences,
    remember_language,
    save_preferences,
    set_screen_reader,
)
from accounts.services.profiles import find_player, profile_update
from accounts.services.recovery import recovery_addresses

PAGE_SIZE = 30


def _player_or_404(username: str) -> User:
    player = find_player(username)
    if player is None:
        raise Http404(_("There is no player with that name."))
    return player


def _back(request: HttpRequest, default: str) -> HttpResponse:
    """Redirect to ``next`` when it is on this site, else to ``default``."""
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect(default)


# --- profiles ----------------------------------------------------------------


def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = _player_or_404(username)
    viewer = request.user
    is_owner = viewer.is_authenticated and viewer.pk == player.pk
    context = {
        "player": player,
        "is_owner": is_owner,
        "viewer_blocked": (
            viewer.is_authenticated and not is_owner and blocks.is_blocked(by=viewer, user=player)
        ),
    }
    return render(request, "accounts/profile.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def profile_edit(request: AuthenticatedHttpRequest) -> HttpResponse:
    user = request.user
    if request.method == "POST":
        form = ProfileForm(request.POST, request.FILES)
        if form.is_valid():
            profile_update(
                user=user,
                about=form.cleaned_data["about"],
                avatar=form.cleaned_data["photo"],
                remove_avatar=form.cleaned_data["remove_photo"],
            )
            flash.success(request, _("Your profile was saved."))
            return redirect(user.get_absolute_url())
    else:
        form = ProfileForm(initial={"about": user.about})
    return render(request, "accounts/profile_edit.html", {"form": form})


@login_required
@require_POST
def block_player(request: AuthenticatedHttpRequest, username: str) -> HttpResponse:
    player = _player_or_404(username)
    if blocks.block(by=request.user, user=player):
        flash.success(request, _("You blocked %(name)s.") % {"name": player.username})
    else:
        flash.error(request, _("You cannot block this player."))
    return _back(request, player.get_absolute_url())


@login_required
@require_POST
def unblock_player(request: AuthenticatedHttpRequest, username: str) -> HttpResponse:
    player = _player_or_404(username)
    blocks.unblock(by=request.user, user=player)
    flash.success(request, _("You unblocked %(name)s.") % {"name": player.username})
    return _back(request, player.get_absolute_url())


# --- settings ------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def settings_view(request: HttpRequest) -> HttpResponse:
    registered = request.user.is_authenticated
    if request.method == "POST":
        form = SettingsForm(request.POST, registered=registered)
        if form.is_valid():
            save_preferences(request, form.cleaned_data)
            flash.success(request, _("Your settings were saved."))
            return redirect("accounts:settings")
    else:
        form = SettingsForm(initial=get_preferences(request), registered=registered)
    user = request.user
    context = {
        "form": form,
        "blacklist": blocks.blacklist(user) if user.is_authenticated else [],
        "email_addresses": recovery_addresses(user) if user.is_authenticated else [],
    }
    return render(request, "accounts/settings.html", context)


@require_POST
def screen_reader_view(request: HttpRequest) -> HttpResponse:
    """The first control of every page: switch the screen-reader mode, then back to that page."""
    value = request.POST.get("on")
    if value not in ("0", "1"):
        return HttpResponse(
            _("Say on=1 or on=0 to switch the screen-reader mode."),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    response = _back(request, reverse("accounts:settings"))
    set_screen_reader(request, response, on=value == "1")
    return response


def set_language(request: HttpRequest) -> HttpResponse:
    """Django's language menu (the cookie, back to the page), and a player's account remembers it."""
    response = i18n.set_language(request)
    if request.method == "POST":
        remember_language(request.user, request.POST.get("language", ""))
    return response


# --- messages --------------------------------------------------------------------


@login_required
def inbox(request: AuthenticatedHttpRequest) -> HttpResponse:
    page = Paginator(msgs.inbox(request.user), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "accounts/messages_list.html", {"page": page, "box": "inbox"})


@login_required
def sent(request: AuthenticatedHttpRequest) -> HttpResponse:
    page = Paginator(msgs.sent(request.user), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "accounts/messages_list.html", {"page": page, "box": "sent"})


def _send(
    request: AuthenticatedHttpRequest, form: ComposeForm | ReplyForm, recipient: User | None
) -> msgs.SendResult | None:
    """Run the send service for a valid form; puts any refusal on the form."""
    if not form.is_valid():
        return None
    result = msgs.message_send(sender=request.user, recipient=recipient, body=form.cleaned_data["body"])
    if not result.ok:
        about_recipient = (msgs.Verdict.NO_RECIPIENT, msgs.Verdict.SELF, msgs.Verdict.BLOCKED)
        if result.verdict is msgs.Verdict.INVALID:
            field = "body"
        elif result.verdict in about_recipient and "to" in form.fields:
            field = "to"
        else:
            field = None
        form.add_error(field, result.verdict.text)
    return result


@login_required
@require_http_methods(["GET", "POST"])
def compose(request: AuthenticatedHttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = ComposeForm(request.POST)
        recipient = find_player(request.POST.get("to", "").strip())
        result = _send(request, form, recipient)
        if result is not None and result.ok and recipient is not None:
            flash.success(request, result.verdict.text)
            return redirect("accounts:conversation", username=recipient.username)
        status = 429 if result is not None and result.verdict is msgs.Verdict.RATE_LIMITED else 200
        return render(request, "accounts/compose.html", {"form": form}, status=status)
    form = ComposeForm(initial={"to": request.GET.get("to", "")})
    return render(request, "accounts/compose.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def conversation(request: AuthenticatedHttpRequest, username: str) -> HttpResponse:
    other = _player_or_404(username)
    status = 200
    if request.method == "POST":
        form = ReplyForm(request.POST)
        result = _send(request, form, other)
        if result is not None and result.ok:
            return redirect(reverse("accounts:conversation", args=[other.username]) + "#latest")
        if result is not None and result.verdict is msgs.Verdict.RATE_LIMITED:
            status = 429
    else:
        form = ReplyForm()
    page = Paginator(msgs.conversation(request.user, other), PAGE_SIZE).get_page(request.GET.get("page"))
    # Opening the conversation is reading it (and the page shows them as read).
    unread = [m for m in page if m.recipient_id == request.user.pk and m.read_at is None]
    if unread:
        msgs.mark_read(user=request.user, message_ids=[m.pk for m in unread])
        now = timezone.now()
        for m in unread:
            m.read_at = now
    context = {
        "other": other,
        "page": page,
        "thread": list(reversed(page.object_list)),  # oldest at the top, like a chat
        "form": form,
        "can_write": msgs.check_send(sender=request.user, recipient=other, body="-") is msgs.Verdict.OK,
        "viewer_blocked": blocks.is_blocked(by=request.user, user=other),
    }
    return render(request, "accounts/conversation.html", context, status=status)


@login_required
def message_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    message = msgs.message_for(request.user, pk)
    if message is None:  # someone else's (or deleted): 404 says no more than that
        raise Http404
    if message.recipient_id == request.user.pk and message.read_at is None:
        msgs.mark_read(user=request.user, message_ids=[message.pk])
    other = message.sender if message.recipient_id == request.user.pk else message.recipient
    return render(request, "accounts/message_detail.html", {"message": message, "other": other})


@login_required
@require_POST
def mark_read(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    if msgs.message_for(request.user, pk) is None:
        raise Http404
    if request.POST.get("unread"):
        msgs.mark_unread(user=request.user, message_id=pk)
    else:
        msgs.mark_read(user=request.user, message_ids=[pk])
    return _back(request, reverse("accounts:inbox"))


@login_required
@require_POST
def mark_all_read(request: AuthenticatedHttpRequest) -> HttpResponse:
    msgs.mark_read(user=request.user)
    return _back(request, reverse("accounts:inbox"))


@login_required
@require_POST
def delete_message(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    if not msgs.message_delete(user=request.user, message_id=pk):
        raise Http404
    flash.success(request, _("The message was deleted."))
    return _back(request, reverse("accounts:inbox"))
