"""Tournaments: creating and listing them, registrations, check-ins, drops, standings."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.contract import said
from tournaments import services, standings
from tournaments.api.pagination import Pagination
from tournaments.api.permissions import (
    require_organiser,
    require_self_or_organiser,
    signed_in,
)
from tournaments.api.problems import Refused
from tournaments.api.schema import signed_in_only
from tournaments.api.serializers import (
    CheckInCreateSerializer,
    CheckInSerializer,
    PlayerRefSerializer,
    RegisterSerializer,
    RegistrationSerializer,
    StandingSerializer,
    TournamentChangeSerializer,
    TournamentCreateSerializer,
    TournamentSerializer,
)
from tournaments.api.views.common import (
    PLAYER_ID,
    TOURNAMENT_ID,
    paginate,
    positive_query,
    tournament_or_404,
)
from tournaments.models import CheckIn, Club, Player, Registration, Tournament


def _tournaments() -> QuerySet[Tournament]:
    return Tournament.objects.prefetch_related("round_set")


class TournamentListView(generics.ListAPIView[Tournament]):
    serializer_class = TournamentSerializer

    def get_queryset(self) -> QuerySet[Tournament]:
        found = _tournaments().order_by("-created_at", "id")
        club = positive_query(self.request, "club")
        if club is not None:
            found = found.filter(club_id=club)
        status = self.request.query_params.get("status")
        if status:
            if status not in Tournament.Status.values:
                raise ValidationError(
                    {
                        "status": [
                            gettext("one of %(values)s, not %(value)s")
                            % {"values": ", ".join(Tournament.Status.values), "value": said(status)}
                        ]
                    }
                )
            found = found.filter(status=status)
        return found

    @extend_schema(
        summary="Tournaments (filter by ?club= and ?status=)",
        parameters=[
            OpenApiParameter("club", OpenApiTypes.INT, description="A club's id."),
            OpenApiParameter("status", OpenApiTypes.STR, enum=list(Tournament.Status.values)),
        ],
        tags=["tournaments"],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @signed_in_only
    @extend_schema(
        summary="Create a tournament (the club's organisers)",
        request=TournamentCreateSerializer,
        responses={201: TournamentSerializer},
        tags=["tournaments"],
    )
    def post(self, request: Request) -> Response:
        signed_in(request)  # 401 before the body is read: a write needs a login
        body = TournamentCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        club = Club.objects.filter(pk=data.pop("club")).first()
        if club is None:
            raise Refused(
                gettext("there is no club %(id)s") % {"id": body.validated_data["club"]}, "club"
            )
        require_organiser(request, club)
        tournament = services.create_tournament(
            club, data.pop("name"), data.pop("game"), data.pop("rounds"), **data
        )
        return Response(
            TournamentSerializer(_tournaments().get(pk=tournament.pk)).data,
            status=201,
            headers={"Location": f"/api/v1/tournaments/{tournament.pk}"},
        )


@extend_schema(summary="One tournament", tags=["tournaments"])
class TournamentDetailView(generics.RetrieveAPIView[Tournament]):
    queryset = _tournaments()
    serializer_class = TournamentSerializer
    lookup_url_kwarg = "tournament_id"

    @signed_in_only
    @extend_schema(
        summary="Change a tournament's settings (organisers)",
        description="Any setting before a round is seated; then only its name (a change of"
        " another is refused, 422). The settings not sent stay as they are.",
        parameters=[TOURNAMENT_ID],
        request=TournamentChangeSerializer,
        responses=TournamentSerializer,
        tags=["tournaments"],
    )
    def patch(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        signed_in(request)  # 401 before the body is read: a write needs a login
        require_organiser(request, tournament.club)
        body = TournamentChangeSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        services.update_tournament(tournament, **body.validated_data)
        return Response(TournamentSerializer(_tournaments().get(pk=tournament.pk)).data)


def _club_player(tournament: Tournament, player_id: int) -> Player:
    player = Player.objects.select_related("club").filter(pk=player_id).first()
    if player is None:
        raise Refused(gettext("there is no player %(id)s") % {"id": player_id}, "player")
    if player.club_id != tournament.club_id:
        raise Refused(
            gettext("%(player)s is not a player of %(club)s")
            % {"player": player.name, "club": tournament.club.name},
            "player",
        )
    return player


class RegistrationListView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="The tournament's registrations",
        parameters=[TOURNAMENT_ID],
        responses=RegistrationSerializer(many=True),
        tags=["tournaments"],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        found = Registration.objects.filter(tournament=tournament).select_related("player")
        return paginate(
            self, request, found.order_by("id"), lambda p: RegistrationSerializer(p, many=True).data
        )

    @signed_in_only
    @extend_schema(
        summary="Register a player (yourself, or any club player as an organiser)",
        parameters=[TOURNAMENT_ID],
        request=RegisterSerializer,
        responses={201: RegistrationSerializer},
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        signed_in(request)  # 401 before the body is read: a write needs a login
        body = RegisterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = _club_player(tournament, body.validated_data["player"])
        require_self_or_organiser(request, player)
        registration = services.register(
            tournament, player, from_round=body.validated_data["from_round"]
        )
        return Response(RegistrationSerializer(registration).data, status=201)


class RegistrationDetailView(APIView):
    @signed_in_only
    @extend_schema(
        summary="Withdraw a player before round 1 (yourself, or as an organiser)",
        description="The registration and the player's check-ins go, and no line is left in"
        " the standings; a seated round 1 is seated again without them. Refused (422, field"
        " player) once round 1 has begun: then the player drops out"
        " (POST /tournaments/{id}/drops), keeping their results. 404 for a player of the"
        " club who is not registered.",
        parameters=[TOURNAMENT_ID, PLAYER_ID],
        request=None,
        responses={204: None},
        tags=["tournaments"],
    )
    def delete(self, request: Request, tournament_id: int, player_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        signed_in(request)
        if not Player.objects.filter(pk=player_id).exists():  # the URL names it: a 404
            raise NotFound(gettext("there is no player %(id)s") % {"id": player_id})
        player = _club_player(tournament, player_id)
        require_self_or_organiser(request, player)
        try:
            services.unregister(tournament, player)
        except services.NotThere as missing:  # the URL names a registration: a 404
            raise NotFound(missing.message) from None
        return Response(status=204)


class CheckInListView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="Check-ins (of one round with ?round=)",
        parameters=[TOURNAMENT_ID, OpenApiParameter("round", OpenApiTypes.INT)],
        responses=CheckInSerializer(many=True),
        tags=["tournaments"],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        found = CheckIn.objects.filter(tournament=tournament).order_by("round_number", "id")
        number = positive_query(request, "round")
        if number is not None:
            found = found.filter(round_number=number)
        return paginate(self, request, found, lambda p: CheckInSerializer(p, many=True).data)

    @signed_in_only
    @extend_schema(
        summary="Check a player in for the next round (yourself, or as an organiser)",
        parameters=[TOURNAMENT_ID],
        request=CheckInCreateSerializer,
        responses={201: CheckInSerializer},
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        signed_in(request)  # 401 before the body is read: a write needs a login
        body = CheckInCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = _club_player(tournament, body.validated_data["player"])
        require_self_or_organiser(request, player)
        checked = services.check_in(tournament, player, body.validated_data["round"])
        return Response(CheckInSerializer(checked).data, status=201)


class DropView(APIView):
    @signed_in_only
    @extend_schema(
        summary="Drop a player out between rounds (yourself, or as an organiser)",
        description="Refused (422, field player) while a round is played, and before round 1"
        " has begun: that is a withdrawal (the tournament's page or its desk page). An"
        " organiser takes a drop back until the next round begins"
        " (DELETE /tournaments/{id}/drops/{player}).",
        parameters=[TOURNAMENT_ID],
        request=PlayerRefSerializer,
        responses={200: RegistrationSerializer},
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        signed_in(request)  # 401 before the body is read: a write needs a login
        body = PlayerRefSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = _club_player(tournament, body.validated_data["player"])
        require_self_or_organiser(request, player)
        registration = services.drop(tournament, player)
        return Response(RegistrationSerializer(registration).data)


class DropDetailView(APIView):
    @signed_in_only
    @extend_schema(
        summary="Take back a player's drop (organisers)",
        description="An organiser's undo of a drop (a mis-click at the desk) before play goes"
        " on without the player: the registration is as if never dropped (dropped_after"
        " null) and the standings no longer mark them dropped. 404 if they are not"
        " registered or have not dropped out; refused (422, field player) once the"
        " tournament is finished, and once a round after the one they dropped after has"
        " begun. If the next round is seated already"
        " it is seated again with them in it (its swaps are lost), unless they are not"
        " checked in for it or marked absent from it (then it stays as it is, and they are"
        " checked in and seated late from the desk), or its seating is fixed by a client"
        " seed (then it is played as seated, and they play from the round after it).",
        parameters=[TOURNAMENT_ID, PLAYER_ID],
        request=None,
        responses={200: RegistrationSerializer},
        tags=["tournaments"],
    )
    def delete(self, request: Request, tournament_id: int, player_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        require_organiser(request, tournament.club)
        if not Player.objects.filter(pk=player_id).exists():  # the URL names it: a 404
            raise NotFound(gettext("there is no player %(id)s") % {"id": player_id})
        player = _club_player(tournament, player_id)
        try:
            done = services.take_back_drop(tournament, player)
        except services.NotThere as missing:  # the URL names a drop: none is a 404
            raise NotFound(missing.message) from None
        return Response(RegistrationSerializer(done.registration).data)


class StandingsView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="The tournament's standings, best first",
        parameters=[TOURNAMENT_ID],
        responses=StandingSerializer(many=True),
        tags=["tournaments"],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_or_404(tournament_id)
        lines = standings.live_standings(tournament)
        names = standings.player_names(s.player for s in lines)
        items = [
            {
                "rank": s.rank,
                "player": int(s.player),
                "name": names.get(s.player, ""),
                "points": str(s.points),
                "points_value": float(s.points),
                "opponents_points": str(s.opponents_points),
                "head_to_head": int(s.head_to_head),
                "last_place_count": s.last_places,
                "played": s.played,
                "bye_count": s.byes,
                "dropped": s.dropped,
                # Why a player placed first at a table has the last place's points.
                "forfeit_count": s.forfeits,
            }
            for s in lines
        ]
        return paginate(self, request, items, lambda page: page)
