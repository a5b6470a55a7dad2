"""What the API's views share: paging, query parameters, lookups that answer 404."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.pagination import Pagination, whole_number
from tournaments.models import Tournament


def id_param(name: str, description: str) -> OpenApiParameter:
    """A path parameter that is an id, for the schema."""
    return OpenApiParameter(name, OpenApiTypes.INT, OpenApiParameter.PATH, description=description)


def paginate(view: APIView, request: Request, items: Any, data: Any) -> Response:
    """A page of ``items`` shown by ``data(page)``, in the common envelope."""
    paginator = Pagination()
    page: list[Any] | None = paginator.paginate_queryset(items, request, view=view)
    return paginator.get_paginated_response(data(page if page is not None else items))


def positive_query(request: Request, name: str) -> int | None:
    """An optional positive whole-number query parameter (400 naming it if it is not one)."""
    return whole_number(request, name, least=1, what=gettext("a positive whole number"))


def get_or_404(queryset: QuerySet[Any], pk: int, what: str) -> Any:
    """The row ``pk`` of ``queryset``; 404 naming ``what`` (``club``, ``tournament``,
    ``table``) if there is none."""
    found = queryset.filter(pk=pk).first()
    if found is None:
        said = {
            "club": gettext("there is no club %(id)s"),
            "tournament": gettext("there is no tournament %(id)s"),
            "table": gettext("there is no table %(id)s"),
        }.get(what, f"there is no {what} %(id)s")
        raise NotFound(said % {"id": pk})
    return found


def tournament_or_404(tournament_id: int) -> Tournament:
    """Tournament ``tournament_id`` with its club; 404 if there is none."""
    found: Tournament = get_or_404(
        Tournament.objects.select_related("club"), tournament_id, "tournament"
    )
    return found


TOURNAMENT_ID = id_param("tournament_id", "The tournament's id.")
PLAYER_ID = id_param("player_id", "The player's id.")


GAME_ID = id_param("game_id", "The game's id.")
