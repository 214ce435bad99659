from django.contrib import admin

from tournaments.models import Pairing, Participant, Tournament


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """The staff schedule tournaments here (created_by left empty: "scheduled by the site")."""

    list_display = ("name", "kind", "game", "minutes", "starts_at", "status", "winner")
    list_filter = ("kind", "status", "game")
    fields = ("name", "kind", "game", "minutes", "increment", "starts_at", "duration_minutes", "rounds")
    search_fields = ("name",)


@admin.register(Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ("tournament", "user", "score", "games", "paused", "withdrawn", "place")
    raw_id_fields = ("tournament", "user", "playing", "last_game", "last_opponent")


@admin.register(Pairing)
class PairingAdmin(admin.ModelAdmin):
    list_display = ("tournament", "round", "game", "white", "black", "scored_at")
    raw_id_fields = ("tournament", "game", "white", "black")
