from django.urls import path

from tournaments import views

app_name = "tournaments"
urlpatterns = [
    path("tournaments/", views.index, name="index"),
    path("tournaments/new/", views.create, name="create"),
    path("tournaments/<int:tournament_id>/", views.detail, name="detail"),
    path("tournaments/<int:tournament_id>/<str:action>/", views.act, name="act"),
]
