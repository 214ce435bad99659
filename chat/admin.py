"""Moderation: reports with the line in its context; hide a line, mute its author."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from chat import services
from chat.models import ChatLine, ChatMute, ChatReport
from chat.presets import preset_text

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

CONTEXT_LINES = 5  # shown before and after the reported line


def line_text(line: ChatLine) -> str:
    return preset_text(line.preset) if line.preset else line.text


def context_of(line: ChatLine) -> list[ChatLine]:
    """The reported line with the lines around it in the same game (both rooms, hidden ones too)."""
    lines = ChatLine.objects.filter(game_id=line.game_id)
    before = lines.filter(created_at__lte=line.created_at).exclude(pk=line.pk).order_by("-created_at", "-id")
    after = lines.filter(created_at__gte=line.created_at).exclude(pk=line.pk).order_by("created_at", "id")
    return [*reversed(before[:CONTEXT_LINES]), line, *after[:CONTEXT_LINES]]


def _mute_authors(request: HttpRequest, lines: list[ChatLine], key: str) -> None:
    user_ids = {line.user_id for line in lines if line.user_id is not None}
    for user_id in user_ids:
        services.mute_user(user_id=user_id, duration=services.MUTE_DURATIONS[key], by=request.user)
    skipped = len([line for line in lines if line.user_id is None])
    messages.success(
        request, ngettext("%(n)d player muted.", "%(n)d players muted.", len(user_ids)) % {"n": len(user_ids)}
    )
    if skipped:
        messages.warning(request, _("Guests cannot be muted (they chat with the preset phrases only)."))


def _mute_action(key: str, label: StrOrPromise, *, for_reports: bool):
    def action(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> None:
        if for_reports:
            lines = [report.line for report in queryset.select_related("line")]
            queryset.update(handled=True)
        else:
            lines = list(queryset)
        _mute_authors(request, lines, key)

    action.__name__ = f"mute_{key}"
    return admin.action(description=label)(action)


MUTE_LABELS = {
    "1h": _("Mute the author for 1 hour"),
    "24h": _("Mute the author for 24 hours"),
    "7d": _("Mute the author for 7 days"),
}


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "reported_line", "author", "reporter", "reason", "handled", "game_link")
    list_filter = ("handled", "created_at")
    list_select_related = ("line", "line__user", "reporter")
    search_fields = ("line__text", "line__author_name", "reporter__username", "reason")
    readonly_fields = ("line", "reporter", "reason", "created_at", "context")
    fields = ("context", "line", "reporter", "reason", "created_at", "handled")
    actions = ["hide_lines", "mark_handled"] + [
        _mute_action(key, label, for_reports=True) for key, label in MUTE_LABELS.items()
    ]

    @admin.display(description=_("line"))
    def reported_line(self, report: ChatReport) -> str:
        return line_text(report.line)

    @admin.display(description=_("author"))
    def author(self, report: ChatReport) -> str:
        return report.line.author_name

    @admin.display(description=_("game"))
    def game_link(self, report: ChatReport) -> str:
        return format_html(
            '<a href="{}">#{}</a>', reverse("play", args=[report.line.game_id]), report.line.game_id
        )

    @admin.display(description=_("the line in context"))
    def context(self, report: ChatReport) -> str:
        rows = [
            (
                "reported" if line.pk == report.line_id else "",
                f"{line.created_at:%H:%M:%S}",
                line.get_room_display(),
                line.author_name,
                line_text(line),
                _("hidden") if line.hidden else (_("sent while muted") if line.muted else ""),
            )
            for line in context_of(report.line)
        ]
        # format_html escapes every value: a line is shown as its text, never as markup.
        body = format_html_join(
            "", '<tr class="{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>', rows
        )
        return format_html('<table class="chat-context">{}</table>', body)

    @admin.action(description=_("Hide the reported lines"))
    def hide_lines(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
        hidden = sum(
            services.hide_line(line_id=line_id) for line_id in set(queryset.values_list("line_id", flat=True))
        )
        queryset.update(handled=True)
        self.message_user(
            request, ngettext("%(n)d line hidden.", "%(n)d lines hidden.", hidden) % {"n": hidden}
        )

    @admin.action(description=_("Mark as handled"))
    def mark_handled(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
        queryset.update(handled=True)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # reports come from the players


@admin.register(ChatLine)
class ChatLineAdmin(admin.ModelAdmin):
    list_display = ("created_at", "game_id", "room", "author_name", "text", "preset", "hidden", "muted")
    list_filter = ("room", "hidden", "muted", "created_at")
    search_fields = ("text", "author_name")
    readonly_fields = ("game", "user", "author_name", "room", "side", "text", "preset", "created_at", "muted")
    exclude = ("guest_key",)  # a guest's secret session key
    actions = ["hide"] + [_mute_action(key, label, for_reports=False) for key, label in MUTE_LABELS.items()]

    @admin.action(description=_("Hide these lines"))
    def hide(self, request: HttpRequest, queryset: QuerySet[ChatLine]) -> None:
        hidden = sum(services.hide_line(line_id=pk) for pk in queryset.values_list("pk", flat=True))
        self.message_user(
            request, ngettext("%(n)d line hidden.", "%(n)d lines hidden.", hidden) % {"n": hidden}
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(ChatMute)
class ChatMuteAdmin(admin.ModelAdmin):
    list_display = ("user", "until", "reason", "created_by", "created_at")
    list_select_related = ("user", "created_by")
    search_fields = ("user__username", "reason")
    autocomplete_fields = ("user",)
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request: HttpRequest, obj: ChatMute, form, change: bool) -> None:  # noqa: FBT001 (Django's signature)
        if not change:
            obj.created_by = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)
