"""The web pages (docs/browser.md); their views are in tournaments/web/, one module a resource."""

from django.contrib.auth import views as auth_views
from django.urls import path

from tournaments import converters  # noqa: F401 (registers <id:…>)
from tournaments.logins import ThrottledAuthenticationForm
from tournaments.web import (
    clubs,
    corrections,
    desk,
    games,
    home,
    me,
    play,
    players,
    replay,
    rules,
)
from tournaments.web import tournaments as tournament_pages

urlpatterns = [
    path("", home.home, name="home"),
    path("healthz", home.healthz, name="healthz"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            template_name="registration/login.html",
            authentication_form=ThrottledAuthenticationForm,
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="logout"),
    path("accounts/password/", clubs.PasswordChange.as_view(), name="password-change"),
    # The language switcher (docs/i18n.md): Django's set_language, and kept on the login.
    path("i18n/setlang/", clubs.switch_language, name="set_language"),
    path("welcome", clubs.first_run, name="first-run"),
    path("join/<str:token>", clubs.sign_up, name="sign-up"),
    path("clubs/<slug:slug>/people", clubs.club_people, name="club-people"),
    path("clubs/<slug:slug>/people/new", clubs.club_new_player, name="club-new-player"),
    path(
        "clubs/<slug:slug>/people/organisers", clubs.club_add_organiser, name="club-add-organiser"
    ),
    path(
        "clubs/<slug:slug>/people/organisers/remove",
        clubs.club_remove_organiser,
        name="club-remove-organiser",
    ),
    path("clubs/<slug:slug>/language", clubs.club_language, name="club-language"),
    path(
        "clubs/<slug:slug>/sign-up-link/<slug:action>",
        clubs.club_signup_link,
        name="club-signup-link",
    ),
    path("me/", me.my_games, name="my-games"),
    path("me/notices", me.my_notices, name="my-notices"),
    path("me/client-seed", me.my_client_seed, name="my-client-seed"),
    path("me/preferences", me.my_preferences, name="my-preferences"),
    path("tournaments/new", desk.tournament_create, name="tournament-create"),
    path("tournaments/<id:tournament_id>/", tournament_pages.tournament_detail, name="tournament"),
    path(
        "tournaments/<id:tournament_id>/me/<slug:action>",
        tournament_pages.tournament_my_entry,
        name="tournament-my-entry",
    ),
    path(
        "tournaments/<id:tournament_id>/manage",
        desk.tournament_manage,
        name="tournament-manage",
    ),
    path(
        "tournaments/<id:tournament_id>/manage/<slug:command>",
        desk.tournament_command,
        name="tournament-command",
    ),
    path(
        "tournaments/<id:tournament_id>/edit", corrections.tournament_edit, name="tournament-edit"
    ),
    path(
        "tournaments/<id:tournament_id>/confirm/<slug:action>",
        corrections.tournament_confirm,
        name="tournament-confirm",
    ),
    path(
        "tournaments/<id:tournament_id>/standings.csv",
        tournament_pages.standings_csv,
        name="tournament-standings-csv",
    ),
    path(
        "tournaments/<id:tournament_id>/projector",
        tournament_pages.tournament_projector,
        name="tournament-projector",
    ),
    path("tables/<id:table_id>/", tournament_pages.table_detail, name="table"),
    path("rules/", rules.rules_index, name="rules"),
    path("rules/<slug:kind>", rules.rules_game, name="rules-game"),
    path("games/<id:game_id>/", games.game_detail, name="game"),
    path("games/<id:game_id>/replay", replay.game_replay, name="game-replay"),
    path("games/<id:game_id>/play", play.game_play, name="game-play"),
    path("games/<id:game_id>/act", play.game_act, name="game-act"),
    path("games/<id:game_id>/take-back", play.take_back_seat, name="game-take-back"),
    path("players/<id:player_id>/", players.player_detail, name="player"),
]
