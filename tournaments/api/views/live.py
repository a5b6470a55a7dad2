"""Following a game, a tournament or all your games live: Server-Sent Events
(tournaments/api/streams.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpResponseBase
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from engine.contract import said
from tournaments.api import capacity, streams
from tournaments.api.permissions import game_access, signed_in
from tournaments.api.schema import signed_in_only
from tournaments.api.serializers import (
    AccountStreamEventSerializer,
    GameStreamEventSerializer,
    TournamentStreamEventSerializer,
)
from tournaments.api.views.common import GAME_ID, TOURNAMENT_ID, tournament_or_404
from tournaments.converters import MAX_ID


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
        raise ValidationError(
            {"timeout": [gettext("seconds, a number, not %(raw)s") % {"raw": said(raw)}]}
        ) from None
    if not 0 < value <= most:
        raise ValidationError(
            {
                "timeout": [
                    gettext("between 0 and %(most)s seconds, not %(raw)s")
                    % {"most": f"{most:g}", "raw": raw}
                ]
            }
        )
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
        response=GameStreamEventSerializer,
        description="Server-Sent Events: 'id' the sequence, 'event' the type ('dealt' or"
        " 'move'), 'data' a GameEvent as the events endpoint shows it to you; a last 'end'"
        ' event (data: {"game_id", "status", "sequence"}) when the game is over.',
    )
}


def _with_view(request: Request) -> bool:
    """``?view=true``: each event carries the caller's view after it."""
    raw = request.query_params.get("view", "").lower()
    if raw not in ("", "true", "false", "1", "0"):
        raise ValidationError(
            {"view": [gettext("true or false, not %(raw)s") % {"raw": said(raw)}]}
        )
    return raw in ("true", "1")


def _not_a_position(last: str) -> str:
    """The refusal of a ``Last-Event-ID`` that is no position, in the reader's language and
    quoting it as JSON (the store's own words were English, quoting it as Python)."""
    return gettext('a position is written "tx.id" (two whole numbers), not %(sent)s') % {
        "sent": said(last)
    }


def _notice_after(request: Request) -> streams.Position | None:
    """Where an account stream resumes: the position (``tx.id``) a ``Last-Event-ID`` names,
    ``None`` without one."""
    last = _last_event_id(request)
    if not last:
        return None
    try:
        after = streams.position_after(last)
    except ValueError:
        raise ValidationError({"Last-Event-ID": [_not_a_position(last)]}) from None
    if after is None or max(after.tx, after.id) > MAX_ID:
        raise ValidationError(
            {
                "Last-Event-ID": [
                    gettext("a position beyond any notice: %(last)s") % {"last": said(last)}
                ]
            }
        )
    return after


class GameStreamView(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]
    #: Opening a stream without signing in is counted too (PARLOUR_API_RATE_ANON_STREAMS).
    anonymous_throttle_scopes = ("anon_streams",)

    @extend_schema(
        summary="Follow a game live (Server-Sent Events, resumable with Last-Event-ID)",
        parameters=[
            GAME_ID,
            *_STREAM_PARAMS,
            OpenApiParameter(
                "view",
                OpenApiTypes.BOOL,
                description="Each event also carries `view`: your view of the game after it"
                " (what GET /games/{id} answers you), on the last event of each batch sent"
                " at once; the events before it in that batch carry `view: null`.",
            ),
        ],
        responses=_STREAM_RESPONSE,
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> HttpResponseBase:
        access = game_access(request, game_id)
        timeout = _stream_timeout(request)
        with_view = _with_view(request)
        last = _last_event_id(request) or "0"
        if not (last.isascii() and last.isdigit()) or int(last) > 2**31 - 1:
            raise ValidationError(
                {
                    "Last-Event-ID": [
                        gettext("a game's event id is a sequence, not %(last)s")
                        % {"last": said(last)}
                    ]
                }
            )
        feed = streams.GameFeed(access, int(last), with_view=with_view)
        return streams.stream_response(request._request, feed, timeout, capacity.take(request))


class AccountStreamView(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @signed_in_only
    @extend_schema(
        summary="Follow all your games (Server-Sent Events, resumable with Last-Event-ID)",
        description="Every game of yours that starts (`started`), waits for you (`turn`)"
        " and finishes (`finished`), across your tournaments: `id` the notice's id,"
        ' `data` {"game_id", "view"} with your seat\'s current view (what GET'
        " /games/{id} answers you). Without Last-Event-ID it first sends every running"
        " game of yours (`started`, and `turn` where it waits for you). A `turn` whose"
        " game moved on before it was sent is left out.",
        parameters=_STREAM_PARAMS,
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                response=AccountStreamEventSerializer,
                description="Server-Sent Events: 'id' the notice's id, 'event' started, turn"
                " or finished, 'data' the game's id and your view of it.",
            )
        },
        tags=["games"],
    )
    def get(self, request: Request) -> HttpResponseBase:
        user = signed_in(request)
        timeout = _stream_timeout(request)
        after = _notice_after(request)
        feed = streams.AccountFeed(user.pk, after)
        return streams.stream_response(request._request, feed, timeout, capacity.take(request))


class TournamentStreamView(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]
    #: Opening a stream without signing in is counted too, and a tournament's at most one a
    #: second (PARLOUR_API_RATE_ANON_TOURNAMENT_STREAMS): a page keeps its one stream for
    #: minutes, and one read from the start sends the whole tournament (bench/abuse.py, b).
    anonymous_throttle_scopes = ("anon_streams", "anon_tournament_streams")

    @extend_schema(
        summary="Follow a tournament's games live (Server-Sent Events, id = global position)",
        parameters=[TOURNAMENT_ID, *_STREAM_PARAMS],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                # The schema is that of each frame's data (the framing is text/event-stream).
                response=TournamentStreamEventSerializer,
                description="Server-Sent Events of every game of the tournament: 'id' the"
                " store's global position ('tx.id'), 'event' the type, 'data' a"
                " TournamentStreamEvent (the game's event as its events endpoint shows it to"
                " you, with game_id and position); a last 'end' event (data:"
                ' {"tournament", "status": "finished"}) when the tournament is over.',
            )
        },
        tags=["tournaments"],
    )
    def get(self, request: Request, tournament_id: int) -> HttpResponseBase:
        tournament = tournament_or_404(tournament_id)
        timeout = _stream_timeout(request)
        last = _last_event_id(request)
        try:
            after = streams.position_after(last)
        except ValueError:
            raise ValidationError({"Last-Event-ID": [_not_a_position(last)]}) from None
        if after is not None and max(after.tx, after.id) > MAX_ID:  # no row has it (a 500 was)
            raise ValidationError(
                {
                    "Last-Event-ID": [
                        gettext("a position beyond any event: %(last)s") % {"last": said(last)}
                    ]
                }
            )
        feed = streams.TournamentFeed(tournament.pk, request.user, after)
        return streams.stream_response(request._request, feed, timeout, capacity.take(request))
