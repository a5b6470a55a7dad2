"""The web pages (docs/browser.md)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from tournaments import converters, views  # noqa: F401 (converters: registers <id:…>)
from tournaments.logins import ThrottledAuthenticationForm

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            template_name="registration/login.html",
            authentication_form=ThrottledAuthenticationForm,
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("me/", views.my_games, name="my-games"),
    path("me/client-seed", views.my_client_seed, name="my-client-seed"),
    path("me/preferences", views.my_preferences, name="my-preferences"),
    path("tournaments/new", views.tournament_create, name="tournament-create"),
    path("tournaments/<id:tournament_id>/", views.tournament_detail, name="tournament"),
    path(
        "tournaments/<id:tournament_id>/manage",
        views.tournament_manage,
        name="tournament-manage",
    ),
    path(
        "tournaments/<id:tournament_id>/manage/<slug:command>",
        views.tournament_command,
        name="tournament-command",
    ),
    path("tables/<id:table_id>/", views.table_detail, name="table"),
    path("games/<id:game_id>/", views.game_detail, name="game"),
    path("games/<id:game_id>/replay", views.game_replay, name="game-replay"),
    path("games/<id:game_id>/play", views.game_play, name="game-play"),
    path("games/<id:game_id>/act", views.game_act, name="game-act"),
    path("games/<id:game_id>/take-back", views.take_back_seat, name="game-take-back"),
    path("players/<id:player_id>/", views.player_detail, name="player"),
]
