"""A finished game move by move: every card shown, or as one seat saw it."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext

from engine.contract import said
from tournaments.play import is_revealed
from tournaments.services import queries
from tournaments.templatetags.tables import present, result_text, story
from tournaments.web.common import context_numbers, seat_info, visible_game, wants_fragment


def _seat(request: HttpRequest, seats: int) -> int | None:
    """``?seat=N`` (counted from 1, as the page shows seats): the seat whose point of view
    the replay follows, ``None`` for every card; :class:`ValueError` for anything else."""
    given = request.GET.get("seat", "")
    if given in ("", "all"):
        return None
    if not given.isdecimal() or not 1 <= int(given) <= seats:
        raise ValueError(
            gettext(
                "There is no seat %(seat)s at this game: choose a seat from 1 to %(seats)s,"
                " or every card."
            )
            % {"seat": said(given[:20]), "seats": seats}
        )
    return int(given) - 1


def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game move by move, every card shown -- or, with ``?seat=N``, as seat N
    saw it (its own cards, each move as it was shown to it: nothing it could not see).

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
    try:
        seat = _seat(request, game.seats)
    except ValueError as error:
        return render(
            request,
            "replay_bad_seat.html",
            {"game": game, "game_name": queries.game_name(game.kind), "message": str(error)},
            status=400,
        )
    view, events = queries.replay(game, move, seat)
    players = list(game.players)
    moves = [
        {"number": i, "event": e, "text": story(game.kind, e, players)}
        for i, e in enumerate(events)
    ]
    table = present(game.kind, view, players, me=seat, seat_info=seat_info(game))
    # The seat followed is at the bottom with its cards, but it is not the reader's own.
    table["point_of_view"] = seat is not None
    context = {
        "seat": seat,
        # Carried by every link of the page, so that a step keeps the point of view.
        "seat_query": "" if seat is None else f"seat={seat + 1}&",
        "seat_choices": [(s + 1, name) for s, name in enumerate(players)],
        "seat_name": players[seat] if seat is not None and seat < len(players) else "",
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
