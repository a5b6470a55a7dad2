"""The organiser's pages: create a tournament, its desk, and the commands posted from it.

Organiser pages post to :func:`tournament_command`, which calls the use cases of
:mod:`tournaments.services` (or :mod:`tournaments.services.desk` for those of several steps)
and reports their errors as they say them.  The destructive ones (drop, seat again, give a
seat back, withdraw, forfeit…) are not here: they ask first (:mod:`tournaments.web.corrections`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from tournaments import services
from tournaments.forms import (
    NewPlayerForm,
    RegisterForm,
    ReseatForm,
    StartRoundForm,
    SwapForm,
    TournamentForm,
)
from tournaments.models import (
    Absence,
    CheckIn,
    Club,
    Game,
    Player,
    Round,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.services import desk, queries
from tournaments.services.access import hidden_tables, organised_clubs
from tournaments.web.common import (
    game_defaults,
    series_text,
    tournament_stream_url,
    wants_fragment,
)
from tournaments.web.corrections import corrections_context, seated_round


def _require_organiser(request: HttpRequest, club: Club) -> None:
    if not services.is_organiser(request.user, club):
        raise PermissionDenied(
            _("Only the organisers of %(club)s may do this.") % {"club": club.name}
        )


@login_required
def tournament_create(request: HttpRequest) -> HttpResponse:
    """An organiser creates a tournament of one of their clubs."""
    clubs = organised_clubs(request.user)
    if not clubs.exists():
        raise PermissionDenied(_("You organise no club: ask an administrator to add you."))
    form = TournamentForm(request.POST or None, clubs=clubs)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = services.create_tournament(data["club"], **form.service_arguments())
        except services.ServiceError as error:
            form.add_service_error(error)
        else:
            messages.success(
                request, _("%(name)s is open for registration.") % {"name": tournament.name}
            )
            return redirect("tournament-manage", tournament_id=tournament.pk)
    return render(request, "organise/create.html", {"form": form, "defaults": game_defaults()})


def _manage_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    next_number = services.next_round_number(tournament)
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    last = rounds[-1] if rounds else None
    registrations = list(queries.registrations_of(tournament))
    checked = set(
        CheckIn.objects.filter(tournament=tournament, round_number=next_number).values_list(
            "player_id", flat=True
        )
    )
    # Marked absent for the next round: not checked in, a bot included (a bot showed as
    # checked in, as bots are, after its absence was confirmed: found by trying).
    absent = set(
        Absence.objects.filter(tournament=tournament, round_number=next_number).values_list(
            "player_id", flat=True
        )
    )
    seated_round = last if last is not None and last.status == Round.Status.SEATED else None
    round_players: list[Player] = []
    if seated_round is not None:
        round_players = [
            ts.player
            for ts in TableSeat.objects.filter(table__round=seated_round).select_related("player")
        ] + list(Player.objects.filter(pk__in=seated_round.byes))
        round_players.sort(key=lambda p: p.name)
    running_games = list(
        Game.objects.filter(
            table__round__tournament=tournament, status=Game.Status.RUNNING
        ).select_related("table__round")
    )
    # A duplicate round's other tables, for an organiser who plays in it (services.access).
    hidden = hidden_tables(request.user, tournament)
    clocks = []
    for game in running_games:
        if game.table_id in hidden:
            continue
        for seat_key, due in sorted((game.deadlines or {}).items()):
            seat_number = int(seat_key)
            clocks.append(
                {
                    "game": game,
                    "seat": seat_number,
                    "name": list(game.players)[seat_number]
                    if seat_number < len(game.players)
                    else seat_key,
                    "deadline": due,
                }
            )
    troubled = list(
        TableSeat.objects.filter(table__round__tournament=tournament)
        .filter(Q(autoplay=True) | Q(timeouts_in_a_row__gt=0))
        # The seats in trouble now: a finished table's stayed listed for the rest of the
        # evening, every earlier round's bot (found by trying); its timeouts stay below.
        .exclude(table__status=Table.Status.FINISHED)
        .exclude(table_id__in=hidden)
        .select_related("player", "table__round")
    )
    registered_ids = {r.player_id for r in registrations}
    return {
        "tournament": tournament,
        "game_name": queries.game_name(tournament.game),
        "series_text": series_text(tournament.series),
        "next_number": next_number,
        "rounds": queries.rounds_overview(tournament, request.user),
        "last_round": last,
        "seated_round": seated_round,
        "registrations": registrations,
        "checked": checked,
        "absent": absent,
        "register_form": RegisterForm(
            players=Player.objects.filter(club=tournament.club)
            .exclude(pk__in=registered_ids)
            .order_by("name")
        ),
        "new_player_form": NewPlayerForm(game=tournament.game),
        "start_form": StartRoundForm(),
        "swap_form": SwapForm(players=round_players) if round_players else None,
        "reseat_form": ReseatForm(players=round_players) if round_players else None,
        # A round left to check in for, or to be absent from (the last one playing: none).
        "rounds_left": next_number <= tournament.rounds,
        # Between rounds only: before round 1 begins a player is withdrawn (Corrections).
        "drops_open": next_number > 1 and not any(r.status == Round.Status.PLAYING for r in rounds),
        # The dropped players whose drop may still be taken back: no round begun since it,
        # and the tournament not finished (check_take_back_drop's rule, which the question
        # asks again; read here from what the desk has, as it polls every second).
        "returnable": set()
        if tournament.status == Tournament.Status.FINISHED
        else {
            r.player_id
            for r in registrations
            if r.dropped_after is not None and r.dropped_after + 1 >= next_number
        },
        "clocks": clocks,
        "clocks_hidden": bool(hidden),
        "timeouts": queries.recent_timeouts(tournament, hidden=hidden),
        "troubled": troubled,
        "now": timezone.now(),
        "can_start": tournament.status != Tournament.Status.FINISHED
        and len(rounds) < tournament.rounds
        and (last is None or last.status == Round.Status.FINISHED),
        "stream_url": tournament_stream_url(tournament)
        if tournament.status == Tournament.Status.RUNNING
        else "",
        "stream_key": reverse("api:tournament-stream", args=[tournament.pk]),
        # Issue 20's undo and edit: the "Corrections" block (tournaments/web/corrections.py).
        **corrections_context(tournament),
        **_stranding_context(request, tournament, seated_round),
    }


def _stranding_context(
    request: HttpRequest, tournament: Tournament, seated_round: Round | None
) -> dict[str, Any]:
    """Nobody stranded (issue 20): who seating would leave out, who came late to a seating."""
    confirming = request.GET.get("confirm-seating") == "1" and seated_round is None
    return {
        "seating_check": services.unchecked_players(tournament) if confirming else None,
        "late_players": services.late_players(seated_round) if seated_round else [],
    }


@login_required
def tournament_manage(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The organiser's desk: registrations, check-in, rounds and seating, drops, timeouts."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    _require_organiser(request, tournament.club)
    context = _manage_context(request, tournament)
    if wants_fragment(request):
        return render(request, "fragments/manage_live.html", context)
    return render(request, "organise/manage.html", context)


#: A command answers with its message, or (a confirmation step) with a page to go to.
Command = Callable[[HttpRequest, Tournament], str | HttpResponseBase]


def _posted_player(request: HttpRequest, tournament: Tournament, name: str = "player") -> Player:
    raw = request.POST.get(name, "")
    if not raw.isdecimal():
        # The field names the input at fault for programs; a person is asked to choose.
        raise services.ServiceError(_("choose a player"), name)
    return _club_player(tournament, int(raw))


def _club_player(tournament: Tournament, player_id: int) -> Player:
    player = Player.objects.filter(pk=player_id, club=tournament.club).first()
    if player is None:
        raise services.ServiceError(
            _("%(club)s has no player %(id)s") % {"club": tournament.club, "id": player_id},
            "player",
        )
    return player


def _cmd_register(request: HttpRequest, tournament: Tournament) -> str:
    form = RegisterForm(
        request.POST, players=Player.objects.filter(club=tournament.club).order_by("name")
    )
    if not form.is_valid():
        raise services.ServiceError(_("choose the players to register"), "players")
    chosen = desk.register_players(tournament, form.cleaned_data["players"])
    return _("Registered %(names)s.") % {"names": ", ".join(p.name for p in chosen)}


def _label(form: forms.Form, name: str) -> str:
    """``"Label: "`` of a form's field, as the page shows it; ``""`` for the whole form."""
    found = form.fields.get(name)
    return f"{found.label}: " if found is not None and found.label else ""


