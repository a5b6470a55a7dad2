"""A seated player's page, and the actions posted from it.

The play page posts a seat's action to :func:`game_act`, a thin view over
:func:`tournaments.play.submit_action` (a form with the CSRF token; the script
sends the same form with ``fetch``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from engine.contract import IllegalAction
from tournaments.api.pagination import read_whole_number
from tournaments.api.parsers import load_json
from tournaments.models import Game, TableSeat
from tournaments.play import Conflict, IdempotencyKeyReused, keys, submit_action
from tournaments.services import queries
from tournaments.services.access import game_access, hidden_twin
from tournaments.templatetags.tables import action_choices
from tournaments.web.common import (
    context_numbers,
    is_fetch,
    live_table,
    log,
    series_text,
    wants_fragment,
)
from tournaments.words import refusal
from tournaments.workers import clock


def _play_context(request: HttpRequest, game: Game, seat: int) -> dict[str, Any]:
    drawn = live_table(game, viewer=seat)
    choices = action_choices(game.kind, drawn["view"], list(game.players))
    table_seat = None
    if game.table_id is not None:
        table_seat = TableSeat.objects.filter(table_id=game.table_id, seat=seat).first()
    next_game = None
    if game.is_over and game.table_id is not None:
        later = (
            Game.objects.filter(
                table_id=game.table_id, number_in_series__gt=game.number_in_series or 0
            )
            .order_by("number_in_series")
            .first()
        )
        next_game = later
    tournament = queries.tournament_of(game)
    return {
        "game": game,
        "game_name": queries.game_name(game.kind),
        "tournament": tournament,
        "series_text": series_text(tournament.series) if tournament else "",
        "forced_for_me": _forced_for(game, seat),
        "drawn": drawn,
        "seat": seat,
        "choices": choices,
        "log": log(game, seat),
        "handed_to_bot": bool(table_seat and table_seat.autoplay),
        "deadline": (game.deadlines or {}).get(str(seat)),
        # The clock of the deal's first turn holds the tournament's time to arrive.
        "grace_seconds": tournament.first_turn_grace
        if tournament and game.sequence == 1 and game.turn_seconds
        else 0,
        "waiting_names": [
            list(game.players)[s] for s in game.waiting_for or [] if s < len(game.players)
        ],
        "next_game": next_game,
        "now": timezone.now(),
        **context_numbers(game),
    }


def _forced_for(game: Game, seat: int) -> bool:
    """Whether the server is about to play ``seat``'s forced move."""
    from tournaments.workers.autoplay import next_forced_move

    forced = next_forced_move(game)
    return forced is not None and forced[0] == seat


def _my_seat(request: HttpRequest, game: Game) -> int:
    """The caller's seat; a game they may not even look at is not found (no probing of ids)."""
    access = game_access(request.user, game)
    if access is None:
        hidden = hidden_twin(game)
        if hidden is not None:
            raise PermissionDenied(hidden)
        raise Http404(f"there is no game {game.pk}")
    if access.seat is None:
        raise PermissionDenied(
            gettext("You do not sit at this table: log in as one of its players to play.")
        )
    return access.seat


@login_required
def game_play(request: HttpRequest, game_id: int) -> HttpResponse:
    """A seated player's page: their hand, their legal actions, the clock, the table live."""
    game = get_object_or_404(Game, pk=game_id)
    seat = _my_seat(request, game)
    context = _play_context(request, game, seat)
    if wants_fragment(request):
        return render(request, "fragments/play.html", context)
    return render(request, "play.html", context)


@require_POST
@login_required
def game_act(request: HttpRequest, game_id: int) -> HttpResponse:
    """Make the posted ``action`` (JSON) for the caller's seat, seen at ``sequence``.

    A form post answers with a redirect to the play page (and a message on a
    refusal); the script's ``fetch`` gets JSON ``{"ok", "message", "sequence"}``.
    """
    game = get_object_or_404(Game, pk=game_id)
    seat = _my_seat(request, game)
    sequence = game.sequence
    try:
        action = load_json(request.POST.get("action", ""))
        if not isinstance(action, dict):
            raise ValueError("an action is a JSON object")
    except ValueError:
        message = gettext("That was not an action: choose one of the buttons.")
        return _answer(request, game, message, 400, sequence)
    try:
        # The API's rule for a number sent as text: a sequence no game can be at is a wrong
        # form (a 400), not a game that moved on (a 409: Python's int() took "-1" and "+3").
        expected = read_whole_number(request.POST.get("sequence", ""))
    except ValueError as error:
        message = gettext(
            "The form's sequence is wrong: it takes %(refusal)s. Reload the page and choose again."
        ) % {"refusal": error}
        return _answer(request, game, message, 400, sequence)
    message, status = "", 200
    try:
        sequence = _submit(game.pk, seat, action, expected)
    except IllegalAction as error:
        # A type no button sends is no action of this page: its refusal lists the API's
        # action types, words for programs.  So is a seat or a position no button sends:
        # the rules' words count them from 0, where the page counts from 1.
        if error.field == "type" or _counts_from_zero(error):
            message = gettext("That was not an action: choose one of the buttons.")
        else:
            message = gettext("Not allowed: %(reason)s") % {"reason": refusal(error)}
        status = 400
    except Conflict:
        message = gettext("The game moved on before your move arrived: choose again.")
        status = 409
    except IdempotencyKeyReused:
        message, status = gettext("That move was already sent."), 409
    return _answer(request, game, message, status, sequence)


def _answer(
    request: HttpRequest, game: Game, message: str, status: int, sequence: int
) -> HttpResponse:
    """The answer to a posted action: JSON for the script's ``fetch``, or a redirect to the
    play page with ``message`` (a refusal) for a form."""
    if is_fetch(request):
        return JsonResponse(
            {"ok": status == 200, "message": message, "sequence": sequence}, status=status
        )
    if message:
        messages.error(request, message)
    return redirect("game-play", game_id=game.pk)


#: The places of the rules' refusals that hold a seat, a position or a foundation,
#: counted from 0.
_FROM_ZERO = frozenset(
    {"seat", "seats", "offerer", "drawer", "turn", "leader", "capturer", "index", "last"}
    | {"k", "slot", "slots"}
)


def _counts_from_zero(error: IllegalAction) -> bool:
    """Whether a refusal names a seat or a position as the API does, from 0."""
    return error.field in ("seat", "index") or not _FROM_ZERO.isdisjoint(error.phrase.params)


def _submit(game_id: int, seat: int, action: Mapping[str, Any], expected: int) -> int:
    """Submit a seat's action through the game service; the new sequence.

    The idempotency key names the seat, the sequence seen and the action, so a
    double click (or a retried post) stores the move once.
    """
    result = submit_action(
        game_id,
        seat,
        action,
        expected_sequence=expected,
        idempotency_key=keys.web_key(seat, expected, action),
        cause_kind="seat",
    )
    return result.sequence


@require_POST
@login_required
def take_back_seat(request: HttpRequest, game_id: int) -> HttpResponse:
    """A player takes back their seat from the bot that played it after their timeouts."""
    game = get_object_or_404(Game, pk=game_id)
    seat = _my_seat(request, game)
    try:
        clock.take_back_seat(game, request.user, seat=seat)
        messages.success(request, gettext("Your seat is yours again: the bot stops playing it."))
    except (PermissionDenied, TableSeat.DoesNotExist, ValueError) as error:
        messages.error(request, str(error))
    return redirect("game-play", game_id=game.pk)
