"""A player's page: their tables, their games, their rating history per game."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext

from tournaments.models import Game, Player, Registration
from tournaments.services import queries
from tournaments.services.access import visible_games
from tournaments.templatetags.tables import result_text
from tournaments.web.common import seat_info


def player_detail(request: HttpRequest, player_id: int) -> HttpResponse:
    """A player: their games, their results at each table, their rating history per game."""
    player = get_object_or_404(Player.objects.select_related("club", "user"), pk=player_id)
    # As the API lists games: a duplicate round's that the reader may not see are left out
    # (their links answered 403; a summary's turn, move by move, would tell the twin table).
    played = Game.objects.filter(table__seats__player=player)
    games = list(visible_games(request.user, played).order_by("-id").distinct()[:50])
    rows = []
    for game in games:
        info = seat_info(game)
        seat = next((i for i, s in enumerate(info) if s.get("player") == player.pk), None)
        rows.append(
            {
                "game": game,
                "seat": seat,
                "game_name": queries.game_name(game.kind),
                "text": result_text(game.kind, game.result, list(game.players))
                if game.is_over
                else gettext("playing"),
            }
        )
    mine = request.user.is_authenticated and player.user_id == request.user.pk
    return render(
        request,
        "player.html",
        {
            "player": player,
            "results": queries.player_table_results(player),
            "games": rows,
            "ratings": queries.rating_history(player),
            "mine": mine,
            "tournaments": Registration.objects.filter(player=player)
            .select_related("tournament")
            .order_by("-tournament__created_at"),
        },
    )
