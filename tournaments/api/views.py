"""The API's views: thin layers over the use cases (tournaments.games, tournaments.services).

Each view checks who the caller is (:mod:`tournaments.api.permissions`), reads
its input with a serializer, calls one use case and shows the result; every
refusal is a problem document (:mod:`tournaments.api.problems`).  docs/api.md
walks through them with curl.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Prefetch, Q, QuerySet
from django.http import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.fairness import check_shuffle, shuffle_contributions
from engine.record import import_record
from engine.registry import get_game
from events.store import Position
from tournaments import clock, games, notify, services, standings
from tournaments.api import capacity, streams, waiting
from tournaments.api.authentication import (
    ThrottledBasicAuthentication,
    create_token,
    revoke_token,
)
from tournaments.api.pagination import Pagination
from tournaments.api.parsers import RecordJSONParser
from tournaments.api.permissions import (
    GameAccess,
    game_access,
    organised_club_ids,
    require_organiser,
    require_self_or_organiser,
    seat_player_ids,
    signed_in,
)
from tournaments.api.problems import PROBLEM_TYPES, Forbidden, Refused
from tournaments.api.serializers import (
    GAME_IDS,
    ActionResultSerializer,
    ActionSerializer,
    CheckInCreateSerializer,
    CheckInSerializer,
    ClientSeedSerializer,
    ClubSerializer,
    GameEventSerializer,
    GameSummarySerializer,
    GameViewSerializer,
    LoginLinkChangeSerializer,
    MeSerializer,
    PlayerCreateSerializer,
    PlayerLoginSerializer,
    PlayerRefSerializer,
    PlayerSerializer,
    PreferencesSerializer,
    ProblemTypeSerializer,
    RatingSerializer,
    RecordCheckSerializer,
    RecordSerializer,
    RegisterSerializer,
    RegistrationSerializer,
    RoundSerializer,
    StandingSerializer,
    StartRoundSerializer,
    SwapSerializer,
    TableSerializer,
    TokenCreatedSerializer,
    TokenCreateSerializer,
    TokenSerializer,
    TournamentCreateSerializer,
    TournamentSerializer,
    TournamentStreamEventSerializer,
)
from tournaments.models import (
    ApiToken,
    CheckIn,
    ClientSeed,
    Club,
    Game,
    LoginLinkChange,
    Player,
    Registration,
    Round,
    Table,
    TableSeat,
    Tournament,
)

#: What an Idempotency-Key may be: 1 to 100 visible ASCII characters.
IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,100}")


def _id_param(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.INT, OpenApiParameter.PATH, description=description)


def _paginate(view: APIView, request: Request, items: Any, data: Any) -> Response:
    """A page of ``items`` shown by ``data(page)``, in the common envelope."""
    paginator = Pagination()
    page = paginator.paginate_queryset(items, request, view=view)
    return paginator.get_paginated_response(data(page if page is not None else items))


def _positive_query(request: Request, name: str) -> int | None:
    """An optional positive whole-number query parameter (400 naming it if it is not one)."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdecimal() or int(raw) < 1 or int(raw) > 2**31 - 1:
        raise ValidationError({name: [f"a positive whole number, not {raw!r}"]})
    return int(raw)


def _get(queryset: QuerySet[Any], pk: int, what: str) -> Any:
    found = queryset.filter(pk=pk).first()
    if found is None:
        raise NotFound(f"there is no {what} {pk}")
    return found


# -- the index and the problem types ---------------------------------------------------------------


class RootView(APIView):
    """Where everything is."""

    @extend_schema(
        summary="The API's index",
        responses={200: OpenApiTypes.OBJECT},
        tags=["meta"],
    )
    def get(self, request: Request) -> Response:
        base = "/api/v1"
        return Response(
            {
                "version": "v1",
                "schema": f"{base}/schema",
                "docs": f"{base}/docs",
                "guide": "docs/api.md",
                "resources": {
                    name: f"{base}/{name}"
                    for name in (
                        "tokens",
                        "me",
                        "clubs",
                        "players",
                        "tournaments",
                        "games",
                        "records/verify",
                        "ratings",
                        "problems",
                    )
                },
            }
        )


