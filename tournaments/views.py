"""Server-rendered pages."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from engine.registry import all_games


def home(request: HttpRequest) -> HttpResponse:
    """The club's home: the games Parlour runs and what is going on."""
    games = [
        {
            "id": g.id,
            "name": g.name,
            "players": f"{g.min_seats}–{g.max_seats}",
            "cards": len(g.deck),
            "series": g.default_series,
            "doc": (g.__doc__ or "").strip().splitlines()[0] if g.__doc__ else "",
        }
        for g in all_games()
    ]
    return render(request, "home.html", {"games": games})


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and compose health checks."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
