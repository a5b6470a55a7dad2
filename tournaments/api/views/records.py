"""Portable records (RECORD.md): verify one, import one as a stored game."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_noop
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.record import RecordError
from tournaments import play as games
from tournaments.api.parsers import RecordJSONParser
from tournaments.api.permissions import organised_club_ids, signed_in
from tournaments.api.problems import Forbidden, Refused
from tournaments.api.schema import signed_in_only
from tournaments.api.serializers import (
    GameSummarySerializer,
    RecordCheckSerializer,
    RecordSerializer,
)
from tournaments.services import queries


def _record_body(request: Request) -> dict[str, Any]:
    from django.conf import settings

    data = request.data
    if not isinstance(data, dict):
        raise ValidationError({"": [gettext("a record is a JSON object (RECORD.md)")]})
    moves = data.get("moves")
    most = settings.PARLOUR_RECORD_MAX_MOVES
    if isinstance(moves, list) and len(moves) > most:
        # Replaying is the cost (about 0.1 ms a move): bounded before any of it.
        raise Refused(
            gettext(
                "a record may hold at most %(most)s moves (PARLOUR_RECORD_MAX_MOVES);"
                " this one holds %(count)s"
            )
            % {"most": most, "count": len(moves)},
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
        return Response(queries.verify_record(_record_body(request)))


class RecordImportView(APIView):
    parser_classes = [RecordJSONParser]
    throttle_scope = "records"

    @signed_in_only
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
            raise Forbidden(
                gettext("only club organisers may import records (anyone may verify one)")
            )
        record = _record_body(request)
        if record.get("result") is None:
            # A record without its result is a game still running (RECORD.md), or one that
            # does not hold: stored, the first would have no seat anyone holds, be seen by
            # no one and never end (a 201 whose Location was a 404, found by trying).
            # Refused before its moves are replayed; import_game replays them once.
            raise RecordError(
                gettext_noop(
                    "a record is imported once its game is over, with its result: this one"
                    " has none (POST /records/verify checks a game still being played)"
                ),
                None,
                "result",
            )
        game = games.import_game(record)
        return Response(
            GameSummarySerializer(game).data,
            status=201,
            headers={"Location": f"/api/v1/games/{game.pk}"},
        )
