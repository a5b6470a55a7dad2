"""The organiser's undo and edit (issue 20): edit or delete a tournament before it starts,
withdraw or drop a registration (and bring a dropped player back), mark a player absent,
forfeit or un-forfeit a series, seat a round again, give a seat back from its bot.

Every destructive action goes through :func:`tournament_confirm`: a GET shows what will
happen and asks (a plain form, no JavaScript); only its POST acts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from tournaments import services
from tournaments.forms import RenameTournamentForm, ReseatForm, TournamentForm
from tournaments.models import Player, Round, Table, TableSeat, Tournament
from tournaments.services import queries
from tournaments.services.access import organised_clubs
from tournaments.web.common import game_defaults
from tournaments.workers import clock

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def _organised(request: HttpRequest, tournament_id: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    if not services.is_organiser(request.user, tournament.club):
        raise PermissionDenied(
            _("Only the organisers of %(club)s may do this.") % {"club": tournament.club.name}
        )
    return tournament


def _player(tournament: Tournament, raw: str) -> Player:
    found = (
        Player.objects.filter(pk=int(raw), club=tournament.club).first()
        if raw.isdecimal()
        else None
    )
    if found is None:
        raise services.ServiceError(_("choose a player"), "player")
    return found


def _round_number(raw: str) -> int:
    if not raw.isdecimal():
        raise services.ServiceError(_("choose a round"), "round")
    return int(raw)


@dataclass(frozen=True)
class Action:
    """A destructive desk action: the question it asks, and what it does once confirmed."""

    #: The question, from the tournament and the posted or queried fields.
    question: Callable[[Tournament, Any], str]
    #: Does it; returns the message and where to go next.
    perform: Callable[[HttpRequest, Tournament, Any], tuple[str, str]]
    #: A lazy translation: said in the reader's language when the page is drawn.
    button: StrOrPromise
    #: The fields carried from the question to the confirmation.
    fields: tuple[str, ...] = ()


def _desk(tournament: Tournament) -> str:
    return reverse("tournament-manage", args=[tournament.pk])


def _withdraw_question(t: Tournament, data: Any) -> str:
    who = _player(t, data.get("player", ""))
    services.check_withdrawal(t, who)  # refused now (a round playing), not once confirmed
    names = {"player": who.name, "tournament": t.name}
    if services.next_round_number(t) == 1:
        return (
            _(
                "Withdraw %(player)s from %(tournament)s? Their registration is deleted: they leave"
                " the standings, and a seated round 1 is seated again without them."
            )
            % names
        )
    return _(
        "Withdraw %(player)s from %(tournament)s? Round 1 has begun, so they drop out:"
        " they keep their results, marked dropped, and are not seated again. Until round"
        " %(next)s begins you can still bring them back into the tournament."
    ) % {**names, "next": services.next_round_number(t)}


def _withdraw(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    who = _player(t, data.get("player", ""))
    kept = services.withdraw(t, who)
    names = {"player": who.name, "tournament": t.name}
    if kept is None:
        return _("%(player)s is withdrawn from %(tournament)s.") % names, _desk(t)
    return _("%(player)s has dropped out of %(tournament)s.") % names, _desk(t)


def _absent_question(t: Tournament, data: Any) -> str:
    who = _player(t, data.get("player", ""))
    number = services.check_absence(t, who)  # refused now (no round left), not once confirmed
    return _(
        "Mark %(player)s absent for round %(number)s? The round is seated without them"
        " (if it is seated already, it is seated again). Checking them in lifts it."
    ) % {"player": who.name, "number": number}


def _absent(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    who = _player(t, data.get("player", ""))
    absence = services.mark_absent(t, who, by=request.user)
    return _("%(player)s is absent for round %(number)s.") % {
        "player": who.name,
        "number": absence.round_number,
    }, _desk(t)


def _series_of(t: Tournament, data: Any) -> tuple[Player, int]:
    """The player and round number a forfeit's form names (refused in words if either is not)."""
    return _player(t, data.get("player", "")), _round_number(data.get("round", ""))


def _forfeit_question(t: Tournament, data: Any) -> str:
    who, number = _series_of(t, data)
    services.check_decision(t, who, number, True)  # refused now, not once confirmed
    return _(
        "Forfeit %(player)s's series in round %(number)s? It counts as last place at"
        " their table, marked “forfeit” in the standings. You can lift it again."
    ) % {"player": who.name, "number": number}


