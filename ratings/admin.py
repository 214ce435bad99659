from django.contrib import admin

from ratings.models import AppliedGame, Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["user", "game", "value", "rated_games", "wins", "losses", "peak", "updated_at"]
    list_filter = ["game"]
    search_fields = ["user__username"]
    raw_id_fields = ["user"]


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ["game", "user", "before", "after", "created_at"]
    search_fields = ["user__username"]
    raw_id_fields = ["game", "user"]


@admin.register(AppliedGame)
class AppliedGameAdmin(admin.ModelAdmin):
    list_display = ["game", "rated", "applied_at"]
    raw_id_fields = ["game"]
