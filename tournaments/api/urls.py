"""The API's URLs, all under ``/api/v1/`` (included by ``parlour/urls.py``)."""

from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from tournaments import converters  # noqa: F401 (registers <id:…>)
from tournaments.api.views import clubs, games, live, me, meta, records, rounds
from tournaments.api.views import tournaments as tournament_views

app_name = "api"

urlpatterns = [
    path("", meta.RootView.as_view(), name="root"),
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
    path("problems", meta.ProblemTypeListView.as_view(), name="problems"),
    path("problems/<slug:slug>", meta.ProblemTypeView.as_view(), name="problem"),
    path("tokens", me.TokenListView.as_view(), name="tokens"),
    path("tokens/<id:token_id>", me.TokenDetailView.as_view(), name="token"),
    path("me", me.MeView.as_view(), name="me"),
    path("me/client-seed", me.ClientSeedView.as_view(), name="me-client-seed"),
    path("clubs", clubs.ClubListView.as_view(), name="clubs"),
    path("clubs/<id:club_id>", clubs.ClubDetailView.as_view(), name="club"),
    path("clubs/<id:club_id>/players", clubs.ClubPlayersView.as_view(), name="club-players"),
    path(
        "clubs/<id:club_id>/organisers",
        clubs.ClubOrganisersView.as_view(),
        name="club-organisers",
    ),
    path(
        "clubs/<id:club_id>/organisers/<id:user_id>",
        clubs.ClubOrganiserView.as_view(),
        name="club-organiser",
    ),
    path(
        "clubs/<id:club_id>/sign-up-link",
        clubs.SignUpLinkView.as_view(),
        name="club-sign-up-link",
    ),
    path(
        "clubs/<id:club_id>/login-changes",
        clubs.LoginChangeListView.as_view(),
        name="club-login-changes",
    ),
    path("players", clubs.PlayerListView.as_view(), name="players"),
    path("players/<id:player_id>", clubs.PlayerDetailView.as_view(), name="player"),
    path("ratings", clubs.RatingsView.as_view(), name="ratings"),
    path("tournaments", tournament_views.TournamentListView.as_view(), name="tournaments"),
    path(
        "tournaments/<id:tournament_id>",
        tournament_views.TournamentDetailView.as_view(),
        name="tournament",
    ),
    path(
        "tournaments/<id:tournament_id>/registrations",
        tournament_views.RegistrationListView.as_view(),
        name="registrations",
    ),
    path(
        "tournaments/<id:tournament_id>/registrations/<id:player_id>",
        tournament_views.RegistrationDetailView.as_view(),
        name="registration",
    ),
    path(
        "tournaments/<id:tournament_id>/checkins",
        tournament_views.CheckInListView.as_view(),
        name="checkins",
    ),
    path("tournaments/<id:tournament_id>/drops", tournament_views.DropView.as_view(), name="drops"),
    path(
        "tournaments/<id:tournament_id>/drops/<id:player_id>",
        tournament_views.DropDetailView.as_view(),
        name="drop",
    ),
    path("tournaments/<id:tournament_id>/rounds", rounds.RoundListView.as_view(), name="rounds"),
    path(
        "tournaments/<id:tournament_id>/rounds/<id:number>",
        rounds.RoundDetailView.as_view(),
        name="round",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/<id:number>/begin",
        rounds.RoundBeginView.as_view(),
        name="round-begin",
    ),
    path(
        "tournaments/<id:tournament_id>/rounds/<id:number>/swaps",
        rounds.RoundSwapView.as_view(),
        name="round-swaps",
    ),
    path(
        "tournaments/<id:tournament_id>/standings",
        tournament_views.StandingsView.as_view(),
        name="standings",
    ),
    path(
        "tournaments/<id:tournament_id>/stream",
        live.TournamentStreamView.as_view(),
        name="tournament-stream",
    ),
    path("tables/<id:table_id>", rounds.TableDetailView.as_view(), name="table"),
    path("stream/events", live.AccountStreamView.as_view(), name="account-stream"),
    path("games", games.GameListView.as_view(), name="games"),
    path("games/<id:game_id>", games.GameDetailView.as_view(), name="game"),
    path("games/<id:game_id>/events", games.GameEventsView.as_view(), name="game-events"),
    path("games/<id:game_id>/actions", games.GameActionView.as_view(), name="game-actions"),
    path("games/<id:game_id>/stream", live.GameStreamView.as_view(), name="game-stream"),
    path("games/<id:game_id>/record", games.GameRecordView.as_view(), name="game-record"),
    path("games/<id:game_id>/autoplay", games.GameAutoplayView.as_view(), name="game-autoplay"),
    path("records", records.RecordImportView.as_view(), name="records"),
    path("records/verify", records.RecordVerifyView.as_view(), name="records-verify"),
]
