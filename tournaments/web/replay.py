"""A finished game move by move, every card shown."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from tournaments.play import is_revealed
from tournaments.services import queries
from tournaments.templatetags.tables import present, result_text, story
from tournaments.web.common import context_numbers, seat_info, visible_game, wants_fragment


def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game move by move, every card shown.

    ``?move=N`` (0 is the deal) opens move N; the script also follows ``#move-N``.
    """
    game, _ = visible_game(request, game_id)
    if not game.is_over or not is_revealed(game):
        return render(
            request,
            "replay_running.html",
            {"game": game, "game_name": queries.game_name(game.kind), "twins": game.is_over},
            status=409,
        )
    total = game.sequence - 1
    try:
        move = int(request.GET.get("move", total))
    except ValueError:
        move = total
    move = min(max(move, 0), total)
    view, events = queries.replay(game, move)
    players = list(game.players)
    moves = [
        {"number": i, "event": e, "text": story(game.kind, e, players)}
        for i, e in enumerate(events)
    ]
    table = present(game.kind, view, players, seat_info=seat_info(game))
    context = {
        "game": game,
        "game_name": queries.game_name(game.kind),
        "tournament": queries.tournament_of(game),
        "table": table,
        "move": move,
        "total": total,
        "moves": moves,
        "current": moves[move],
        "result_text": result_text(game.kind, game.result, players),
        "record_url": reverse("api:game-record", args=[game.pk]),
        **context_numbers(game),
    }
    if wants_fragment(request):
        return render(request, "fragments/replay.html", context)
    return render(request, "replay.html", context)
