from django.urls import path

from games.web import views, watch

urlpatterns = [
    path("", views.home, name="home"),
    path("play/new/", views.new_game, name="new_game"),
    path("play/<int:game_id>/", views.play, name="play"),
    path("play/<int:game_id>/take/", views.take_challenge, name="take_challenge"),
    path("play/<int:game_id>/decline/", views.decline, name="decline_invitation"),
    path("play/<int:game_id>/cancel/", views.cancel, name="cancel_game"),
    path("play/<int:game_id>/abandon/", views.abandon, name="abandon_game"),
    path("play/<int:game_id>/replay/", views.replay, name="replay"),
    path("play/<int:game_id>/replay/positions.json", views.replay_positions, name="replay_positions"),
    path("play/<int:game_id>/analysis.json", views.analysis, name="analysis"),
    path("play/<int:game_id>/from/", views.play_from_here, name="play_from_here"),
    path("play/<int:game_id>/record.txt", views.record, name="record"),
    path("join/<str:token>/", views.join, name="join"),
    path("lobby.json", views.lobby, name="lobby"),
    path("watch/", watch.watch, name="watch"),
    path("quick/seek/", views.quick_seek, name="quick_seek"),
    path("quick/cancel/", views.quick_cancel, name="quick_cancel"),
    path("rules/<slug:slug>/", views.rules, name="rules"),
    path("analysis/<slug:slug>/", views.analysis_board, name="analysis_board"),
    path("analysis/<slug:slug>/position.json", views.analysis_board_position, name="analysis_board_position"),
    path(
        "analysis/<slug:slug>/evaluate.json",
        views.analysis_board_evaluation,
        name="analysis_board_evaluation",
    ),
]
