"""A tournament's page (rounds, seatings, live standings with a chart) and a table's page."""

from __future__ import annotations

import csv
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseNotAllowed,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods

from engine.series import SeriesFormat
from engine.series import scores as series_scores
from tournaments import services
from tournaments.models import CheckIn, Game, Player, Registration, Table, TableSeat, Tournament
from tournaments.services import queries
from tournaments.services.access import game_access, hidden_twin
from tournaments.templatetags.charts import points as points_text
from tournaments.templatetags.tables import result_text
from tournaments.web.common import (
    live_table,
    log,
    series_text,
    tournament_stream_url,
    wants_fragment,
)


def _tournament_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    numbers, finished, rows = queries.standings_rows(tournament)
    live = tournament.status == Tournament.Status.RUNNING
    done = tournament.status == Tournament.Status.FINISHED
    return {
        "podium": queries.podium(rows) if done else [],
        "tournament": tournament,
        "game_name": queries.game_name(tournament.game),
        "series_text": series_text(tournament.series),
        "rounds": queries.rounds_overview(tournament, request.user),
        "round_numbers": numbers,
        "standings": rows,
        "chart_rounds": finished,
        "live": live,
        "stream_url": tournament_stream_url(tournament) if live else "",
        "stream_key": reverse("api:tournament-stream", args=[tournament.pk]),
        "organiser": services.is_organiser(request.user, tournament.club),
        "registrations": queries.registrations_of(tournament),
    }


def _my_entry(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """What the logged-in player may do themselves: register, withdraw, check in."""
    if not request.user.is_authenticated or tournament.status == Tournament.Status.FINISHED:
        return {"me": None}
    user = request.user
    assert isinstance(user, User)  # authenticated
    me = Player.objects.filter(club=tournament.club, user=user).first()
    if me is None:
        return {"me": None}
    registration = Registration.objects.filter(tournament=tournament, player=me).first()
    number = services.next_round_number(tournament)
    active = registration is not None and registration.dropped_after is None
    return {
        "me": me,
        "my_registration": registration,
        "my_active": active,
        "my_round": number,
        "my_rounds_left": number <= tournament.rounds,
        "my_checked_in": active
        and CheckIn.objects.filter(tournament=tournament, player=me, round_number=number).exists(),
    }


def _withdraw_question(tournament: Tournament, me: Player) -> str:
    if services.next_round_number(tournament) == 1:
        question = gettext(
            "Withdraw from %(tournament)s? Your registration is deleted: you leave the"
            " standings, and you can register again while round 1 has not begun."
        )
    else:
        question = gettext(
            "Withdraw from %(tournament)s? Round 1 has begun, so you drop out: your results"
            " stay, marked dropped, and you are not seated again."
        )
    return question % {"tournament": tournament.name}


@require_http_methods(["GET", "POST"])
@login_required
def tournament_my_entry(request: HttpRequest, tournament_id: int, action: str) -> HttpResponseBase:
    """A player registers, withdraws or checks in for the next round themselves.

    Withdrawing asks first: its GET is the question (a plain form, no JavaScript needed),
    its POST withdraws.  The others are POSTs only.
    """
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    user = request.user
    assert isinstance(user, User)  # login_required
    if request.method == "GET" and action != "withdraw":
        return HttpResponseNotAllowed(["POST"])
    me = Player.objects.filter(club=tournament.club, user=user).first()
    if me is None:
        messages.error(
            request,
            gettext("Your login plays for no one in %(club)s: ask an organiser.")
            % {"club": tournament.club},
        )
        return redirect("tournament", tournament_id=tournament.pk)
    if request.method == "GET":
        entered = Registration.objects.filter(
            tournament=tournament, player=me, dropped_after__isnull=True
        ).exists()
        if not entered:
            messages.error(
                request,
                gettext("You are not registered in %(tournament)s.")
                % {"tournament": tournament.name},
            )
            return redirect("tournament", tournament_id=tournament.pk)
        try:
            services.check_withdrawal(tournament, me)  # a round playing: refused now
        except services.ServiceError as error:
            messages.error(request, error.message)
            return redirect("tournament", tournament_id=tournament.pk)
        return render(
            request,
            "organise/confirm.html",
            {
                "tournament": tournament,
                "question": _withdraw_question(tournament, me),
                "button": gettext("Withdraw"),
                "hidden": [],
                "back": reverse("tournament", args=[tournament.pk]),
            },
        )
    names = {"tournament": tournament.name}
    try:
        if action == "register":
            services.register(tournament, me)
            text = gettext("You are registered in %(tournament)s.") % names
        elif action == "withdraw":
            kept = services.withdraw(tournament, me)
            text = (
                gettext("You have withdrawn from %(tournament)s.")
                if kept is None
                else gettext("You have dropped out of %(tournament)s; your results stay.")
            ) % names
        elif action == "check-in":
            found = services.check_in(tournament, me)
            text = gettext("You are checked in for round %(number)s.") % {
                "number": found.round_number
            }
        else:
            raise Http404(f"there is no entry action {action!r}")
    except services.ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, text)
    return redirect("tournament", tournament_id=tournament.pk)


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A tournament: its rounds and seatings, live standings with points per round, a chart."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    context = _tournament_context(request, tournament)
    if wants_fragment(request):
        return render(request, "fragments/tournament.html", context)
    return render(request, "tournament.html", {**context, **_my_entry(request, tournament)})


