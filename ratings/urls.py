from django.urls import path

from ratings import views

app_name = "ratings"
urlpatterns = [
    path("rankings/", views.rankings_index, name="rankings_index"),
    path("rankings/<slug:game>/", views.rankings, name="rankings"),
    path("history/", views.history, name="history"),
    path("history/<int:game_id>/star/", views.star, name="star"),
]
