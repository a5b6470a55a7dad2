"""Clubs, their players, their log of login changes and their rating leaderboards."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.contract import said
from engine.registry import game_ids
from tournaments import services, standings
from tournaments.api.pagination import Pagination
from tournaments.api.permissions import require_organiser, signed_in
from tournaments.api.problems import Forbidden, Refused
from tournaments.api.schema import signed_in_only
from tournaments.api.serializers import (
    GAME_IDS,
    ClubCreateSerializer,
    ClubSerializer,
    LoginLinkChangeSerializer,
    LoginPlayerCreateSerializer,
    LoginPlayerSerializer,
    OrganiserSerializer,
    PlayerCreateSerializer,
    PlayerLoginSerializer,
    PlayerSerializer,
    RatingSerializer,
    SignUpLinkSerializer,
)
from tournaments.api.serializers.common import NoBodySerializer
from tournaments.api.views.common import get_or_404, paginate, positive_query
from tournaments.models import Club, LoginLinkChange, Player, PlayerRating
from tournaments.ratings import Rating


class ClubListView(generics.ListAPIView[Club]):
    queryset = Club.objects.order_by("name", "id")
    serializer_class = ClubSerializer

    @extend_schema(summary="Clubs", tags=["clubs"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @signed_in_only
    @extend_schema(
        summary="Create a club and its first organiser (superusers)",
        description="The organiser is an existing login (its password unchanged) or a new"
        " one made with `password`, as `manage.py create_club` does. An empty install's"
        " first club is made on the first-run page, /welcome.",
        request=ClubCreateSerializer,
        responses={201: ClubSerializer},
        tags=["clubs"],
    )
    def post(self, request: Request) -> Response:
        user = signed_in(request)
        if not user.is_superuser:
            raise Forbidden(gettext("only an administrator (a superuser) may create a club"))
        body = ClubCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        club, _ = services.create_club_with_organiser(
            data["name"], data["organiser"], data["password"]
        )
        return Response(
            ClubSerializer(club).data, status=201, headers={"Location": f"/api/v1/clubs/{club.pk}"}
        )


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
            raise Refused(gettext("there is no club %(id)s") % {"id": data["club"]}, "club")
        organiser = require_organiser(request, club)
        user = None
        if data["username"]:
            user = User.objects.filter(username=data["username"]).first()
            if user is None:
                raise Refused(
                    gettext("there is no login %(name)s") % {"name": said(data["username"])},
                    "username",
                )
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
            raise NotFound(gettext("there is no player %(id)s") % {"id": player_id})
        organiser = require_organiser(request, player.club)
        body = PlayerLoginSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        username = body.validated_data["username"]
        user = None
        if username is not None:
            user = User.objects.filter(username=username).first()
            if user is None:
                raise Refused(
                    gettext("there is no login %(name)s") % {"name": said(username)}, "username"
                )
        player = services.link_login(player, user, by=organiser)
        return Response(PlayerSerializer(player).data)


class LoginChangeListView(generics.ListAPIView[LoginLinkChange]):
    """The club's log of login changes: its organisers only."""

    serializer_class = LoginLinkChangeSerializer

    def get_queryset(self) -> QuerySet[LoginLinkChange]:
        club = Club.objects.filter(pk=self.kwargs["club_id"]).first()
        if club is None:
            raise NotFound(gettext("there is no club %(id)s") % {"id": self.kwargs["club_id"]})
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
            raise ValidationError({"club": [gettext("name the club: ?club=<id>")]})
        if game not in game_ids():
            raise ValidationError(
                {
                    "game": [
                        gettext("one of %(values)s, not %(value)s")
                        % {"values": ", ".join(game_ids()), "value": said(game)}
                    ]
                }
            )
        club = get_or_404(Club.objects.all(), club_id, "club")

        # A page read from the board's query: its cost is a page's, however many rated
        # players the club has (the whole board was read and paged in Python).
        def shown(page: list[PlayerRating]) -> list[dict[str, Any]]:
            return [
                {
                    "rank": row.rank,  # type: ignore[attr-defined]
                    "player": row.player_id,
                    "name": row.player.name,
                    "game": game,
                    "mu": row.mu,
                    "sigma": row.sigma,
                    "ordinal": row.ordinal,
                    "display": Rating(row.mu, row.sigma).display,
                }
                for row in page
            ]

        return paginate(self, request, standings.rating_board(club, game), shown)


# -- an organiser's club: logins, organisers, the sign-up link (issue 20) ----------------------