def _forfeit(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    who, number = _series_of(t, data)
    services.forfeit(t, who, number, by=request.user)
    return _("%(player)s's series in round %(number)s is forfeited.") % {
        "player": who.name,
        "number": number,
    }, _desk(t)


def _unforfeit_question(t: Tournament, data: Any) -> str:
    who, number = _series_of(t, data)
    services.check_decision(t, who, number, False)  # refused now, not once confirmed
    return _(
        "Lift the forfeit of %(player)s's series in round %(number)s? The series then counts"
        " as it was played (a bot's play included)."
    ) % {"player": who.name, "number": number}


def _unforfeit(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    who, number = _series_of(t, data)
    services.unforfeit(t, who, number, by=request.user)
    return _("%(player)s's series in round %(number)s counts as played again.") % {
        "player": who.name,
        "number": number,
    }, _desk(t)


def _delete_question(t: Tournament, data: Any) -> str:
    services.check_deletable(t)  # a started one: refused now, not once confirmed
    count = t.registrations.count()
    return ngettext(
        "Delete %(tournament)s? It has not started; its %(count)d registration"
        " goes with it. This cannot be undone.",
        "Delete %(tournament)s? It has not started; its %(count)d registrations"
        " go with it. This cannot be undone.",
        count,
    ) % {"tournament": t.name, "count": count}


def _delete(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    name = t.name
    services.delete_tournament(t)
    return _("%(tournament)s is deleted.") % {"tournament": name}, reverse("home")


def _droppable(t: Tournament, data: Any) -> Player:
    """The player the drop's form names, if they may be dropped now: the service's one rule
    (:func:`~tournaments.services.check_drop`: not while a round plays, nor before round 1
    has begun, when it is a withdrawal), the API's and the command's too."""
    who = _player(t, data.get("player", ""))
    services.check_drop(t, who)
    return who


def _drop_question(t: Tournament, data: Any) -> str:
    who = _droppable(t, data)
    done = services.next_round_number(t) - 1
    return _(
        "Drop %(player)s from %(tournament)s? They keep their results so far, marked “dropped"
        " after round %(number)s” in the standings, and are not seated again. Until round"
        " %(next)s begins you can still bring them back into the tournament."
    ) % {"player": who.name, "tournament": t.name, "number": done, "next": done + 1}


def _drop(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    who = _droppable(t, data)
    services.drop(t, who)
    return _("%(player)s has dropped out of %(tournament)s.") % {
        "player": who.name,
        "tournament": t.name,
    }, _desk(t)


def _bring_back_question(t: Tournament, data: Any) -> str:
    who = _player(t, data.get("player", ""))
    found = services.check_take_back_drop(t, who)  # refused now, not once confirmed
    number = found.registration.dropped_after or 0
    question = _(
        "Bring %(player)s back into %(tournament)s? Their drop after round %(number)s is"
        " taken back, and the standings no longer mark them dropped."
    ) % {"player": who.name, "tournament": t.name, "number": number}
    return f"{question} {_seated_next(found, number + 1)}"


def _seated_next(found: services.TakeBack, next_number: int) -> str:
    """What taking the drop back does to the next round: seated again with them if it is
    seated already, or why it stays as it is, or that they are seated from it on (one
    sentence: the question said "seated again" beside a reason they were not)."""
    if found.reseated is not None:
        return _(
            "Round %(number)s is seated already: it is seated again with them, and the swaps"
            " made in it are lost."
        ) % {"number": found.reseated}
    if found.left_out is not None:
        return f"{capfirst(found.left_out)}."
    return _("They are seated again from round %(number)s.") % {"number": next_number}


def _bring_back(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    who = _player(t, data.get("player", ""))
    done = services.take_back_drop(t, who)
    said = _("%(player)s is back in %(tournament)s.") % {"player": who.name, "tournament": t.name}
    if done.reseated is not None:
        said += " " + _("Round %(number)s is seated again with them.") % {"number": done.reseated}
    elif done.left_out is not None:
        said += f" {capfirst(done.left_out)}."
    return said, _desk(t)


def seated_round(t: Tournament) -> Round:
    """The tournament's round seated and waiting to begin (a refusal if there is none)."""
    round_ = Round.objects.filter(tournament=t).order_by("-number").first()
    if round_ is None or round_.status != Round.Status.SEATED:
        raise services.ServiceError(_("no round is seated and waiting to begin"), "round")
    return round_


def _reseat_form(t: Tournament, data: Any) -> ReseatForm:
    form = ReseatForm(data, players=Player.objects.filter(club=t.club))
    if not form.is_valid():
        errors = "; ".join(str(e) for errors in form.errors.values() for e in errors)
        raise services.ServiceError(
            _("the round is not seated again: %(errors)s") % {"errors": errors}, "round"
        )
    return form


def _reseat_question(t: Tournament, data: Any) -> str:
    round_ = seated_round(t)
    wishes = _reseat_form(t, data).constraints()
    services.check_reseat(round_, **wishes)  # refused now, not once confirmed
    names = dict(Player.objects.filter(club=t.club).values_list("pk", "name"))
    kept = [
        _("%(a)s and %(b)s kept apart") % {"a": names[a], "b": names[b]} for a, b in wishes["apart"]
    ]
    kept += [
        _("%(player)s at table %(table)s") % {"player": names[p], "table": n}
        for p, n in wishes["fixed"].items()
    ]
    if kept:
        return _(
            "Seat round %(number)s again? Every table is drawn anew (%(wishes)s): the seating"
            " shown now, with the swaps made in it, is lost."
        ) % {"number": round_.number, "wishes": ", ".join(kept)}
    return _(
        "Seat round %(number)s again? Every table is drawn anew: the seating shown now, with"
        " the swaps made in it, is lost."
    ) % {"number": round_.number}


def _reseat(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    round_ = services.reseat(seated_round(t), **_reseat_form(t, data).constraints())
    return _("Round %(number)s is seated again.") % {"number": round_.number}, _desk(t)


def _table_seat(t: Tournament, data: Any) -> TableSeat:
    raw = data.get("table_seat", "")
    row = (
        TableSeat.objects.filter(pk=int(raw), table__round__tournament=t)
        .select_related("player", "table")
        .first()
        if raw.isdecimal()
        else None
    )
    if row is None:
        raise services.ServiceError(_("there is no such seat in this tournament"), "table_seat")
    return row


def _handed_seat(t: Tournament, data: Any) -> TableSeat:
    """The posted seat, which a bot plays at a table still in play (else nothing to give)."""
    row = _table_seat(t, data)
    if row.table.status == Table.Status.FINISHED:
        raise services.ServiceError(
            _("table %(table)s has finished: there is no seat to give back")
            % {"table": row.table.number},
            "table_seat",
        )
    if not row.autoplay:
        raise services.ServiceError(
            _("%(player)s plays their own seat: no bot has it") % {"player": row.player.name},
            "table_seat",
        )
    return row


def _take_back_question(t: Tournament, data: Any) -> str:
    row = _handed_seat(t, data)
    return _(
        "Give %(player)s's seat at table %(table)s back? The bot stops playing"
        " it: from the next turn %(player)s plays it, on the clock."
    ) % {"player": row.player.name, "table": row.table.number}


def _take_back(request: HttpRequest, t: Tournament, data: Any) -> tuple[str, str]:
    row = _handed_seat(t, data)
    clock.take_back_seat(row, request.user)
    return _("%(player)s's seat is theirs again.") % {"player": row.player.name}, _desk(t)


ACTIONS: dict[str, Action] = {
    "drop": Action(_drop_question, _drop, gettext_lazy("Drop them"), ("player",)),
    "bring-back": Action(
        _bring_back_question, _bring_back, gettext_lazy("Bring them back"), ("player",)
    ),
    "reseat": Action(
        _reseat_question,
        _reseat,
        gettext_lazy("Seat the round again"),
        ("apart_a", "apart_b", "fixed_player", "fixed_table"),
    ),
    "take-back": Action(
        _take_back_question, _take_back, gettext_lazy("Give the seat back"), ("table_seat",)
    ),
    "withdraw": Action(
        _withdraw_question,
        _withdraw,
        pgettext_lazy("organiser withdraws a player", "Withdraw"),
        ("player",),
    ),
    "absent": Action(_absent_question, _absent, gettext_lazy("Mark absent"), ("player",)),
    "forfeit": Action(
        _forfeit_question, _forfeit, gettext_lazy("Forfeit the series"), ("player", "round")
    ),
    "unforfeit": Action(
        _unforfeit_question, _unforfeit, gettext_lazy("Lift the forfeit"), ("player", "round")
    ),
    "delete": Action(_delete_question, _delete, gettext_lazy("Delete the tournament")),
}


@login_required
def tournament_confirm(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    """Ask before a destructive action (GET); do it once confirmed (POST)."""
    tournament = _organised(request, tournament_id)
    chosen = ACTIONS.get(action)
    if chosen is None:
        raise Http404(f"there is no organiser action {action!r}")
    data = request.POST if request.method == "POST" else request.GET
    try:
        if request.method == "POST":
            message, then = chosen.perform(request, tournament, data)
            messages.success(request, message)
            return redirect(then)
        question = chosen.question(tournament, data)
    except services.ServiceError as error:
        messages.error(request, error.message)
        return redirect("tournament-manage", tournament_id=tournament.pk)
    except PermissionDenied as error:  # a use case's own refusal (the clock's seats)
        messages.error(request, str(error))
        return redirect("tournament-manage", tournament_id=tournament.pk)
    return render(
        request,
        "organise/confirm.html",
        {
            "subject": tournament.name,
            "question": question,
            "button": chosen.button,
            "hidden": [(name, data.get(name, "")) for name in chosen.fields],
            "back": _desk(tournament),
        },
    )


def _initial(tournament: Tournament) -> dict[str, Any]:
    """The edit form's fields from the tournament's settings."""
    series = tournament.series or {}
    return {
        "club": tournament.club_id,
        "name": tournament.name,
        "game": tournament.game,
        "rounds": tournament.rounds,
        "series_kind": series.get("kind", ""),
        "series_target": series.get("target"),
        "series_deal_limit": series.get("deal_limit"),
        "table_min": tournament.table_min,
        "table_max": tournament.table_max,
        "table_preferred": tournament.table_preferred,
        "seating_mode": tournament.seating_mode,
        "turn_seconds": tournament.turn_seconds,
        "timeouts_to_bot": tournament.timeouts_to_bot,
        "duplicate_deals": tournament.duplicate_deals,
        "timeout_forfeits": tournament.timeout_forfeits,
        "first_turn_grace": tournament.first_turn_grace,
    }


@login_required
def tournament_edit(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The create form as an edit form, while no round is seated."""
    tournament = _organised(request, tournament_id)
    if Round.objects.filter(tournament=tournament).exists():
        # Its name alone, which the service allows: the page refused every change once a
        # round was seated, a misspelt name included (found by trying).
        renamed = RenameTournamentForm(request.POST or None, initial={"name": tournament.name})
        if request.method == "POST" and renamed.is_valid():
            try:
                services.update_tournament(tournament, name=renamed.cleaned_data["name"])
            except services.ServiceError as error:
                renamed.add_error("name", error.message)
            else:
                messages.success(
                    request,
                    _("The settings of %(tournament)s are saved.")
                    % {"tournament": tournament.name},
                )
                return redirect("tournament-manage", tournament_id=tournament.pk)
        return render(
            request,
            "organise/create.html",
            {"form": renamed, "editing": tournament, "name_only": True, "defaults": []},
        )
    clubs = organised_clubs(request.user).filter(pk=tournament.club_id)
    form = TournamentForm(request.POST or None, clubs=clubs, initial=_initial(tournament))
    if request.method == "POST" and form.is_valid():
        try:
            services.update_tournament(tournament, **form.service_arguments())
        except services.ServiceError as error:
            form.add_service_error(error)
        else:
            messages.success(
                request,
                _("The settings of %(tournament)s are saved.") % {"tournament": tournament.name},
            )
            return redirect("tournament-manage", tournament_id=tournament.pk)
    return render(
        request,
        "organise/create.html",
        {"form": form, "editing": tournament, "defaults": game_defaults()},
    )


def corrections_context(tournament: Tournament) -> dict[str, Any]:
    """What the desk's "Corrections" block shows: edit/delete, and each begun round's seats
    with their forfeits in force."""
    rounds = queries.forfeit_overview(tournament)
    return {
        "can_edit": not Round.objects.filter(tournament=tournament).exists(),
        "forfeit_rounds": rounds,
    }
