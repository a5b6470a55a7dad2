"""A tournament's rounds (seating, beginning, swaps) and its tables."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments import services
from tournaments.api.pagination import Pagination
from tournaments.api.permissions import require_organiser
from tournaments.api.schema import signed_in_only
from tournaments.api.serializers import (
    RoundSerializer,
    StartRoundSerializer,
    SwapSerializer,
    TableSerializer,
)
from tournaments.api.serializers.common import NoBodySerializer
from tournaments.api.views.common import (
    TOURNAMENT_ID,
    get_or_404,
    id_param,
    paginate,
    tournament_or_404,
)
from tournaments.models import Game, Round, Table, TableSeat
from tournaments.services.access import visible_games


def _rounds() -> QuerySet[Round]:
    seats = TableSeat.objects.select_related("player").order_by("seat")
    tables = Table.objects.order_by("number").prefetch_related(Prefetch("seats", queryset=seats))
    # The tournament's forfeits once for a page of rounds: each table says its forfeited seats.
    return Round.objects.select_related("tournament").prefetch_related(
        Prefetch("tables", queryset=tables), "tournament__forfeits"
    )


class RoundListView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="The tournament's rounds with their seating",
        parameters=[TOURNAMENT_ID],
        responses=RoundSerializer(many=True),
        tags=["rounds"],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        found = _rounds().filter(tournament=tournament).order_by("number")
        return paginate(self, request, found, lambda p: RoundSerializer(p, many=True).data)

    @signed_in_only
    @extend_schema(
        summary="Seat the next round (organisers); begin it after any adjustment",
        parameters=[TOURNAMENT_ID],
        request=StartRoundSerializer,
        responses={201: RoundSerializer},
        tags=["rounds"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        require_organiser(request, tournament.club)
        body = StartRoundSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        round_ = services.start_round(
            tournament,
            fixed={item["player"]: item["table"] for item in data["fixed"]},
            apart=[(a, b) for a, b in data["apart"]],
            auto_check_in=data["auto_check_in"],
        )
        return Response(
            RoundSerializer(_rounds().get(pk=round_.pk)).data,
            status=201,
            headers={"Location": f"/api/v1/tournaments/{tournament.pk}/rounds/{round_.number}"},
        )


_ROUND_PARAMS = [TOURNAMENT_ID, id_param("number", "The round's number (1 first).")]


def _round(tournament_id: int, number: int) -> Round:
    tournament = tournament_or_404(tournament_id)
    found = _rounds().filter(tournament=tournament, number=number).first()
    if found is None:
        raise NotFound(
            gettext("%(tournament)s has no round %(number)s")
            % {"tournament": tournament.name, "number": number}
        )
    return found


class RoundDetailView(APIView):
    @extend_schema(
        summary="One round: its tables, seats and byes",
        parameters=_ROUND_PARAMS,
        responses=RoundSerializer,
        tags=["rounds"],
    )
    def get(self, request: Request, tournament_id: int, number: int) -> Response:
        return Response(RoundSerializer(_round(tournament_id, number)).data)


class RoundBeginView(APIView):
    @signed_in_only
    @extend_schema(
        summary="Begin a seated round: deal every table's first game (organisers)",
        parameters=_ROUND_PARAMS,
        request=None,
        responses={200: RoundSerializer},
        tags=["rounds"],
    )
    def post(self, request: Request, tournament_id: int, number: int) -> Response:
        round_ = _round(tournament_id, number)
        require_organiser(request, round_.tournament.club)
        NoBodySerializer(data=request.data).is_valid(raise_exception=True)  # never ignored
        services.begin_round(round_)
        return Response(RoundSerializer(_rounds().get(pk=round_.pk)).data)


class RoundSwapView(APIView):
    @signed_in_only
    @extend_schema(
        summary="Swap two players of a seated round (organisers)",
        parameters=_ROUND_PARAMS,
        request=SwapSerializer,
        responses={200: RoundSerializer},
        tags=["rounds"],
    )
    def post(self, request: Request, tournament_id: int, number: int) -> Response:
        round_ = _round(tournament_id, number)
        require_organiser(request, round_.tournament.club)
        body = SwapSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        first, second = body.validated_data["players"]
        services.swap_players(round_, first, second)
        return Response(RoundSerializer(_rounds().get(pk=round_.pk)).data)


class TableDetailView(APIView):
    @extend_schema(
        summary="One table: its seats, its series and the series' games",
        parameters=[id_param("table_id", "The table's id.")],
        responses=TableSerializer,
        tags=["rounds"],
    )
    def get(self, request: Request, table_id: int) -> Response:
        seats = TableSeat.objects.select_related("player").order_by("seat")
        table = get_or_404(
            Table.objects.select_related("round__tournament").prefetch_related(
                Prefetch("seats", queryset=seats), "round__tournament__forfeits"
            ),
            table_id,
            "table",
        )
        series = Game.objects.filter(table=table).order_by("number_in_series", "id")
        # The series' scores are public; its games are listed as the caller may see them
        # (a duplicate round's, while it runs, to their players: visible_games).
        context = {"games": list(visible_games(request.user, series)), "scored": list(series)}
        return Response(TableSerializer(table, context=context).data)
