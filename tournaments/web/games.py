"""One game as a spectator sees it, live while it runs."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from tournaments.services import queries
from tournaments.web.common import (
    context_numbers,
    live_table,
    log,
    series_text,
    visible_game,
    wants_fragment,
)


def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    """One game as a spectator sees it, live while it runs; all cards once it is over."""
    game, access = visible_game(request, game_id)
    tournament = queries.tournament_of(game)
    context = {
        "game": game,
        "game_name": queries.game_name(game.kind),
        "tournament": tournament,
        "series_text": series_text(tournament.series) if tournament else "",
        "drawn": live_table(game),
        "log": log(game, None),
        "my_seat": access.seat,
        **context_numbers(game),
    }
    if wants_fragment(request):
        return render(request, "fragments/game.html", context)
    return render(request, "game.html", context)
