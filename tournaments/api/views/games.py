"""Games: the lists, a game as you may see it (with a long-poll), its events, your actions,
handing your seat to a bot and back, and a finished game's record."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.contract import said
from tournaments import play as games
from tournaments.api import capacity, waiting
from tournaments.api.pagination import Pagination, whole_number
from tournaments.api.permissions import GameAccess, game_access, seat_player_ids, signed_in
from tournaments.api.problems import Forbidden, Refused
from tournaments.api.schema import signed_in_only
from tournaments.api.serializers import (
    ActionResultSerializer,
    ActionSerializer,
    GameEventSerializer,
    GameSummarySerializer,
    GameViewSerializer,
    RecordSerializer,
)
from tournaments.api.serializers.common import NoBodySerializer
from tournaments.api.serializers.games import deadline_list, plain_action
from tournaments.api.views.common import GAME_ID, paginate, positive_query
from tournaments.models import Game, Table
from tournaments.play import GameContext, keys, table_id_of
from tournaments.services import series
from tournaments.services.access import visible_games
from tournaments.workers import autoplay, clock, notify

#: What an Idempotency-Key may be: 1 to 100 visible ASCII characters.
IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,100}")


def view_of(
    access: GameAccess, state: Any = None, *, at: int | None = None, at_row: bool = False
) -> dict[str, Any]:
    """The game as the caller may see it, in the API's names (``state``, ``at_row``: see
    ``game_view``).

    The one place where a game view becomes the API's: every answer and stream that
    shows a view builds it here, so the v1 names (docs/api.md, "Names") hold everywhere.
    The engine and the pages keep their own names (``viewer``, ``outcome``, deadlines by
    seat string); this maps them.
    """
    game = access.game
    if at is not None:  # as it was right after event ``at`` (an idempotent replay)
        view = games.game_view_at(game, access.viewer, at)
    else:
        view = games.game_view(game, access.viewer, state=state, at_row=at_row)
    context = GameContext.of(game)
    # The seats handed to a bot (by their player, or after timeouts), as the table shows
    # them: a seat sees in its own view that the server plays for it.
    handed = (
        {seat for seat, on, _ in autoplay.table_seats(game.table_id, view["sequence"]) if on}
        if game.table_id is not None
        else set()
    )
    sitting = []
    for seat, name in enumerate(view.get("players") or []):
        entry = context.seat(seat)
        sitting.append(
            {
                "seat": seat,
                "player": entry.player,
                "name": str(name),
                "bot": entry.bot,
                "autoplay": seat in handed,
            }
        )
    clock = games.game_clock(view.get("deadlines") or {})
    view.pop("viewer", None)  # the same as "seat" (or null): one name
    view["id"] = view.pop("game_id")
    view["result"] = view.pop("outcome", None)
    view["deadlines"] = deadline_list(view.get("deadlines") or {}, clock["remaining_ms"])
    view["server_time"] = clock["server_time"]
    view["commitment"] = view.get("commitment") or None
    if "seed" in view:  # revealed; a duplicate deal has none of its own (the round's)
        view["seed"] = view["seed"] or None
    view["seat"] = access.seat
    view["tournament"] = context.tournament
    view["table"] = table_id_of(game)
    view["sitting"] = sitting
    # Once over: the table's next deal, so that a client goes on to it from the view it
    # has, instead of reading the table (whose answer grows with the series).
    view["next_game_id"] = series.next_game(game)
    return view


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
        found = visible_games(request.user, Game.objects.order_by("-id"))
        status = request.query_params.get("status")
        if status:
            if status not in Game.Status.values:
                raise ValidationError(
                    {
                        "status": [
                            gettext("one of %(values)s, not %(value)s")
                            % {"values": ", ".join(Game.Status.values), "value": said(status)}
                        ]
                    }
                )
            found = found.filter(status=status)
        tournament = positive_query(request, "tournament")
        if tournament is not None:
            found = found.filter(table__round__tournament_id=tournament)
        table = positive_query(request, "table")
        if table is not None:
            found = found.filter(table_id=table)
        mine = request.query_params.get("mine", "").lower()
        if mine not in ("", "true", "false", "1", "0"):
            raise ValidationError(
                {"mine": [gettext("true or false, not %(raw)s") % {"raw": said(mine)}]}
            )
        if mine in ("true", "1"):
            user = signed_in(request)
            found = found.filter(table__seats__player__user=user).distinct()
        return paginate(
            self, request, found, lambda page: GameSummarySerializer(page, many=True).data
        )


class GameDetailView(APIView):
    """The game as the caller may see it; with ``?after=N`` a long-poll for the next move.

    ``?after=N&wait=S`` answers once the game's sequence is past ``N`` (or it is
    over), or after ``S`` seconds with the view as it is: the same answer as
    without them, only later.  Clients that would poll for the other seats'
    moves ask once instead (tournaments/workers/notify.py wakes the request).
    """

    #: Seconds a long-poll waits when ``wait`` is not given (at most the setting).
    default_wait = 25.0

    @extend_schema(
        summary="A game as you may see it, with your seat's legal actions",
        description="With `after`, a long-poll: the answer comes once the game's `sequence`"
        " is past `after` or the game is over, or after `wait` seconds with the view"
        " unchanged (200 either way). Without `after`, at once.",
        parameters=[
            GAME_ID,
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
    def get(self, request: Request, game_id: int) -> Response | waiting.LongPollResponse:
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
                    lambda: Response(view_of(game_access(request, game_id), at_row=True)),
                )
            with capacity.held(request):  # a 429 before waiting when the caller has too many
                notify.wait_for_move(game.pk, after, wait)
            access = game_access(request, game_id)  # the game as it is now
        # The row was read just now: the view is as of it (the fold kept for it serves).
        return Response(view_of(access, at_row=True))

    @staticmethod
    def _after(request: Request) -> int | None:
        """``?after=``: a sequence (0 or more), or ``None`` when not given."""
        return whole_number(request, "after", what=gettext("a sequence"))

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
            raise ValidationError(
                {"wait": [gettext("seconds, a number, not %(raw)s") % {"raw": said(raw)}]}
            ) from None
        if not 0 <= value < float("inf"):  # also refuses nan
            raise ValidationError(
                {"wait": [gettext("seconds, 0 or more, not %(raw)s") % {"raw": raw}]}
            )
        return min(value, most)


class GameEventsView(APIView):
    pagination_class = Pagination

    @extend_schema(
        summary="The game's events, redacted for you while it runs (complete after)",
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "after", OpenApiTypes.INT, description="Only events after this sequence."
            ),
        ],
        responses=GameEventSerializer(many=True),
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        access = game_access(request, game_id)
        after = whole_number(request, "after", what=gettext("a sequence")) or 0
        shown = games.game_events(access.game, access.viewer, from_sequence=after + 1)
        return paginate(self, request, shown, lambda page: page)


class GameActionView(APIView):
    @signed_in_only
    @extend_schema(
        summary="Act for your seat",
        description="Send the action with the sequence of the view you decided on and an"
        " Idempotency-Key (a retry with the same key and body returns the first outcome)."
        " 409: the game moved on (conflict: current_sequence says where) or is over"
        " (game-over); 422: the rules refuse"
        " (detail is the engine's reason). An Old Maid draw names a position only, never"
        " a card.",
        parameters=[
            GAME_ID,
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
        answer = act(access, user, request.headers.get("Idempotency-Key", ""), request.data)
        return Response(
            answer,
            headers={"Idempotency-Replayed": "true" if answer["replayed"] else "false"},
        )


def act(
    access: GameAccess, user: Any, key: str, body: Any, *, key_field: str = "Idempotency-Key"
) -> dict[str, Any]:
    """Make the move of ``body`` (an :class:`ActionSerializer`'s fields) for ``user``'s seat
    with ``key``: the answer of ``POST /games/{id}/actions``, or the exception its problem
    document comes from.  The push channel (:mod:`tournaments.api.push`) acts through here
    too, so both ways in check, key and answer a move the same way (``key_field``: where
    the caller sent the key, which a refusal names).
    """
    game_id = access.game.pk
    if not IDEMPOTENCY_KEY.fullmatch(key):
        raise ValidationError(
            {key_field: [gettext("send a fresh key of 1-100 visible ASCII characters")]}
        )
    data = plain_action(body)
    if data is None:  # the serializer words the refusal
        checked = ActionSerializer(data=body)
        checked.is_valid(raise_exception=True)
        data = checked.validated_data
    seat = access.seat
    if seat is None:
        raise Forbidden(
            gettext("you hold no seat in game %(game)s: only its players act") % {"game": game_id},
            "seat",
        )
    if "seat" in data and data["seat"] != seat:
        raise Forbidden(
            gettext("you play seat %(seat)s, not seat %(sent)s")
            % {"seat": seat, "sent": data["seat"]},
            "seat",
        )
    action: dict[str, Any] = data["action"]
    player = seat_player_ids(access.game)[seat]
    # The table's seats, read after the commit to queue its bots, serve the answer's view.
    with autoplay.seats_read_once():
        result = games.submit_action(
            access.game,
            seat,
            action,
            expected_sequence=data["expected_sequence"],
            idempotency_key=keys.api_key(user.pk, key),
            cause_kind="player",
            cause_id=str(player),
        )
        return {
            "replayed": result.replayed,
            "sequence": result.sequence,
            # A replay repeats the first answer: the view as it was right after the
            # command, however far the game has moved on since.
            "view": view_of(access, at=result.sequence)
            if result.replayed
            else view_of(access, result.state),
        }


class GameAutoplayView(APIView):
    @signed_in_only
    @extend_schema(
        summary="Hand your tournament seat to a bot",
        parameters=[GAME_ID],
        request=None,
        responses={200: GameViewSerializer},
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        access = self._seated(request, game_id)
        clock.hand_to_bot(access.game, request.user, seat=access.seat)
        return Response(view_of(access))

    @signed_in_only
    @extend_schema(
        summary="Take your tournament seat back from the bot",
        parameters=[GAME_ID],
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
        # The URL and the sign-in name the seat; a body (a "seat" of someone else's) would
        # otherwise be ignored in silence.
        NoBodySerializer(data=request.data).is_valid(raise_exception=True)
        if access.seat is None:
            raise Forbidden(
                gettext("you hold no seat in game %(game)s") % {"game": game_id}, "seat"
            )
        # The seat is the table's: a finished game's would be handed over (or taken back)
        # in the game its table plays now, which the URL does not name.
        if access.game.status == Game.Status.OVER:
            raise Refused(
                gettext(
                    "game %(game)s is over: hand your seat to a bot or take it back in the game"
                    " its table plays now (next_game_id in this game's view)"
                )
                % {"game": game_id},
                slug="game-over",
            )
        if access.game.table_id is None:
            raise Refused(
                gettext("game %(game)s is not played at a tournament table") % {"game": game_id},
                "seat",
            )
        # A seat is the table's, for the rest of its series: once that is over there is
        # nothing left to play, and a finished game's view would show a bot it never had.
        if Table.objects.filter(pk=access.game.table_id, status=Table.Status.FINISHED).exists():
            raise Refused(
                gettext("the series at game %(game)s's table is over: there is no seat to hand")
                % {"game": game_id},
                "seat",
            )
        return access


class GameRecordView(APIView):
    @extend_schema(
        summary="The portable record of a finished game (RECORD.md), seed revealed",
        parameters=[GAME_ID],
        responses=RecordSerializer,
        tags=["records"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        access = game_access(request, game_id)
        return Response(games.export_record(access.game))
