"""The logged-in person's page: their players, the games waiting for them, their settings."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from tournaments import services
from tournaments.models import ClientSeed, Player, Table, TableSeat
from tournaments.services import queries
from tournaments.services.access import organised_clubs
from tournaments.services.notices import running_games_of


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    """The logged-in person's players and the games waiting for them."""
    user = request.user
    assert isinstance(user, User)  # login_required
    players = list(Player.objects.filter(user=user).select_related("club"))
    running = running_games_of(user)
    organised = organised_clubs(user)
    # The commitments of the deals to come at my tables: shown before the deal, so that I
    # can save one and set a new client seed before the deck is fixed (docs/fairness.md).
    next_deals = (
        TableSeat.objects.filter(player__in=players)
        .exclude(table__status=Table.Status.FINISHED)
        .exclude(table__next_commitment="")
        .select_related("table__round__tournament")
        .order_by("table_id")
    )
    found = ClientSeed.objects.filter(user=user).first()
    return render(
        request,
        "me.html",
        {
            "players": players,
            "running": running,
            "organised": organised,
            "next_deals": [seat.table for seat in next_deals],
            # Games outside tournaments committed and waiting for their deal.
            "standalone_deals": [
                (deal, queries.game_name(deal.kind))
                for deal in services.standalone_deals_waiting(user)
            ],
            "client_seed": found.seed if found else "",
            "play_forced_moves": services.plays_forced_moves(user),
            "saved": request.GET.get("saved") == "1",
        },
    )


@require_GET
def my_notices(request: HttpRequest) -> HttpResponse:
    """The notices of every page (``static/parlour/notices.js`` polls it): the logged-in
    person's running games, each with whether it waits for them and its play page.

    JSON, so that the script can tell what is new; a stranger gets a 401 and nothing.
    A poll holds no stream slot and costs what :func:`running_games_of` costs.
    """
    if not request.user.is_authenticated:
        return JsonResponse(
            {"games": [], "message": gettext("Log in to see your games.")}, status=401
        )
    games = [
        game.as_dict() | {"play_url": reverse("game-play", args=[game.game_id])}
        for game in running_games_of(request.user)
    ]
    return JsonResponse({"games": games})


@require_POST
@login_required
def my_client_seed(request: HttpRequest) -> HttpResponse:
    """Set the logged-in person's client seed (the form on their page)."""
    user = request.user
    assert isinstance(user, User)  # login_required
    try:
        services.set_client_seed(user, request.POST.get("seed", ""))
    except services.ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request, gettext("Your client seed is set: the decks dealt to you next mix it in.")
        )
    return redirect("my-games")


@login_required
@require_POST
def my_preferences(request: HttpRequest) -> HttpResponse:
    """Turn on or off the server playing the person's forced moves."""
    user = request.user
    assert isinstance(user, User)  # login_required
    try:
        services.set_play_forced_moves(user, request.POST.get("play_forced_moves") == "on")
    except services.ServiceError as error:
        messages.error(request, error.message)  # on the page, as the client seed's form does
        return redirect("my-games")
    return redirect(reverse("my-games") + "?saved=1")
