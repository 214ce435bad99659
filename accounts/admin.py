from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from accounts.forms import PlayerChangeForm, PlayerCreationForm
from accounts.models import Block, Message, Preferences, User

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class PreferencesInline(admin.StackedInline):
    model = Preferences
    can_delete = False
    extra = 0


@admin.register(User)
class PlayerAdmin(UserAdmin):
    form = PlayerChangeForm
    add_form = PlayerCreationForm
    list_display = ("username", "date_joined", "last_login", "is_active", "is_staff", "has_photo")
    list_filter = ("is_active", "is_staff", "is_superuser", "date_joined", "last_login")
    search_fields = ("username",)
    ordering = ("-date_joined",)
    readonly_fields = ("last_login", "date_joined")
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        (_("Profile"), {"fields": ("about", "avatar", "avatar_small")}),
        (
            _("Permissions"),
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
        (_("Important dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("username", "password1", "password2")}),)
    inlines = [PreferencesInline]

    def get_inlines(self, request: HttpRequest, obj: User | None) -> list:
        return self.inlines if obj is not None else []  # the add page asks only name and password

    @admin.display(boolean=True, description=_("photo"))
    def has_photo(self, obj: User) -> bool:
        return bool(obj.avatar)


class ReadFilter(admin.SimpleListFilter):
    title = _("read")
    parameter_name = "read"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, StrOrPromise]]:
        return [("yes", _("Read")), ("no", _("Unread"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.exclude(read_at=None)
        if self.value() == "no":
            return queryset.filter(read_at=None)
        return queryset


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("id", "sender", "recipient", "short_body", "created_at", "read_at")
    list_filter = (ReadFilter, "sender_deleted", "recipient_deleted", "created_at")
    search_fields = ("sender__username", "recipient__username", "body")
    date_hierarchy = "created_at"
    raw_id_fields = ("sender", "recipient")
    list_select_related = ("sender", "recipient")

    @admin.display(description=_("message"))
    def short_body(self, obj: Message) -> str:
        return Truncator(obj.body).chars(80)


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ("blocker", "blocked", "created_at")
    list_filter = ("created_at",)
    search_fields = ("blocker__username", "blocked__username")
    raw_id_fields = ("blocker", "blocked")
    list_select_related = ("blocker", "blocked")
    date_hierarchy = "created_at"
