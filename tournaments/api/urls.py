"""The API's URLs, all under ``/api/v1/`` (included by ``parlour/urls.py``)."""

from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from tournaments import converters  # noqa: F401 (registers <id:…>)
from tournaments.api import views

app_name = "api"

urlpatterns = [
    path("", views.RootView.as_view(), name="root"),
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    # Its script from a URL of its own (the CSP allows no inline script); Swagger UI's
    # page keeps an inline <style> of its own, allowed on this page only.
    path(
        "docs",
        csp_update({"style-src": [UNSAFE_INLINE]})(
            SpectacularSwaggerSplitView.as_view(url_name="api:schema")
        ),
        name="docs",
    ),
    path("problems", views.ProblemTypeListView.as_view(), name="problems"),
    path("problems/<slug:slug>", views.ProblemTypeView.as_view(), name="problem"),
    path("tokens", views.TokenListView.as_view(), name="tokens"),
    path("tokens/<id:token_id>", views.TokenDetailView.as_view(), name="token"),
    path("me", views.MeView.as_view(), name="me"),
    path("me/client-seed", views.ClientSeedView.as_view(), name="me-client-seed"),
    path("clubs", views.ClubListView.as_view(), name="clubs"),
    path("clubs/<id:club_id>", views.ClubDetailView.as_view(), name="club"),
    path(
        "clubs/<id:club_id>/login-changes",
        views.LoginChangeListView.as_view(),
        name="club-login-changes",
    ),
    path("players", views.PlayerListView.as_view(), name="players"),
    path("players/<id:player_id>", views.PlayerDetailView.as_view(), name="player"),
    path("ratings", views.RatingsView.as_view(), name="ratings"),
    path("tournaments", views.TournamentListView.as_view(), name="tournaments"),
    path("tournaments/<id:tournament_id>", views.TournamentDetailView.as_view(), name="tournament"),
    path(
        "tournaments/<id:tournament_id>/registrations",
        views.RegistrationListView.as_view(),
        name="registrations",
    ),
    path(
        "tournaments/<id:tournament_id>/checkins", views.CheckInListView.as_view(), name="checkins"
    ),
    path("tournaments/<id:tournament_id>/drops", views.DropView.as_view(), name="drops"),
    path("tournaments/<id:tournament_id>/rounds", views.RoundListView.as_view(), name="rounds"),
    path(
        "tournaments/<id:tournament_id>/rounds/<id:number>",
        views.RoundDetailView.as_view(),
        name="round",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/<id:number>/begin",
        views.RoundBeginView.as_view(),
        name="round-begin",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/<id:number>/swaps",
        views.RoundSwapView.as_view(),
        name="round-swaps",
    ),
    path(
        "tournaments/<id:tournament_id>/standings",
        views.StandingsView.as_view(),
        name="standings",
    ),
    path(
        "tournaments/<id:tournament_id>/stream",
        views.TournamentStreamView.as_view(),
        name="tournament-stream",
    ),
    path("tables/<id:table_id>", views.TableDetailView.as_view(), name="table"),
    path("games", views.GameListView.as_view(), name="games"),
    path("games/<id:game_id>", views.GameDetailView.as_view(), name="game"),
    path("games/<id:game_id>/events", views.GameEventsView.as_view(), name="game-events"),
    path("games/<id:game_id>/actions", views.GameActionView.as_view(), name="game-actions"),
    path("games/<id:game_id>/stream", views.GameStreamView.as_view(), name="game-stream"),
    path("games/<id:game_id>/record", views.GameRecordView.as_view(), name="game-record"),
    path("games/<id:game_id>/autoplay", views.GameAutoplayView.as_view(), name="game-autoplay"),
    path("records", views.RecordImportView.as_view(), name="records"),
    path("records/verify", views.RecordVerifyView.as_view(), name="records-verify"),
]