def _cmd_add_player(request: HttpRequest, tournament: Tournament) -> str:
    form = NewPlayerForm(request.POST, game=tournament.game)
    if not form.is_valid():
        # Each field by its label, as the form shows it (not its name in the code).
        errors = "; ".join(
            _label(form, name) + " ".join(str(e) for e in found)
            for name, found in form.errors.items()
        )
        raise services.ServiceError(
            _("the new player is not right (%(errors)s)") % {"errors": errors}, "name"
        )
    player = desk.add_and_register(
        tournament, form.cleaned_data["name"], bot_level=form.cleaned_data["bot_level"]
    )
    return _("Added %(name)s to %(club)s and registered them.") % {
        "name": player.name,
        "club": tournament.club,
    }


def _cmd_check_in(request: HttpRequest, tournament: Tournament) -> str:
    player = _posted_player(request, tournament)
    found = services.check_in(tournament, player)
    return _checked_in_text(tournament, player, found.round_number)


def _checked_in_text(tournament: Tournament, player: Player, number: int) -> str:
    """The check-in message; for a round seated already, how to seat the late player."""
    seated = Round.objects.filter(
        tournament=tournament, number=number, status=Round.Status.SEATED
    ).first()
    if seated is not None and player.pk in {p.pk for p in services.late_players(seated)}:
        return _(
            "%(name)s is checked in for round %(number)s but not seated:"
            " press Seat %(name)s to give them a seat before the round begins."
        ) % {"name": player.name, "number": number}
    return _("%(name)s is checked in for round %(number)s.") % {
        "name": player.name,
        "number": number,
    }


