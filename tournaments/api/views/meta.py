"""The API's index and its problem types."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.contract import said
from tournaments.api.pagination import Pagination
from tournaments.api.problems import PROBLEM_TYPES
from tournaments.api.serializers import ProblemTypeSerializer
from tournaments.api.views.common import paginate


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
            {
                "type": t.uri,
                "title": gettext(t.title),
                "status": t.status,
                "description": gettext(t.description),
            }
            for t in PROBLEM_TYPES.values()
        ]
        return paginate(self, request, items, lambda page: page)


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
            raise NotFound(
                gettext("there is no problem type %(slug)s: see /api/v1/problems")
                % {"slug": said(slug)}
            )
        return Response(
            {
                "type": kind.uri,
                "title": gettext(kind.title),
                "status": kind.status,
                "description": gettext(kind.description),
            }
        )
