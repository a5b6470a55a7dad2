"""Clubs, their players, their log of login changes and their rating leaderboards."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.registry import game_ids
from tournaments import services, standings
from tournaments.api.pagination import Pagination
from tournaments.api.permissions import require_organiser, signed_in
from tournaments.api.problems import Refused
from tournaments.api.schema import signed_in_only
from tournaments.api.serializers import (
    GAME_IDS,
    ClubSerializer,
    LoginLinkChangeSerializer,
    PlayerCreateSerializer,
    PlayerLoginSerializer,
    PlayerSerializer,
    RatingSerializer,
)
from tournaments.api.views.common import get_or_404, paginate, positive_query
from tournaments.models import Club, LoginLinkChange, Player


@extend_schema(summary="Clubs", tags=["clubs"])
class ClubListView(generics.ListAPIView[Club]):
    queryset = Club.objects.order_by("name", "id")
    serializer_class = ClubSerializer


@extend_schema(summary="One club", tags=["clubs"])
class ClubDetailView(generics.RetrieveAPIView[Club]):
    queryset = Club.objects.all()
    serializer_class = ClubSerializer
    lookup_url_kwarg = "club_id"


class PlayerListView(generics.ListAPIView[Player]):
    serializer_class = PlayerSerializer

    def get_queryset(self) -> QuerySet[Player]:
        players = Player.objects.order_by("club_id", "name", "id")
        club = positive_query(self.request, "club")
        return players.filter(club_id=club) if club is not None else players

    @extend_schema(
        summary="Players (of one club with ?club=)",
        parameters=[OpenApiParameter("club", OpenApiTypes.INT, description="A club's id.")],
        tags=["players"],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @signed_in_only
    @extend_schema(
        summary="Add a player to a club (its organisers)",
        request=PlayerCreateSerializer,
        responses={201: PlayerSerializer},
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        signed_in(request)  # 401 before the body is read: a write needs a login
        body = PlayerCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        club = Club.objects.filter(pk=data["club"]).first()
        if club is None:
            raise Refused(f"there is no club {data['club']}", "club")
        organiser = require_organiser(request, club)
        user = None
        if data["username"]:
            user = User.objects.filter(username=data["username"]).first()
            if user is None:
                raise Refused(f"there is no login {data['username']!r}", "username")
        player = services.add_player(
            club, data["name"], user=user, bot_level=data["bot"] or "", by=organiser
        )
        return Response(
            PlayerSerializer(player).data,
            status=201,
            headers={"Location": f"/api/v1/players/{player.pk}"},
        )


@extend_schema(summary="One player", tags=["players"])
class PlayerDetailView(generics.RetrieveAPIView[Player]):
    queryset = Player.objects.all()
    serializer_class = PlayerSerializer
    lookup_url_kwarg = "player_id"

    @signed_in_only
    @extend_schema(
        summary="Change the login that plays as a player (its club's organisers)",
        description="Refused (422) while the player holds a seat at a table in play;"
        " every change is kept in the club's login log (GET /clubs/{id}/login-changes).",
        request=PlayerLoginSerializer,
        responses={200: PlayerSerializer},
        tags=["players"],
    )
    def patch(self, request: Request, player_id: int) -> Response:
        player = Player.objects.select_related("club").filter(pk=player_id).first()
        if player is None:
            raise NotFound(f"there is no player {player_id}")
        organiser = require_organiser(request, player.club)
        body = PlayerLoginSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        username = body.validated_data["username"]
        user = None
        if username is not None:
            user = User.objects.filter(username=username).first()
            if user is None:
                raise Refused(f"there is no login {username!r}", "username")
        player = services.link_login(player, user, by=organiser)
        return Response(PlayerSerializer(player).data)


class LoginChangeListView(generics.ListAPIView[LoginLinkChange]):
    """The club's log of login changes: its organisers only."""

    serializer_class = LoginLinkChangeSerializer

    def get_queryset(self) -> QuerySet[LoginLinkChange]:
        club = Club.objects.filter(pk=self.kwargs["club_id"]).first()
        if club is None:
            raise NotFound(f"there is no club {self.kwargs['club_id']}")
        require_organiser(self.request, club)
        return LoginLinkChange.objects.filter(club=club).select_related("player")

    @signed_in_only
    @extend_schema(summary="Who changed which player's login, newest first", tags=["clubs"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class RatingsView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="A club's rating leaderboard in one game",
        parameters=[
            OpenApiParameter("club", OpenApiTypes.INT, required=True, description="A club's id."),
            OpenApiParameter("game", OpenApiTypes.STR, required=True, enum=GAME_IDS),
        ],
        responses=RatingSerializer(many=True),
        tags=["clubs"],
    )
    def get(self, request: Request) -> Response:
        club_id = positive_query(request, "club")
        game = request.query_params.get("game", "")
        if club_id is None:
            raise ValidationError({"club": ["name the club: ?club=<id>"]})
        if game not in game_ids():
            raise ValidationError({"game": [f"one of {', '.join(game_ids())}, not {game!r}"]})
        club = get_or_404(Club.objects.all(), club_id, "club")
        board = standings.rating_leaderboard(club, game)
        items = [
            {
                "rank": rank,
                "player": player.pk,
                "name": player.name,
                "game": game,
                "mu": rating.mu,
                "sigma": rating.sigma,
                "ordinal": rating.ordinal,
                "display": rating.display,
            }
            for rank, (player, rating) in enumerate(board, start=1)
        ]
        return paginate(self, request, items, lambda page: page)