def _organised_club(request: Request, club_id: int) -> tuple[Club, User]:
    club = get_or_404(Club.objects.all(), club_id, "club")
    return club, require_organiser(request, club)


class ClubPlayersView(APIView):
    @signed_in_only
    @extend_schema(
        summary="Create a person of the club with a new login (its organisers)",
        description="The login's password is the one sent, or one made up and answered"
        " this once (`password`), to hand out. As the club's people page does.",
        request=LoginPlayerCreateSerializer,
        responses={201: LoginPlayerSerializer},
        tags=["clubs"],
    )
    def post(self, request: Request, club_id: int) -> Response:
        club, organiser = _organised_club(request, club_id)
        body = LoginPlayerCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        player, password = services.add_player_with_login(
            club, data["name"], data["username"], password=data["password"], by=organiser
        )
        answer = dict(PlayerSerializer(player).data)
        answer["username"] = player.user.get_username() if player.user else ""
        answer["password"] = None if data["password"] else password
        return Response(answer, status=201, headers={"Location": f"/api/v1/players/{player.pk}"})


def _organisers(club: Club) -> list[dict[str, Any]]:
    return [
        {"id": user.pk, "username": user.get_username()}
        for user in club.organisers.order_by("username", "id")
    ]


class ClubOrganisersView(APIView):
    @signed_in_only
    @extend_schema(
        summary="The club's organisers (its organisers)",
        responses=OrganiserSerializer(many=True),
        tags=["clubs"],
    )
    def get(self, request: Request, club_id: int) -> Response:
        club, _ = _organised_club(request, club_id)
        return Response(_organisers(club))

    @signed_in_only
    @extend_schema(
        summary="Make a login of the club an organiser (its organisers)",
        description="The login must play for a player of the club; answers the organisers.",
        request=OrganiserSerializer,
        responses={201: OrganiserSerializer(many=True)},
        tags=["clubs"],
    )
    def post(self, request: Request, club_id: int) -> Response:
        club, organiser = _organised_club(request, club_id)
        body = OrganiserSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        username = body.validated_data["username"]
        user = User.objects.filter(username=username).first()
        if user is None:
            raise Refused(
                gettext("there is no login %(name)s") % {"name": said(username)}, "username"
            )
        services.add_organiser(club, user, by=organiser)
        return Response(_organisers(club), status=201)


class ClubOrganiserView(APIView):
    @signed_in_only
    @extend_schema(
        summary="A login stops organising the club (its organisers)",
        description="Refused (422) for the club's last organiser.",
        responses={204: None},
        tags=["clubs"],
    )
    def delete(self, request: Request, club_id: int, user_id: int) -> Response:
        club, organiser = _organised_club(request, club_id)
        user = club.organisers.filter(pk=user_id).first()
        if user is None:
            raise NotFound(
                gettext("login %(id)s does not organise %(club)s")
                % {"id": user_id, "club": club.name}
            )
        services.remove_organiser(club, user, by=organiser)
        return Response(status=204)


def _signup_link(request: Request, club: Club) -> dict[str, Any]:
    if not club.signup_token:
        return {"on": False, "url": None}
    path = reverse("sign-up", args=[club.signup_token])
    return {"on": True, "url": request.build_absolute_uri(path)}


class SignUpLinkView(APIView):
    @signed_in_only
    @extend_schema(
        summary="The club's sign-up link (its organisers)",
        responses=SignUpLinkSerializer,
        tags=["clubs"],
    )
    def get(self, request: Request, club_id: int) -> Response:
        club, _ = _organised_club(request, club_id)
        return Response(_signup_link(request, club))

    @signed_in_only
    @extend_schema(
        summary="Turn the sign-up link on with a new secret (its organisers)",
        description="Whoever opens the link makes their own login and player in the club;"
        " an older link stops working.",
        request=None,
        responses={201: SignUpLinkSerializer},
        tags=["clubs"],
    )
    def post(self, request: Request, club_id: int) -> Response:
        club, _ = _organised_club(request, club_id)
        NoBodySerializer(data=request.data).is_valid(raise_exception=True)  # never ignored
        services.renew_signup_link(club)
        return Response(_signup_link(request, club), status=201)

    @signed_in_only
    @extend_schema(
        summary="Turn the sign-up link off (its organisers)",
        responses={204: None},
        tags=["clubs"],
    )
    def delete(self, request: Request, club_id: int) -> Response:
        club, _ = _organised_club(request, club_id)
        services.close_signup_link(club)
        return Response(status=204)