class ProblemTypeListView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="Every kind of problem the API answers",
        responses=ProblemTypeSerializer(many=True),
        tags=["meta"],
    )
    def get(self, request: Request) -> Response:
        items = [
            {"type": t.uri, "title": t.title, "status": t.status, "description": t.description}
            for t in PROBLEM_TYPES.values()
        ]
        return _paginate(self, request, items, lambda page: page)


class ProblemTypeView(APIView):
    @extend_schema(
        summary="One kind of problem",
        parameters=[OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH)],
        responses=ProblemTypeSerializer,
        tags=["meta"],
    )
    def get(self, request: Request, slug: str) -> Response:
        kind = PROBLEM_TYPES.get(slug)
        if kind is None:
            raise NotFound(f"there is no problem type {slug!r}: see /api/v1/problems")
        return Response(
            {
                "type": kind.uri,
                "title": kind.title,
                "status": kind.status,
                "description": kind.description,
            }
        )


# -- tokens and the caller -------------------------------------------------------------------------


class TokenListView(APIView):
    """Your personal tokens.  Creating one needs your password (Basic) or a browser session."""

    pagination_class = Pagination

    def get_authenticators(self) -> list[Any]:
        if getattr(self.request, "method", "") == "POST":
            return [ThrottledBasicAuthentication(), SessionAuthentication()]
        return super().get_authenticators()

    @extend_schema(
        summary="List your tokens", responses=TokenSerializer(many=True), tags=["tokens"]
    )
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        tokens = ApiToken.objects.filter(user=user).order_by("-created_at", "id")
        return _paginate(self, request, tokens, lambda page: TokenSerializer(page, many=True).data)

    @extend_schema(
        summary="Create a token (its key is shown once)",
        description="Authenticate with HTTP Basic (username and password) or a browser session;"
        " a token cannot create tokens.",
        request=TokenCreateSerializer,
        responses={201: TokenCreatedSerializer},
        tags=["tokens"],
    )
    def post(self, request: Request) -> Response:
        user = signed_in(request)
        body = TokenCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        token, key = create_token(user, body.validated_data["name"])
        data = dict(TokenSerializer(token).data)
        data["key"] = key
        return Response(data, status=201, headers={"Location": f"/api/v1/tokens/{token.pk}"})


class TokenDetailView(APIView):
    def _token(self, request: Request, token_id: int) -> ApiToken:
        user = signed_in(request)
        token = ApiToken.objects.filter(pk=token_id, user=user).first()
        if token is None:  # someone else's token is not yours to know of
            raise NotFound(f"you have no token {token_id}")
        return token

    @extend_schema(
        summary="One of your tokens",
        parameters=[_id_param("token_id", "The token's id.")],
        responses=TokenSerializer,
        tags=["tokens"],
    )
    def get(self, request: Request, token_id: int) -> Response:
        return Response(TokenSerializer(self._token(request, token_id)).data)

    @extend_schema(
        summary="Revoke one of your tokens",
        parameters=[_id_param("token_id", "The token's id.")],
        responses={204: OpenApiResponse(description="Revoked (or already revoked).")},
        tags=["tokens"],
    )
    def delete(self, request: Request, token_id: int) -> Response:
        revoke_token(self._token(request, token_id))
        return Response(status=204)


class ClientSeedView(APIView):
    """Your client seed: your contribution to the decks you are dealt (docs/fairness.md)."""

    @extend_schema(summary="Your client seed", responses=ClientSeedSerializer, tags=["tokens"])
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        found = ClientSeed.objects.filter(user=user).first()
        return Response(
            {"seed": found.seed if found else "", "updated_at": found.updated_at if found else None}
        )

    @extend_schema(
        summary="Set your client seed (decks dealt after this mix it in)",
        request=ClientSeedSerializer,
        responses=ClientSeedSerializer,
        tags=["tokens"],
    )
    def put(self, request: Request) -> Response:
        user = signed_in(request)
        body = ClientSeedSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        found = services.set_client_seed(user, body.validated_data["seed"])
        return Response({"seed": found.seed, "updated_at": found.updated_at})


