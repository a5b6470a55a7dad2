"""Your tokens, your client seed, who you are and your preferences."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments import services
from tournaments.api.authentication import ThrottledBasicAuthentication, create_token, revoke_token
from tournaments.api.pagination import Pagination
from tournaments.api.permissions import organised_club_ids, signed_in
from tournaments.api.schema import signed_in_only
from tournaments.api.serializers import (
    ClientSeedSerializer,
    MeSerializer,
    PlayerSerializer,
    PreferencesSerializer,
    TokenCreatedSerializer,
    TokenCreateSerializer,
    TokenSerializer,
)
from tournaments.api.views.common import id_param, paginate
from tournaments.models import ApiToken, ClientSeed, Club, Player


class TokenListView(APIView):
    """Your personal tokens.  Creating one needs your password (Basic) or a browser session."""

    pagination_class = Pagination

    def get_authenticators(self) -> list[Any]:
        if getattr(self.request, "method", "") == "POST":
            return [ThrottledBasicAuthentication(), SessionAuthentication()]
        return super().get_authenticators()

    @signed_in_only
    @extend_schema(
        summary="List your tokens", responses=TokenSerializer(many=True), tags=["tokens"]
    )
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        tokens = ApiToken.objects.filter(user=user).order_by("-created_at", "id")
        return paginate(self, request, tokens, lambda page: TokenSerializer(page, many=True).data)

    @signed_in_only
    @extend_schema(
        summary="Create a token (its key is shown once)",
        description="Authenticate with HTTP Basic (username and password) or a browser session;"
        " a token cannot create tokens.",
        request=TokenCreateSerializer,
        responses={201: TokenCreatedSerializer},
        tags=["tokens"],
    )
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            # Only a password or a browser session creates a token: say so, also to a
            # caller who sent a token (which is not looked at here).
            sent = request.headers.get("Authorization", "")
            scheme = sent.split(" ", 1)[0].lower()
            raise NotAuthenticated(
                ("a token cannot create tokens: " if scheme == "bearer" else "")
                + "send your username and password with HTTP Basic"
                " (curl -u name:password), or create one from a signed-in browser session"
            )
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
            raise NotFound(gettext("you have no token %(id)s") % {"id": token_id})
        return token

    @signed_in_only
    @extend_schema(
        summary="One of your tokens",
        parameters=[id_param("token_id", "The token's id.")],
        responses=TokenSerializer,
        tags=["tokens"],
    )
    def get(self, request: Request, token_id: int) -> Response:
        return Response(TokenSerializer(self._token(request, token_id)).data)

    @signed_in_only
    @extend_schema(
        summary="Revoke one of your tokens",
        parameters=[id_param("token_id", "The token's id.")],
        responses={204: OpenApiResponse(description="Revoked (or already revoked).")},
        tags=["tokens"],
    )
    def delete(self, request: Request, token_id: int) -> Response:
        revoke_token(self._token(request, token_id))
        return Response(status=204)


def _client_seed(user: Any, found: ClientSeed | None) -> dict[str, Any]:
    """The client seed's answer: the seed, and the standalone deals waiting for it."""
    waiting = services.standalone_deals_waiting(user)
    return {
        "seed": (found.seed or None) if found else None,
        "updated_at": found.updated_at if found else None,
        "standalone_deals": [
            {"id": d.pk, "game": d.kind, "commitment": d.commitment} for d in waiting
        ],
    }


class ClientSeedView(APIView):
    """Your client seed: your contribution to the decks you are dealt (docs/fairness.md)."""

    @signed_in_only
    @extend_schema(summary="Your client seed", responses=ClientSeedSerializer, tags=["tokens"])
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        return Response(_client_seed(user, ClientSeed.objects.filter(user=user).first()))

    @signed_in_only
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
        found = services.set_client_seed(user, body.validated_data["seed"] or "")
        return Response(_client_seed(user, found))


class MeView(APIView):
    @signed_in_only
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

    @signed_in_only
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