def _cmd_check_in_all(request: HttpRequest, tournament: Tournament) -> str:
    number, done = desk.check_in_all(tournament)
    return ngettext(
        "Checked in %(count)d player for round %(number)s.",
        "Checked in %(count)d players for round %(number)s.",
        len(done),
    ) % {"count": len(done), "number": number}


def _cmd_start_round(request: HttpRequest, tournament: Tournament) -> str | HttpResponseBase:
    form = StartRoundForm(request.POST)
    auto = form.is_valid() and bool(form.cleaned_data.get("auto_check_in"))
    # Nobody left out unawares (issue 20): without auto check-in, a seating that would
    # leave registered people out asks first, unless this post is that answer.
    if not auto and request.POST.get("confirm") != "1" and services.unchecked_players(tournament):
        url = reverse("tournament-manage", args=[tournament.pk])
        return redirect(f"{url}?confirm-seating=1#seating-check")
    round_ = services.start_round(tournament, auto_check_in=auto)
    return _("Round %(number)s is seated: check the seating, adjust it, then begin it.") % {
        "number": round_.number
    }


def _cmd_seat_late(request: HttpRequest, tournament: Tournament) -> str:
    """Seat the late check-ins of the seated round (or the one posted) without moving others."""
    round_ = seated_round(tournament)
    player = _posted_player(request, tournament) if request.POST.get("player") else None
    where = services.seat_late(round_, player)
    return " ".join(
        _("%(name)s is seated at table %(table)s of round %(number)s.")
        % {"name": name, "table": table, "number": round_.number}
        if table is not None
        else _(
            "%(name)s has a bye in round %(number)s: no table has room and too few"
            " are waiting for a new one."
        )
        % {"name": name, "number": round_.number}
        for name, table in where.items()
    )


def _cmd_swap(request: HttpRequest, tournament: Tournament) -> str:
    round_ = seated_round(tournament)
    a = _posted_player(request, tournament, "a")
    b = _posted_player(request, tournament, "b")
    services.swap_players(round_, a, b)
    return _("Swapped %(a)s and %(b)s in round %(number)s.") % {
        "a": a.name,
        "b": b.name,
        "number": round_.number,
    }


def _cmd_begin_round(request: HttpRequest, tournament: Tournament) -> str:
    round_ = services.begin_round(seated_round(tournament))
    return _("Round %(number)s has begun: the first deals are on the tables.") % {
        "number": round_.number
    }


COMMANDS: dict[str, Command] = {
    "register": _cmd_register,
    "add-player": _cmd_add_player,
    "check-in": _cmd_check_in,
    "check-in-all": _cmd_check_in_all,
    "start-round": _cmd_start_round,
    "swap": _cmd_swap,
    "begin-round": _cmd_begin_round,
    "seat-late": _cmd_seat_late,
}


@require_POST
@login_required
def tournament_command(request: HttpRequest, tournament_id: int, command: str) -> HttpResponseBase:
    """One organiser action (``COMMANDS``) on a tournament; back to the organiser's desk."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    _require_organiser(request, tournament.club)
    handler = COMMANDS.get(command)
    if handler is None:
        raise Http404(f"there is no organiser command {command!r}")
    try:
        answer = handler(request, tournament)
        if isinstance(answer, HttpResponseBase):
            return answer
        messages.success(request, answer)
    except services.ServiceError as error:
        messages.error(request, error.message)
    except PermissionDenied as error:
        messages.error(request, str(error))
    return redirect("tournament-manage", tournament_id=tournament.pk)
