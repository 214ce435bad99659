from __future__ import annotations

from django.urls import path

from api import views

app_name = "api_tokens"

# The API itself is mounted at /api/ by config/urls.py (its own namespace, "api").
urlpatterns = [
    path("settings/api-tokens/new/", views.create, name="create"),
    path("settings/api-tokens/<int:token_id>/revoke/", views.revoke, name="revoke"),
]