#: What a table's series counts, by the series' kind (engine/series.py).
SCORE_LABELS = {
    "first_to": gettext_lazy("round wins"),
    "losses": gettext_lazy("losses"),
    "place_points": gettext_lazy("points"),
}


def _series_context(table: Table) -> dict[str, Any]:
    games = list(Game.objects.filter(table=table).order_by("number_in_series", "id"))
    seats = list(TableSeat.objects.filter(table=table).select_related("player"))
    tournament = table.round.tournament
    fmt = SeriesFormat.from_json(tournament.series)
    results = [g.result for g in games if g.is_over and g.result]
    totals = series_scores(fmt, results, len(seats)) if seats else []
    rows = [
        {
            "game": g,
            "text": result_text(g.kind, g.result, list(g.players))
            if g.is_over
            else gettext("playing"),
        }
        for g in games
    ]
    score_label = SCORE_LABELS[fmt.kind]
    scores = []
    for i, seat in enumerate(seats):
        value = totals[i] if i < len(totals) else 0
        if fmt.kind == "losses":
            value = abs(value)
        scores.append({"seat": seat, "value": points_text(value)})
    return {
        "games": rows,
        "seats": seats,
        "scores": scores,
        "score_label": score_label,
        "series_text": series_text(tournament.series),
    }


def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    """A tournament table: its series so far and its current game, live as a spectator sees it."""
    table = get_object_or_404(Table.objects.select_related("round__tournament__club"), pk=table_id)
    game = queries.current_game(table)
    context: dict[str, Any] = {
        "table_row": table,
        "tournament": table.round.tournament,
        "round": table.round,
        "game_name": queries.game_name(table.round.tournament.game),
        **_series_context(table),
    }
    access = None if game is None else game_access(request.user, game)
    if game is not None and access is None:
        # A duplicate deal while its round runs: its players and the organisers alone.
        context["hidden"] = hidden_twin(game)
    elif game is not None and access is not None:
        context["drawn"] = live_table(game)
        context["log"] = log(game, None)
        context["my_seat"] = access.seat
    if wants_fragment(request):
        return render(request, "fragments/table.html", context)
    return render(request, "table.html", context)


def standings_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings as CSV: names, points, tie-breaks, forfeit marks (a spreadsheet's)."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    slug = slugify(tournament.name) or f"tournament-{tournament.pk}"
    response["Content-Disposition"] = f'attachment; filename="{slug}-standings.csv"'
    # A byte order mark first: Excel reads a CSV without one in the system's code page, and
    # showed every Cyrillic name garbled (found by trying).  Programs read it as utf-8-sig.
    response.write("\ufeff")
    csv.writer(response).writerows(queries.standings_csv_rows(tournament))
    return response


def tournament_projector(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The projector: the current round's seating, the standings, the clock; no controls.

    The same live fragment mechanism as the tournament page (``?fragment=1``).
    """
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    context = _tournament_context(request, tournament)
    context["current"] = context["rounds"][0] if context["rounds"] else None  # newest first
    context["between_rounds"] = queries.between_rounds(tournament)
    if wants_fragment(request):
        return render(request, "fragments/projector.html", context)
    return render(request, "projector.html", context)
