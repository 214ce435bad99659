from __future__ import annotations

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("players/<str:username>/", views.profile, name="profile"),
    path("players/<str:username>/block/", views.block_player, name="block"),
    path("players/<str:username>/unblock/", views.unblock_player, name="unblock"),
    path("profile/edit/", views.profile_edit, name="profile_edit"),
    path("settings/", views.settings_view, name="settings"),
    path("settings/screen-reader/", views.screen_reader_view, name="screen_reader"),
    path("messages/", views.inbox, name="inbox"),
    path("messages/sent/", views.sent, name="sent"),
    path("messages/new/", views.compose, name="compose"),
    path("messages/read-all/", views.mark_all_read, name="read_all"),
    path("messages/with/<str:username>/", views.conversation, name="conversation"),
    path("messages/<int:pk>/", views.message_detail, name="message"),
    path("messages/<int:pk>/read/", views.mark_read, name="mark_read"),
    path("messages/<int:pk>/delete/", views.delete_message, name="delete"),
]
