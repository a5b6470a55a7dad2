"""The club's home page (its live tables, tournaments coming and finished) and the health check."""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from engine.registry import all_games
from tournaments import services, sql
from tournaments.models import Club, Registration, Round, Table, Tournament
from tournaments.services import queries
from tournaments.web.common import live_table, series_text, tournament_stream_url, wants_fragment

#: Tables shown per running tournament on the home page.
HOME_TABLES = 6
#: Running tournaments followed live on the home page (one stream each).
HOME_TOURNAMENTS = 3


def _running_tables(tournament: Tournament, limit: int) -> list[dict[str, Any]] | None:
    """The tables of a running tournament's current round with their current games
    (``None``: a duplicate round's, which are shown to their players alone while it runs,
    :func:`tournaments.play.views.twin_hidden`)."""
    round_ = (
        Round.objects.filter(tournament=tournament, status=Round.Status.PLAYING)
        .order_by("-number")
        .first()
    )
    if round_ is None:
        return []
    if tournament.duplicate_deals:
        return None
    tables = list(Table.objects.filter(round=round_).order_by("number"))
    tables.sort(key=lambda t: (t.status == Table.Status.FINISHED, t.number))
    shown = []
    for table in tables[:limit]:
        game = queries.current_game(table)
        if game is None:
            continue
        drawn = live_table(game, compact=True)
        drawn["table_row"] = table
        drawn["round"] = round_
        shown.append(drawn)
    return shown


def _live_context() -> dict[str, Any]:
    running = list(
        Tournament.objects.filter(status=Tournament.Status.RUNNING)
        .select_related("club")
        .order_by("-created_at", "id")
    )
    live = []
    for index, tournament in enumerate(running):
        follow = index < HOME_TOURNAMENTS
        tables = _running_tables(tournament, HOME_TABLES) if follow else []
        live.append(
            {
                "tournament": tournament,
                "game_name": queries.game_name(tournament.game),
                "followed": follow,
                "hidden": tables is None,
                "tables": tables or [],
                "stream_url": tournament_stream_url(tournament) if follow else "",
                "stream_key": reverse("api:tournament-stream", args=[tournament.pk]),
            }
        )
    return {"live": live, "now": timezone.now()}


def home(request: HttpRequest) -> HttpResponse:
    """The club's home: tournaments running (their live tables), coming and finished."""
    if wants_fragment(request):
        return render(request, "fragments/live.html", _live_context())
    games = [
        {
            "id": g.id,
            "name": queries.game_name(g.id),
            "players": f"{g.min_seats}–{g.max_seats}",
            "cards": len(g.deck),
            "series": g.default_series,
            "series_text": series_text(g.default_series.to_json()),
            "doc": (g.__doc__ or "").strip().splitlines()[0] if g.__doc__ else "",
        }
        for g in all_games()
    ]
    tournaments = Tournament.objects.select_related("club").order_by("-created_at", "-id")
    coming = [t for t in tournaments if t.status == Tournament.Status.REGISTRATION]
    finished = [t for t in tournaments if t.status == Tournament.Status.FINISHED][:20]
    for t in [*coming, *finished]:
        t.game_name = queries.game_name(t.game)  # type: ignore[attr-defined]
    counts = dict(
        Registration.objects.filter(tournament__in=coming, dropped_after__isnull=True)
        .values("tournament")
        .annotate(n=Count("id"))
        .values_list("tournament", "n")
    )
    for t in coming:
        t.entries = counts.get(t.pk, 0)  # type: ignore[attr-defined]
    context = {
        "games": games,
        "coming": coming,
        "finished": finished,
        "clubs": Club.objects.all(),
        "first_run": services.needs_first_run(),
        **_live_context(),
    }
    return render(request, "home.html", context)


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and compose health checks."""
    sql.ping()
    return JsonResponse({"status": "ok"})