class MeView(APIView):
    @extend_schema(
        summary="Who you are: your players and the clubs you organise",
        responses=MeSerializer,
        tags=["tokens"],
    )
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        clubs = organised_club_ids(user)
        organised = (
            sorted(Club.objects.values_list("pk", flat=True)) if clubs is None else sorted(clubs)
        )
        return Response(
            {
                "id": user.pk,
                "username": user.get_username(),
                "players": PlayerSerializer(Player.objects.filter(user=user), many=True).data,
                "organiser_of": organised,
                "superuser": bool(user.is_superuser),
                "play_forced_moves": services.plays_forced_moves(user),
            }
        )

    @extend_schema(
        summary="Your preferences: whether the server plays your forced moves",
        request=PreferencesSerializer,
        responses=PreferencesSerializer,
        tags=["tokens"],
    )
    def patch(self, request: Request) -> Response:
        user = signed_in(request)
        body = PreferencesSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        on = services.set_play_forced_moves(user, body.validated_data["play_forced_moves"])
        return Response({"play_forced_moves": on})


# -- clubs and players -----------------------------------------------------------------------------


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
        club = _positive_query(self.request, "club")
        return players.filter(club_id=club) if club is not None else players

    @extend_schema(
        summary="Players (of one club with ?club=)",
        parameters=[OpenApiParameter("club", OpenApiTypes.INT, description="A club's id.")],
        tags=["players"],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Add a player to a club (its organisers)",
        request=PlayerCreateSerializer,
        responses={201: PlayerSerializer},
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
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
            club, data["name"], user=user, bot_level=data["bot_level"], by=organiser
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

    @extend_schema(summary="Who changed which player's login, newest first", tags=["clubs"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


# -- tournaments -----------------------------------------------------------------------------------


def _tournaments() -> QuerySet[Tournament]:
    return Tournament.objects.prefetch_related("round_set")


class TournamentListView(generics.ListAPIView[Tournament]):
    serializer_class = TournamentSerializer

    def get_queryset(self) -> QuerySet[Tournament]:
        found = _tournaments().order_by("-created_at", "id")
        club = _positive_query(self.request, "club")
        if club is not None:
            found = found.filter(club_id=club)
        status = self.request.query_params.get("status")
        if status:
            if status not in Tournament.Status.values:
                raise ValidationError(
                    {"status": [f"one of {', '.join(Tournament.Status.values)}, not {status!r}"]}
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

    @extend_schema(
        summary="Create a tournament (the club's organisers)",
        request=TournamentCreateSerializer,
        responses={201: TournamentSerializer},
        tags=["tournaments"],
    )
    def post(self, request: Request) -> Response:
        body = TournamentCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        club = Club.objects.filter(pk=data.pop("club")).first()
        if club is None:
            raise Refused(f"there is no club {body.validated_data['club']}", "club")
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


def _tournament(tournament_id: int) -> Tournament:
    found: Tournament = _get(Tournament.objects.select_related("club"), tournament_id, "tournament")
    return found


def _club_player(tournament: Tournament, player_id: int) -> Player:
    player = Player.objects.select_related("club").filter(pk=player_id).first()
    if player is None:
        raise Refused(f"there is no player {player_id}", "player")
    if player.club_id != tournament.club_id:
        raise Refused(f"{player.name} is not a player of {tournament.club.name}", "player")
    return player


_TOURNAMENT_ID = _id_param("tournament_id", "The tournament's id.")


class RegistrationListView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="The tournament's registrations",
        parameters=[_TOURNAMENT_ID],
        responses=RegistrationSerializer(many=True),
        tags=["tournaments"],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
        found = Registration.objects.filter(tournament=tournament).select_related("player")
        return _paginate(
            self, request, found.order_by("id"), lambda p: RegistrationSerializer(p, many=True).data
        )

    @extend_schema(
        summary="Register a player (yourself, or any club player as an organiser)",
        parameters=[_TOURNAMENT_ID],
        request=RegisterSerializer,
        responses={201: RegistrationSerializer},
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
        body = RegisterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = _club_player(tournament, body.validated_data["player"])
        require_self_or_organiser(request, player)
        registration = services.register(
            tournament, player, from_round=body.validated_data["from_round"]
        )
        return Response(RegistrationSerializer(registration).data, status=201)


class CheckInListView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="Check-ins (of one round with ?round=)",
        parameters=[_TOURNAMENT_ID, OpenApiParameter("round", OpenApiTypes.INT)],
        responses=CheckInSerializer(many=True),
        tags=["tournaments"],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
        found = CheckIn.objects.filter(tournament=tournament).order_by("round_number", "id")
        number = _positive_query(request, "round")
        if number is not None:
            found = found.filter(round_number=number)
        return _paginate(self, request, found, lambda p: CheckInSerializer(p, many=True).data)

    @extend_schema(
        summary="Check a player in for the next round (yourself, or as an organiser)",
        parameters=[_TOURNAMENT_ID],
        request=CheckInCreateSerializer,
        responses={201: CheckInSerializer},
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
        body = CheckInCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = _club_player(tournament, body.validated_data["player"])
        require_self_or_organiser(request, player)
        checked = services.check_in(tournament, player, body.validated_data["round_number"])
        return Response(CheckInSerializer(checked).data, status=201)


class DropView(APIView):
    @extend_schema(
        summary="Drop a player out between rounds (yourself, or as an organiser)",
        parameters=[_TOURNAMENT_ID],
        request=PlayerRefSerializer,
        responses={200: RegistrationSerializer},
        tags=["tournaments"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
        body = PlayerRefSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = _club_player(tournament, body.validated_data["player"])
        require_self_or_organiser(request, player)
        registration = services.drop(tournament, player)
        return Response(RegistrationSerializer(registration).data)


def _rounds() -> QuerySet[Round]:
    seats = TableSeat.objects.select_related("player").order_by("seat")
    tables = Table.objects.order_by("number").prefetch_related(Prefetch("seats", queryset=seats))
    return Round.objects.prefetch_related(Prefetch("tables", queryset=tables))


class RoundListView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="The tournament's rounds with their seating",
        parameters=[_TOURNAMENT_ID],
        responses=RoundSerializer(many=True),
        tags=["rounds"],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
        found = _rounds().filter(tournament=tournament).order_by("number")
        return _paginate(self, request, found, lambda p: RoundSerializer(p, many=True).data)

    @extend_schema(
        summary="Seat the next round (organisers); begin it after any adjustment",
        parameters=[_TOURNAMENT_ID],
        request=StartRoundSerializer,
        responses={201: RoundSerializer},
        tags=["rounds"],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
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


_ROUND_PARAMS = [_TOURNAMENT_ID, _id_param("number", "The round's number (1 first).")]


def _round(tournament_id: int, number: int) -> Round:
    tournament = _tournament(tournament_id)
    found = _rounds().filter(tournament=tournament, number=number).first()
    if found is None:
        raise NotFound(f"{tournament.name} has no round {number}")
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
        services.begin_round(round_)
        return Response(RoundSerializer(_rounds().get(pk=round_.pk)).data)


class RoundSwapView(APIView):
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


class StandingsView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="The tournament's standings, best first",
        parameters=[_TOURNAMENT_ID],
        responses=StandingSerializer(many=True),
        tags=["tournaments"],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
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
                "last_places": s.last_places,
                "played": s.played,
                "byes": s.byes,
                "dropped": s.dropped,
            }
            for s in lines
        ]
        return _paginate(self, request, items, lambda page: page)


# -- tables ----------------------------------------------------------------------------------------


class TableDetailView(APIView):
    @extend_schema(
        summary="One table: its seats, its series and the series' games",
        parameters=[_id_param("table_id", "The table's id.")],
        responses=TableSerializer,
        tags=["rounds"],
    )
    def get(self, request: Request, table_id: int) -> Response:
        seats = TableSeat.objects.select_related("player").order_by("seat")
        table = _get(
            Table.objects.select_related("round__tournament").prefetch_related(
                Prefetch("seats", queryset=seats)
            ),
            table_id,
            "table",
        )
        series = list(Game.objects.filter(table=table).order_by("number_in_series", "id"))
        return Response(TableSerializer(table, context={"games": series}).data)


# -- ratings ---------------------------------------------------------------------------------------


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
        club_id = _positive_query(request, "club")
        game = request.query_params.get("game", "")
        if club_id is None:
            raise ValidationError({"club": ["name the club: ?club=<id>"]})
        if game not in GAME_IDS:
            raise ValidationError({"game": [f"one of {', '.join(GAME_IDS)}, not {game!r}"]})
        club = _get(Club.objects.all(), club_id, "club")
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
        return _paginate(self, request, items, lambda page: page)


# -- games -----------------------------------------------------------------------------------------


def _context_int(game: Game, key: str) -> int | None:
    context = game.context if isinstance(game.context, dict) else {}
    value = context.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def view_of(access: GameAccess, state: Any = None) -> dict[str, Any]:
    """The game as the caller may see it, with who sits where (``state``: see ``game_view``)."""
    game = access.game
    view = games.game_view(game, access.viewer, state=state)
    context = game.context if isinstance(game.context, dict) else {}
    entries = context.get("seats") if isinstance(context.get("seats"), list) else None
    seats = []
    for seat, name in enumerate(view.get("players") or []):
        entry = entries[seat] if entries and seat < len(entries) else {}
        entry = entry if isinstance(entry, Mapping) else {}
        seats.append({"player": entry.get("player"), "name": str(name), "bot": entry.get("bot")})
    view["seat"] = access.seat
    view["tournament"] = _context_int(game, "tournament")
    view["table"] = _context_int(game, "table")
    view["sitting"] = seats
    view["next_game"] = _next_game(game)
    return view


def _next_game(game: Game) -> int | None:
    """Once ``game`` is over: the id of its table's next game, if the series dealt one.

    Lets a client go on to the next deal from the view it already has, instead of
    reading the table (whose answer grows with the series).  The next game is
    dealt in the transaction that ends this one, so an over view names it.
    """
    if not game.is_over or game.table_id is None or game.number_in_series is None:
        return None
    following: int | None = (
        Game.objects.filter(table_id=game.table_id, number_in_series__gt=game.number_in_series)
        .order_by("number_in_series")
        .values_list("pk", flat=True)
        .first()
    )
    return following


_GAME_ID = _id_param("game_id", "The game's id.")


def _visible_games(request: Request) -> QuerySet[Game]:
    """Games the caller may find in lists: finished ones and tournament games (all of them
    for a superuser).  A running game outside tournaments is reached by its id only."""
    found = Game.objects.order_by("-id")
    if organised_club_ids(request.user) is None:
        return found
    return found.filter(Q(status=Game.Status.OVER) | Q(table__isnull=False))


class GameListView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="Games you may see (filter by ?status=, ?tournament=, ?table=, ?mine=true)",
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=list(Game.Status.values)),
            OpenApiParameter("tournament", OpenApiTypes.INT),
            OpenApiParameter("table", OpenApiTypes.INT),
            OpenApiParameter(
                "mine", OpenApiTypes.BOOL, description="Only games where you hold a seat."
            ),
        ],
        responses=GameSummarySerializer(many=True),
        tags=["games"],
    )
    def get(self, request: Request) -> Response:
        found = _visible_games(request)
        status = request.query_params.get("status")
        if status:
            if status not in Game.Status.values:
                raise ValidationError(
                    {"status": [f"one of {', '.join(Game.Status.values)}, not {status!r}"]}
                )
            found = found.filter(status=status)
        tournament = _positive_query(request, "tournament")
        if tournament is not None:
            found = found.filter(table__round__tournament_id=tournament)
        table = _positive_query(request, "table")
        if table is not None:
            found = found.filter(table_id=table)
        mine = request.query_params.get("mine", "").lower()
        if mine not in ("", "true", "false", "1", "0"):
            raise ValidationError({"mine": [f"true or false, not {mine!r}"]})
        if mine in ("true", "1"):
            user = signed_in(request)
            found = found.filter(table__seats__player__user=user).distinct()
        return _paginate(
            self, request, found, lambda page: GameSummarySerializer(page, many=True).data
        )


class GameDetailView(APIView):
    """The game as the caller may see it; with ``?after=N`` a long-poll for the next move.

    ``?after=N&wait=S`` answers once the game's sequence is past ``N`` (or it is
    over), or after ``S`` seconds with the view as it is: the same answer as
    without them, only later.  Clients that would poll for the other seats'
    moves ask once instead (tournaments/notify.py wakes the request).
    """

    #: Seconds a long-poll waits when ``wait`` is not given (at most the setting).
    default_wait = 25.0

    @extend_schema(
        summary="A game as you may see it, with your seat's legal actions",
        description="With `after`, a long-poll: the answer comes once the game's `sequence`"
        " is past `after` or the game is over, or after `wait` seconds with the view"
        " unchanged (200 either way). Without `after`, at once.",
        parameters=[
            _GAME_ID,
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
                description="Long-poll: wait until the game's sequence is past this one.",
            ),
            OpenApiParameter(
                "wait",
                {"type": "number", "minimum": 0},
                description="With `after`: the most seconds to wait (default 25; longer"
                " waits are cut to PARLOUR_LONG_POLL_SECONDS, 30 unless configured; 0"
                " answers at once).",
            ),
        ],
        responses=GameViewSerializer,
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        access = game_access(request, game_id)  # 404 before any waiting
        after = self._after(request)
        wait = self._wait(request)
        game = access.game
        if after is not None and wait > 0 and game.sequence <= after and not game.is_over:
            if waiting.deferrable(request._request):  # ASGI: wait holding no thread
                return waiting.LongPollResponse(
                    self,
                    request,
                    capacity.take(request),
                    game.pk,
                    after,
                    wait,
                    lambda: Response(view_of(game_access(request, game_id))),
                )
            with capacity.held(request):  # a 429 before waiting when the caller has too many
                notify.wait_for_move(game.pk, after, wait)
            access = game_access(request, game_id)  # the game as it is now
        return Response(view_of(access))

    @staticmethod
    def _after(request: Request) -> int | None:
        """``?after=``: a sequence (0 or more), or ``None`` when not given."""
        raw = request.query_params.get("after")
        if raw is None or raw == "":
            return None
        # isascii: "²" is a digit to str.isdigit, not to int().
        if not (raw.isascii() and raw.isdecimal()) or int(raw) > 2**31 - 1:
            raise ValidationError({"after": [f"a sequence (0 or more), not {raw!r}"]})
        return int(raw)

    @classmethod
    def _wait(cls, request: Request) -> float:
        """``?wait=``: seconds, 0 or more (default 25), capped at ``PARLOUR_LONG_POLL_SECONDS``.

        Capped, not refused: a client written for a longer wait keeps working
        where the operator set a shorter one (it asks again sooner).
        """
        from django.conf import settings

        most = float(settings.PARLOUR_LONG_POLL_SECONDS)
        raw = request.query_params.get("wait")
        if raw is None or raw == "":
            return min(cls.default_wait, most)
        try:
            value = float(raw)
        except ValueError:
            raise ValidationError({"wait": [f"seconds, a number, not {raw!r}"]}) from None
        if not 0 <= value < float("inf"):  # also refuses nan
            raise ValidationError({"wait": [f"seconds, 0 or more, not {raw}"]})
        return min(value, most)


class GameEventsView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="The game's events, redacted for you while it runs (complete after)",
        parameters=[
            _GAME_ID,
            OpenApiParameter(
                "after", OpenApiTypes.INT, description="Only events after this sequence."
            ),
        ],
        responses=GameEventSerializer(many=True),
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        access = game_access(request, game_id)
        after = request.query_params.get("after", "0") or "0"
        if not after.isdecimal() or int(after) > 2**31 - 1:
            raise ValidationError({"after": [f"a sequence (0 or more), not {after!r}"]})
        shown = games.game_events(access.game, access.viewer, from_sequence=int(after) + 1)
        return _paginate(self, request, shown, lambda page: page)


class GameActionView(APIView):
    @extend_schema(
        summary="Act for your seat",
        description="Send the action with the sequence of the view you decided on and an"
        " Idempotency-Key (a retry with the same key and body returns the first outcome)."
        " 409: the game moved on (current_sequence says where); 422: the rules refuse"
        " (detail is the engine's reason). An Old Maid draw names a position only, never"
        " a card.",
        parameters=[
            _GAME_ID,
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                required=True,
                description="A fresh key (1-100 visible ASCII characters) per new command.",
            ),
        ],
        request=ActionSerializer,
        responses={200: ActionResultSerializer},
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        access = game_access(request, game_id)
        user = signed_in(request)
        key = request.headers.get("Idempotency-Key", "")
        if not IDEMPOTENCY_KEY.fullmatch(key):
            raise ValidationError(
                {"Idempotency-Key": ["send a fresh key of 1-100 visible ASCII characters"]}
            )
        body = ActionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        seat = access.seat
        if seat is None:
            raise Forbidden(f"you hold no seat in game {game_id}: only its players act", "seat")
        if "seat" in data and data["seat"] != seat:
            raise Forbidden(f"you play seat {seat}, not seat {data['seat']}", "seat")
        action: dict[str, Any] = data["action"]
        player = seat_player_ids(access.game)[seat]
        result = games.submit_action(
            access.game,
            seat,
            action,
            expected_sequence=data["expected_sequence"],
            idempotency_key=f"api:{user.pk}:{key}",
            cause_kind="player",
            cause_id=str(player),
        )
        return Response(
            {
                "replayed": result.replayed,
                "sequence": result.sequence,
                # A replayed command's state is not at hand: the view is read afresh.
                "view": view_of(access, None if result.replayed else result.state),
            },
            headers={"Idempotency-Replayed": "true" if result.replayed else "false"},
        )


class GameAutoplayView(APIView):
    @extend_schema(
        summary="Hand your tournament seat to a bot",
        parameters=[_GAME_ID],
        request=None,
        responses={200: GameViewSerializer},
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        access = self._seated(request, game_id)
        clock.hand_to_bot(access.game, request.user, seat=access.seat)
        return Response(view_of(access))

    @extend_schema(
        summary="Take your tournament seat back from the bot",
        parameters=[_GAME_ID],
        responses={200: GameViewSerializer},
        tags=["games"],
    )
    def delete(self, request: Request, game_id: int) -> Response:
        access = self._seated(request, game_id)
        clock.take_back_seat(access.game, request.user, seat=access.seat)
        return Response(view_of(access))

    @staticmethod
    def _seated(request: Request, game_id: int) -> GameAccess:
        access = game_access(request, game_id)
        signed_in(request)
        if access.seat is None:
            raise Forbidden(f"you hold no seat in game {game_id}", "seat")
        if access.game.table_id is None:
            raise Refused(f"game {game_id} is not played at a tournament table", "seat")
        return access


class GameRecordView(APIView):
    @extend_schema(
        summary="The portable record of a finished game (RECORD.md), seed revealed",
        parameters=[_GAME_ID],
        responses=RecordSerializer,
        tags=["records"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        access = game_access(request, game_id)
        return Response(games.export_record(access.game))


def _record_body(request: Request) -> dict[str, Any]:
    from django.conf import settings

    data = request.data
    if not isinstance(data, dict):
        raise ValidationError({"": ["a record is a JSON object (RECORD.md)"]})
    moves = data.get("moves")
    most = settings.PARLOUR_RECORD_MAX_MOVES
    if isinstance(moves, list) and len(moves) > most:
        # Replaying is the cost (about 0.1 ms a move): bounded before any of it.
        raise Refused(
            f"a record may hold at most {most} moves (PARLOUR_RECORD_MAX_MOVES);"
            f" this one holds {len(moves)}",
            "moves",
        )
    return data


class RecordVerifyView(APIView):
    parser_classes = [RecordJSONParser]
    throttle_scope = "records"

    @extend_schema(
        summary="Verify a record: replay every move, check the result and a revealed shuffle",
        description="Stores nothing. 200 when the record holds; 422 (invalid-record) names the"
        " first fault and the move at fault.",
        request=RecordSerializer,
        responses={200: RecordCheckSerializer},
        tags=["records"],
    )
    def post(self, request: Request) -> Response:
        record = _record_body(request)
        events = import_record(record)
        engine = get_game(record["game"])
        outcome = engine.outcome(engine.fold(events))
        verified = False
        shuffle = record.get("shuffle")
        if isinstance(shuffle, Mapping) and shuffle.get("seed"):
            client_seeds, nonce = shuffle_contributions(shuffle)
            check_shuffle(
                record["deck"],
                commitment_hex=str(shuffle.get("commitment", "")),
                seed=str(shuffle["seed"]),
                cards=engine.deck,
                client_seeds=client_seeds,
                nonce=nonce,
            )
            verified = True
        return Response(
            {
                "valid": True,
                "game": engine.id,
                "seats": record["seats"],
                "moves": len(events) - 1,
                "result": outcome,
                "over": outcome is not None,
                "shuffle_verified": verified,
            }
        )


class RecordImportView(APIView):
    parser_classes = [RecordJSONParser]
    throttle_scope = "records"

    @extend_schema(
        summary="Import a record as a stored game (organisers)",
        description="Every move is checked as in verify; the game is then public once over.",
        request=RecordSerializer,
        responses={201: GameSummarySerializer},
        tags=["records"],
    )
    def post(self, request: Request) -> Response:
        user = signed_in(request)
        clubs = organised_club_ids(user)
        if clubs is not None and not clubs:
            raise Forbidden("only club organisers may import records (anyone may verify one)")
        record = _record_body(request)
        game = games.import_game(record)
        return Response(
            GameSummarySerializer(game).data,
            status=201,
            headers={"Location": f"/api/v1/games/{game.pk}"},
        )


# -- streams ---------------------------------------------------------------------------------------


class EventStreamRenderer(BaseRenderer):
    """Lets a client ask for ``text/event-stream`` (the stream views answer it themselves)."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        return JSONRenderer().render(data)


def _stream_timeout(request: Request) -> float:
    from django.conf import settings

    most = float(settings.PARLOUR_STREAM_SECONDS)
    raw = request.query_params.get("timeout")
    if raw is None or raw == "":
        return most
    try:
        value = float(raw)
    except ValueError:
        raise ValidationError({"timeout": [f"seconds, a number, not {raw!r}"]}) from None
    if not 0 < value <= most:
        raise ValidationError({"timeout": [f"between 0 and {most:g} seconds, not {raw}"]})
    return value


def _last_event_id(request: Request) -> str:
    return (
        request.headers.get("Last-Event-ID") or request.query_params.get("last_event_id") or ""
    ).strip()


_STREAM_PARAMS = [
    OpenApiParameter(
        "timeout",
        OpenApiTypes.FLOAT,
        description="Close the stream after this many seconds (at most PARLOUR_STREAM_SECONDS).",
    ),
    OpenApiParameter(
        "last_event_id",
        OpenApiTypes.STR,
        description="Go on after this event id (as the Last-Event-ID header does).",
    ),
    OpenApiParameter("Last-Event-ID", OpenApiTypes.STR, OpenApiParameter.HEADER),
    # A stream answers only text/event-stream: DRF's ?format= is not offered for it.
    OpenApiParameter("format", exclude=True),
]
_STREAM_RESPONSE = {
    (200, "text/event-stream"): OpenApiResponse(
        # The schema is that of each frame's data (the body is text/event-stream framing).
        response=GameEventSerializer,
        description="Server-Sent Events: 'id' the sequence, 'event' the type ('dealt' or"
        " 'move'), 'data' a GameEvent as the events endpoint shows it to you; a last 'end'"
        ' event (data: {"game_id", "status", "sequence"}) when the game is over.',
    )
}


class GameStreamView(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        summary="Follow a game live (Server-Sent Events, resumable with Last-Event-ID)",
        parameters=[_GAME_ID, *_STREAM_PARAMS],
        responses=_STREAM_RESPONSE,
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> HttpResponseBase:
        access = game_access(request, game_id)
        timeout = _stream_timeout(request)
        last = _last_event_id(request) or "0"
        if not last.isdecimal() or int(last) > 2**31 - 1:
            raise ValidationError(
                {"Last-Event-ID": [f"a game's event id is a sequence, not {last!r}"]}
            )
        feed = streams.GameFeed(access.game.pk, access.viewer, int(last))
        return streams.stream_response(request._request, feed, timeout, capacity.take(request))


class TournamentStreamView(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        summary="Follow a tournament's games live (Server-Sent Events, id = global position)",
        parameters=[_TOURNAMENT_ID, *_STREAM_PARAMS],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                # The schema is that of each frame's data (the framing is text/event-stream).
                response=TournamentStreamEventSerializer,
                description="Server-Sent Events of every game of the tournament: 'id' the"
                " store's global position ('tx.id'), 'event' the type, 'data' a"
                " TournamentStreamEvent (the game's event as its events endpoint shows it to"
                " you, with game_id and position); a last 'end' event (data:"
                ' {"tournament_id", "status": "finished"}) when the tournament is over.',
            )
        },
        tags=["tournaments"],
    )
    def get(self, request: Request, tournament_id: int) -> HttpResponseBase:
        tournament = _tournament(tournament_id)
        timeout = _stream_timeout(request)
        last = _last_event_id(request)
        try:
            after = Position.parse(last) if last else None
        except ValueError as error:
            raise ValidationError({"Last-Event-ID": [str(error)]}) from None
        feed = streams.TournamentFeed(tournament.pk, request.user, after)
        return streams.stream_response(request._request, feed, timeout, capacity.take(request))
