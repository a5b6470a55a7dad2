"""The browser's pages: server-rendered, with small progressive enhancement (docs/browser.md).

Every live page is a server-rendered *fragment* inside the page: ``?fragment=1``
returns the fragment alone, and ``static/parlour/live.js`` fetches it again each
time the API's Server-Sent Events stream of the game (or tournament) sends an
event.  Without JavaScript every page still works (reload to see what changed).

The play page posts a seat's action to :func:`game_act`, a thin view over
:func:`tournaments.play.submit_action` (a form with the CSRF token; the script
sends the same form with ``fetch``).  Organiser pages post to
:func:`tournament_command`, which calls the use cases of
:mod:`tournaments.services` and reports their errors as they say them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, Q
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from engine.contract import IllegalAction
from engine.registry import all_games, get_game
from engine.series import SeriesFormat
from engine.series import scores as series_scores
from events import store
from events.models import Event
from events.store import Conflict, IdempotencyKeyReused
from tournaments import services, sql
from tournaments.api.parsers import load_json
from tournaments.forms import (
    NewPlayerForm,
    RegisterForm,
    ReseatForm,
    StartRoundForm,
    SwapForm,
    TournamentForm,
)
from tournaments.models import (
    CheckIn,
    ClientSeed,
    Club,
    Game,
    Player,
    Registration,
    Round,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.play import (
    GameContext,
    game_events,
    game_view,
    is_revealed,
    keys,
    submit_action,
    table_id_of,
)
from tournaments.ratings import Rating, update
from tournaments.scoring import BYE_POINTS, TableResult, table_points
from tournaments.services.access import may_see_game, organised_clubs, seat_of
from tournaments.standings import live_standings, series_results
from tournaments.templatetags.charts import points as points_text
from tournaments.templatetags.tables import action_choices, describe, present, result_text
from tournaments.workers import clock

#: Events shown in a live table's log.
LOG_EVENTS = 8
#: Tables shown per running tournament on the home page.
HOME_TABLES = 6
#: Running tournaments followed live on the home page (one stream each).
HOME_TOURNAMENTS = 3


# -- small helpers --------------------------------------------------------------------------


def _wants_fragment(request: HttpRequest) -> bool:
    return request.GET.get("fragment") == "1"


def _is_fetch(request: HttpRequest) -> bool:
    return request.headers.get("X-Requested-With") == "fetch"


def _game_name(kind: str) -> str:
    try:
        return str(get_game(kind).name)
    except KeyError:
        return kind


def series_text(series: Mapping[str, Any] | None) -> str:
    """A series format in words."""
    if not series:
        return ""
    kind, target = series.get("kind"), series.get("target")
    if kind == "first_to":
        text = f"first to {target} round win{'s' if target != 1 else ''}"
        limit = series.get("deal_limit")
        if limit is None:
            return text + ", no limit on deals"
        return text + f", at most {limit} deals (then placed by round wins, equal wins share)"
    if kind == "losses":
        return f"{target} deal{'s' if target != 1 else ''}, fewest losses"
    if kind == "place_points":
        return f"{target} game{'s' if target != 1 else ''}, place points"
    return json.dumps(series)


def _game_stream_url(game: Game) -> str:
    return reverse("api:game-stream", args=[game.pk]) + f"?last_event_id={game.sequence}"


def _tournament_stream_url(tournament: Tournament) -> str:
    """The tournament's stream, starting after its games' last event (no replay of the past)."""
    url = reverse("api:tournament-stream", args=[tournament.pk])
    streams = [
        f"game-{pk}"
        for pk in Game.objects.filter(table__round__tournament=tournament).values_list(
            "pk", flat=True
        )
    ]
    if not streams:
        return url
    last = (
        Event.objects.filter(stream__in=streams)
        .order_by("-tx", "-id")
        .values_list("tx", "id")
        .first()
    )
    return url if last is None else f"{url}?last_event_id={last[0]}.{last[1]}"


def _seat_info(game: Game) -> list[dict[str, Any]]:
    return [seat.as_dict() for seat in GameContext.parse(game.context).seats]


def _tournament_of(game: Game) -> Tournament | None:
    tid = GameContext.parse(game.context).tournament
    if tid is not None:
        return Tournament.objects.filter(pk=tid).select_related("club").first()
    return None


def _may_see(request: HttpRequest, game: Game) -> bool:
    """Who may look at a game page: the one visibility rule (as the API)."""
    return may_see_game(request.user, game)


def _visible_game(request: HttpRequest, game_id: int) -> Game:
    game = get_object_or_404(Game, pk=game_id)
    if not _may_see(request, game):
        raise Http404(f"there is no game {game_id}")
    return game


def _current_game(table: Table) -> Game | None:
    return (
        Game.objects.filter(table=table).order_by("-number_in_series", "-id").first()
        if table.pk
        else None
    )


def _log(game: Game, viewer: Any, count: int = LOG_EVENTS) -> list[dict[str, Any]]:
    """The last ``count`` events of ``game`` in words, newest first."""
    start = max(1, game.sequence - count + 1)
    players = list(game.players)
    return [
        {
            "sequence": e["sequence"],
            "text": describe(game.kind, e["payload"], players, e["cause"]),
            "at": e["recorded_at"],
        }
        for e in reversed(game_events(game, viewer, from_sequence=start))
    ]


def _live_table(game: Game, *, viewer: Any = None, compact: bool = False) -> dict[str, Any]:
    """A running or finished game's table as ``viewer`` sees it, ready to draw."""
    view = game_view(game, viewer)
    me = viewer if isinstance(viewer, int) and not isinstance(viewer, bool) else None
    table = present(
        game.kind,
        view,
        list(game.players),
        me=me,
        seat_info=_seat_info(game),
        compact=compact,
    )
    table["game"] = game
    table["view"] = view
    table["stream_url"] = _game_stream_url(game)
    table["stream_key"] = reverse("api:game-stream", args=[game.pk])
    return table


def _context_numbers(game: Game) -> dict[str, Any]:
    context = GameContext.parse(game.context)
    return {
        "round": context.round,
        "game_number": context.game_number,
        "table_id": table_id_of(game),
    }


# -- home -----------------------------------------------------------------------------------


def _running_tables(tournament: Tournament, limit: int) -> list[dict[str, Any]]:
    """The tables of a running tournament's current round with their current games."""
    round_ = (
        Round.objects.filter(tournament=tournament, status=Round.Status.PLAYING)
        .order_by("-number")
        .first()
    )
    if round_ is None:
        return []
    tables = list(Table.objects.filter(round=round_).order_by("number"))
    tables.sort(key=lambda t: (t.status == Table.Status.FINISHED, t.number))
    shown = []
    for table in tables[:limit]:
        game = _current_game(table)
        if game is None:
            continue
        drawn = _live_table(game, compact=True)
        drawn["table_row"] = table
        drawn["round"] = round_
        shown.append(drawn)
    return shown


def _live_context() -> dict[str, Any]:
    running = list(
        Tournament.objects.filter(status=Tournament.Status.RUNNING)
        .select_related("club")
        .order_by("-created_at", "id")
    )
    live = []
    for index, tournament in enumerate(running):
        follow = index < HOME_TOURNAMENTS
        live.append(
            {
                "tournament": tournament,
                "game_name": _game_name(tournament.game),
                "followed": follow,
                "tables": _running_tables(tournament, HOME_TABLES) if follow else [],
                "stream_url": _tournament_stream_url(tournament) if follow else "",
                "stream_key": reverse("api:tournament-stream", args=[tournament.pk]),
            }
        )
    return {"live": live, "now": timezone.now()}


def home(request: HttpRequest) -> HttpResponse:
    """The club's home: tournaments running (their live tables), coming and finished."""
    if _wants_fragment(request):
        return render(request, "fragments/live.html", _live_context())
    games = [
        {
            "id": g.id,
            "name": g.name,
            "players": f"{g.min_seats}–{g.max_seats}",
            "cards": len(g.deck),
            "series": g.default_series,
            "series_text": series_text(g.default_series.to_json()),
            "doc": (g.__doc__ or "").strip().splitlines()[0] if g.__doc__ else "",
        }
        for g in all_games()
    ]
    tournaments = Tournament.objects.select_related("club").order_by("-created_at", "-id")
    coming = [t for t in tournaments if t.status == Tournament.Status.REGISTRATION]
    finished = [t for t in tournaments if t.status == Tournament.Status.FINISHED][:20]
    for t in [*coming, *finished]:
        t.game_name = _game_name(t.game)  # type: ignore[attr-defined]
    counts = dict(
        Registration.objects.filter(tournament__in=coming, dropped_after__isnull=True)
        .values("tournament")
        .annotate(n=Count("id"))
        .values_list("tournament", "n")
    )
    for t in coming:
        t.entries = counts.get(t.pk, 0)  # type: ignore[attr-defined]
    context = {
        "games": games,
        "coming": coming,
        "finished": finished,
        "clubs": Club.objects.all(),
        **_live_context(),
    }
    return render(request, "home.html", context)


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and compose health checks."""
    sql.ping()
    return JsonResponse({"status": "ok"})


# -- tournament -----------------------------------------------------------------------------


@dataclass
class StandingRow:
    rank: int
    player: Player
    points: Fraction
    per_round: list[Fraction | None]
    opponents_points: Fraction
    played: int
    byes: int
    dropped: bool
    colour: str = ""
    cumulative: list[float] = field(default_factory=list)


PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
)


def round_points(
    tournament: Tournament,
) -> tuple[list[int], list[int], dict[str, dict[int, Fraction]]]:
    """The rounds that have begun, those finished, and each player's points per round."""
    begun = list(
        Round.objects.filter(
            tournament=tournament, status__in=[Round.Status.PLAYING, Round.Status.FINISHED]
        ).order_by("number")
    )
    points: dict[str, dict[int, Fraction]] = defaultdict(dict)
    seats: dict[int, dict[int, str]] = defaultdict(dict)
    for table_id, seat, player_id in TableSeat.objects.filter(
        table__round__tournament=tournament, table__status=Table.Status.FINISHED
    ).values_list("table_id", "seat", "player_id"):
        seats[table_id][seat] = str(player_id)
    for table in Table.objects.filter(
        round__tournament=tournament, status=Table.Status.FINISHED
    ).select_related("round"):
        players = [seats[table.pk][s] for s in sorted(seats[table.pk])]
        result = TableResult.from_seats(players, table.placings or [])
        for pid, value in table_points(result.placings).items():
            points[pid][table.round.number] = value
    for round_ in begun:
        for pid in round_.byes:
            points[str(pid)][round_.number] = BYE_POINTS
    finished = [r.number for r in begun if r.status == Round.Status.FINISHED]
    return [r.number for r in begun], finished, points


def standings_rows(tournament: Tournament) -> tuple[list[int], list[int], list[StandingRow]]:
    """The live standings with each player's points per round, the rounds that have begun
    and those finished (the chart's, with each player's total after each of them)."""
    numbers, finished, points = round_points(tournament)
    standings = live_standings(tournament)
    players = Player.objects.in_bulk([int(s.player) for s in standings])
    rows = []
    for index, s in enumerate(standings):
        per = [points.get(s.player, {}).get(n) for n in numbers]
        total, running = Fraction(0), []
        for n in finished:
            total += points.get(s.player, {}).get(n) or 0
            running.append(float(total))
        rows.append(
            StandingRow(
                rank=s.rank,
                player=players[int(s.player)],
                points=s.points,
                per_round=per,
                opponents_points=s.opponents_points,
                played=s.played,
                byes=s.byes,
                dropped=s.dropped,
                colour=PALETTE[index % len(PALETTE)],
                cumulative=[0.0, *running],
            )
        )
    return numbers, finished, rows


def _rounds_context(tournament: Tournament, user: Any) -> list[dict[str, Any]]:
    """Every round, newest first: its tables (seats, current game, placings) and byes.

    A few queries for the whole tournament, whatever its number of tables.
    """
    mine = (
        set(Player.objects.filter(user=user).values_list("pk", flat=True))
        if user.is_authenticated
        else set()
    )
    seats: dict[int, list[TableSeat]] = defaultdict(list)
    for ts in (
        TableSeat.objects.filter(table__round__tournament=tournament)
        .select_related("player")
        .order_by("table_id", "seat")
    ):
        seats[ts.table_id].append(ts)
    current: dict[int, Game] = {}
    played: dict[int, int] = defaultdict(int)
    for game in Game.objects.filter(table__round__tournament=tournament).order_by(
        "number_in_series", "id"
    ):
        assert game.table_id is not None
        current[game.table_id] = game
        if game.is_over:
            played[game.table_id] += 1
    by_round: dict[int, list[Table]] = defaultdict(list)
    for table in Table.objects.filter(round__tournament=tournament).order_by("number"):
        by_round[table.round_id].append(table)
    byes = {
        p.pk: p
        for p in Player.objects.filter(
            pk__in={pid for r in Round.objects.filter(tournament=tournament) for pid in r.byes}
        )
    }
    rounds = []
    for round_ in Round.objects.filter(tournament=tournament).order_by("-number"):
        tables = []
        for table in by_round[round_.pk]:
            at = seats[table.pk]
            placings = []
            if table.placings:
                place = 1
                for group in table.placings:
                    names = [at[s].player for s in group if s < len(at)]
                    placings.append({"place": place, "players": names})
                    place += len(group)
            tables.append(
                {
                    "table": table,
                    "seats": at,
                    "game": current.get(table.pk),
                    "placings": placings,
                    "games_played": played[table.pk],
                    "mine": any(s.player_id in mine for s in at),
                }
            )
        rounds.append(
            {
                "round": round_,
                "tables": tables,
                "byes": [byes[p] for p in round_.byes if p in byes],
            }
        )
    return rounds


def _tournament_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    numbers, finished, rows = standings_rows(tournament)
    live = tournament.status == Tournament.Status.RUNNING
    return {
        "tournament": tournament,
        "game_name": _game_name(tournament.game),
        "series_text": series_text(tournament.series),
        "rounds": _rounds_context(tournament, request.user),
        "round_numbers": numbers,
        "standings": rows,
        "chart_rounds": finished,
        "live": live,
        "stream_url": _tournament_stream_url(tournament) if live else "",
        "stream_key": reverse("api:tournament-stream", args=[tournament.pk]),
        "organiser": services.is_organiser(request.user, tournament.club),
        "registrations": Registration.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("player__name"),
    }


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A tournament: its rounds and seatings, live standings with points per round, a chart."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    context = _tournament_context(request, tournament)
    if _wants_fragment(request):
        return render(request, "fragments/tournament.html", context)
    return render(request, "tournament.html", context)


# -- tables and games -----------------------------------------------------------------------


def _series_context(table: Table) -> dict[str, Any]:
    games = list(Game.objects.filter(table=table).order_by("number_in_series", "id"))
    seats = list(TableSeat.objects.filter(table=table).select_related("player"))
    tournament = table.round.tournament
    fmt = SeriesFormat.from_json(tournament.series)
    results = [g.result for g in games if g.is_over and g.result]
    totals = series_scores(fmt, results, len(seats)) if seats else []
    rows = [
        {
            "game": g,
            "text": result_text(g.kind, g.result, list(g.players)) if g.is_over else "playing",
        }
        for g in games
    ]
    score_label = {"first_to": "round wins", "losses": "losses", "place_points": "points"}[fmt.kind]
    scores = []
    for i, seat in enumerate(seats):
        value = totals[i] if i < len(totals) else 0
        if fmt.kind == "losses":
            value = abs(value)
        scores.append({"seat": seat, "value": points_text(value)})
    return {
        "games": rows,
        "seats": seats,
        "scores": scores,
        "score_label": score_label,
        "series_text": series_text(tournament.series),
    }


def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    """A tournament table: its series so far and its current game, live as a spectator sees it."""
    table = get_object_or_404(Table.objects.select_related("round__tournament__club"), pk=table_id)
    game = _current_game(table)
    context: dict[str, Any] = {
        "table_row": table,
        "tournament": table.round.tournament,
        "round": table.round,
        "game_name": _game_name(table.round.tournament.game),
        **_series_context(table),
    }
    if game is not None:
        context["drawn"] = _live_table(game)
        context["log"] = _log(game, None)
        context["my_seat"] = seat_of(request.user, game)
    if _wants_fragment(request):
        return render(request, "fragments/table.html", context)
    return render(request, "table.html", context)


def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    """One game as a spectator sees it, live while it runs; all cards once it is over."""
    game = _visible_game(request, game_id)
    tournament = _tournament_of(game)
    context = {
        "game": game,
        "game_name": _game_name(game.kind),
        "tournament": tournament,
        "series_text": series_text(tournament.series) if tournament else "",
        "drawn": _live_table(game),
        "log": _log(game, None),
        "my_seat": seat_of(request.user, game),
        **_context_numbers(game),
    }
    if _wants_fragment(request):
        return render(request, "fragments/game.html", context)
    return render(request, "game.html", context)


# -- replay ---------------------------------------------------------------------------------


def _replay_state(game: Game, move: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The full view after ``move`` moves (0: the deal) and every event of the game."""
    engine = get_game(game.kind)
    events = store.read_stream(game.stream)
    state: Any = None
    for event in events[: move + 1]:
        state = engine.evolve(state, event.payload)
    view = engine.view(state, None)
    view["hidden"] = engine.hidden(state)
    view["players"] = list(game.players)
    shown = [
        {
            "number": i,
            "event": e,
            "text": describe(
                game.kind,
                e.payload,
                list(game.players),
                {"kind": e.cause_kind, "id": e.cause_id},
            ),
        }
        for i, e in enumerate(events)
    ]
    return view, shown


def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game move by move, every card shown.

    ``?move=N`` (0 is the deal) opens move N; the script also follows ``#move-N``.
    """
    game = _visible_game(request, game_id)
    if not game.is_over or not is_revealed(game):
        return render(
            request,
            "replay_running.html",
            {"game": game, "game_name": _game_name(game.kind), "twins": game.is_over},
            status=409,
        )
    total = game.sequence - 1
    try:
        move = int(request.GET.get("move", total))
    except ValueError:
        move = total
    move = min(max(move, 0), total)
    view, moves = _replay_state(game, move)
    table = present(game.kind, view, list(game.players), seat_info=_seat_info(game))
    context = {
        "game": game,
        "game_name": _game_name(game.kind),
        "tournament": _tournament_of(game),
        "table": table,
        "move": move,
        "total": total,
        "moves": moves,
        "current": moves[move],
        "result_text": result_text(game.kind, game.result, list(game.players)),
        "record_url": reverse("api:game-record", args=[game.pk]),
        **_context_numbers(game),
    }
    if _wants_fragment(request):
        return render(request, "fragments/replay.html", context)
    return render(request, "replay.html", context)


# -- playing --------------------------------------------------------------------------------


def _play_context(request: HttpRequest, game: Game, seat: int) -> dict[str, Any]:
    drawn = _live_table(game, viewer=seat)
    choices = action_choices(game.kind, drawn["view"], list(game.players))
    table_seat = None
    if game.table_id is not None:
        table_seat = TableSeat.objects.filter(table_id=game.table_id, seat=seat).first()
    next_game = None
    if game.is_over and game.table_id is not None:
        later = (
            Game.objects.filter(
                table_id=game.table_id, number_in_series__gt=game.number_in_series or 0
            )
            .order_by("number_in_series")
            .first()
        )
        next_game = later
    tournament = _tournament_of(game)
    return {
        "game": game,
        "game_name": _game_name(game.kind),
        "tournament": tournament,
        "series_text": series_text(tournament.series) if tournament else "",
        "forced_for_me": _forced_for(game, seat),
        "drawn": drawn,
        "seat": seat,
        "choices": choices,
        "log": _log(game, seat),
        "handed_to_bot": bool(table_seat and table_seat.autoplay),
        "deadline": (game.deadlines or {}).get(str(seat)),
        "waiting_names": [
            list(game.players)[s] for s in game.waiting_for or [] if s < len(game.players)
        ],
        "next_game": next_game,
        "now": timezone.now(),
        **_context_numbers(game),
    }


def _forced_for(game: Game, seat: int) -> bool:
    """Whether the server is about to play ``seat``'s forced move."""
    from tournaments.workers.autoplay import next_forced_move

    forced = next_forced_move(game)
    return forced is not None and forced[0] == seat


def _my_seat(request: HttpRequest, game: Game) -> int:
    """The caller's seat; a game they may not even look at is not found (no probing of ids)."""
    seat = seat_of(request.user, game)
    if seat is None and not _may_see(request, game):
        raise Http404(f"there is no game {game.pk}")
    if seat is None:
        raise PermissionDenied(
            "You do not sit at this table: log in as one of its players to play."
        )
    return seat


@login_required
def game_play(request: HttpRequest, game_id: int) -> HttpResponse:
    """A seated player's page: their hand, their legal actions, the clock, the table live."""
    game = get_object_or_404(Game, pk=game_id)
    seat = _my_seat(request, game)
    context = _play_context(request, game, seat)
    if _wants_fragment(request):
        return render(request, "fragments/play.html", context)
    return render(request, "play.html", context)


@require_POST
@login_required
def game_act(request: HttpRequest, game_id: int) -> HttpResponse:
    """Make the posted ``action`` (JSON) for the caller's seat, seen at ``sequence``.

    A form post answers with a redirect to the play page (and a message on a
    refusal); the script's ``fetch`` gets JSON ``{"ok", "message", "sequence"}``.
    """
    game = get_object_or_404(Game, pk=game_id)
    seat = _my_seat(request, game)
    message, status, sequence = "", 200, game.sequence
    try:
        action = load_json(request.POST.get("action", ""))
        expected = int(request.POST.get("sequence", ""))
        if not isinstance(action, dict):
            raise ValueError("an action is a JSON object")
    except ValueError:
        message, status = "That was not an action: choose one of the buttons.", 400
    else:
        try:
            sequence = _submit(game.pk, seat, action, expected)
        except IllegalAction as error:
            message, status = f"Not allowed: {error.reason}", 400
        except Conflict:
            message, status = "The game moved on before your move arrived: choose again.", 409
        except IdempotencyKeyReused:
            message, status = "That move was already sent.", 409
    if _is_fetch(request):
        return JsonResponse(
            {"ok": status == 200, "message": message, "sequence": sequence}, status=status
        )
    if message:
        messages.error(request, message)
    return redirect("game-play", game_id=game.pk)


def _submit(game_id: int, seat: int, action: Mapping[str, Any], expected: int) -> int:
    """Submit a seat's action through the game service; the new sequence.

    The idempotency key names the seat, the sequence seen and the action, so a
    double click (or a retried post) stores the move once.
    """
    result = submit_action(
        game_id,
        seat,
        action,
        expected_sequence=expected,
        idempotency_key=keys.web_key(seat, expected, action),
        cause_kind="seat",
    )
    return result.sequence


@require_POST
@login_required
def take_back_seat(request: HttpRequest, game_id: int) -> HttpResponse:
    """A player takes back their seat from the bot that played it after their timeouts."""
    game = get_object_or_404(Game, pk=game_id)
    seat = _my_seat(request, game)
    try:
        clock.take_back_seat(game, request.user, seat=seat)
        messages.success(request, "Your seat is yours again: the bot stops playing it.")
    except (PermissionDenied, TableSeat.DoesNotExist, ValueError) as error:
        messages.error(request, str(error))
    return redirect("game-play", game_id=game.pk)


# -- players ----------------------------------------------------------------------------------


def rating_history(player: Player) -> list[dict[str, Any]]:
    """Per game: the player's rating after each finished table they played, oldest first.

    Replays the club's finished tables in the order they finished, as
    :func:`tournaments.standings.club_ratings` does, noting this player's rating.
    """
    found = []
    kinds = (
        Tournament.objects.filter(club=player.club, registrations__player=player)
        .values_list("game", flat=True)
        .distinct()
    )
    for kind in sorted(set(kinds)):
        tournaments = Tournament.objects.filter(club=player.club, game=kind)
        done = [s for s in series_results(tournaments, from_events=False) if s.over]
        done.sort(key=lambda s: (s.finished_at.timestamp() if s.finished_at else 0.0, s.table))
        ratings: dict[str, Rating] = {}
        points = []
        me = str(player.pk)
        for result in done:
            ratings = update(ratings, [list(g) for g in result.table_result().placings])
            if me in result.players:
                points.append({"table": result.table, "rating": ratings[me].display})
        if points:
            found.append(
                {
                    "game": kind,
                    "game_name": _game_name(kind),
                    "points": points,
                    "current": points[-1]["rating"],
                    "values": [1000, *[p["rating"] for p in points]],
                }
            )
    return found


def player_detail(request: HttpRequest, player_id: int) -> HttpResponse:
    """A player: their games, their results at each table, their rating history per game."""
    player = get_object_or_404(Player.objects.select_related("club", "user"), pk=player_id)
    seats = list(
        TableSeat.objects.filter(player=player)
        .select_related("table__round__tournament")
        .order_by("-table__round__tournament__created_at", "-table__round__number")
    )
    results = []
    for ts in seats:
        table = ts.table
        place, points = None, None
        if table.placings:
            rank = 1
            for group in table.placings:
                if ts.seat in group:
                    place = rank
                rank += len(group)
            players_in_order = [
                str(pid)
                for pid in TableSeat.objects.filter(table=table)
                .order_by("seat")
                .values_list("player_id", flat=True)
            ]
            result = TableResult.from_seats(players_in_order, table.placings)
            points = table_points(result.placings).get(str(player.pk))
        results.append(
            {
                "seat": ts,
                "table": table,
                "tournament": table.round.tournament,
                "place": place,
                "points": points,
            }
        )
    games = list(Game.objects.filter(table__seats__player=player).order_by("-id").distinct()[:50])
    rows = []
    for game in games:
        info = _seat_info(game)
        seat = next((i for i, s in enumerate(info) if s.get("player") == player.pk), None)
        rows.append(
            {
                "game": game,
                "seat": seat,
                "game_name": _game_name(game.kind),
                "text": result_text(game.kind, game.result, list(game.players))
                if game.is_over
                else "playing",
            }
        )
    mine = request.user.is_authenticated and player.user_id == request.user.pk
    return render(
        request,
        "player.html",
        {
            "player": player,
            "results": results,
            "games": rows,
            "ratings": rating_history(player),
            "mine": mine,
            "tournaments": Registration.objects.filter(player=player)
            .select_related("tournament")
            .order_by("-tournament__created_at"),
        },
    )


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    """The logged-in person's players and the games waiting for them."""
    user = request.user
    assert isinstance(user, User)  # login_required
    players = list(Player.objects.filter(user=user).select_related("club"))
    running = []
    for game in (
        Game.objects.filter(status=Game.Status.RUNNING, table__seats__player__in=players)
        .distinct()
        .order_by("id")
    ):
        seat = seat_of(user, game)
        if seat is None:
            continue
        running.append(
            {
                "game": game,
                "seat": seat,
                "game_name": _game_name(game.kind),
                "my_turn": seat in (game.waiting_for or []),
                "tournament": _tournament_of(game),
            }
        )
    organised = _organised_clubs(user)
    # The commitments of the deals to come at my tables: shown before the deal, so that I
    # can save one and set a new client seed before the deck is fixed (docs/fairness.md).
    next_deals = (
        TableSeat.objects.filter(player__in=players)
        .exclude(table__status=Table.Status.FINISHED)
        .exclude(table__next_commitment="")
        .select_related("table__round__tournament")
        .order_by("table_id")
    )
    found = ClientSeed.objects.filter(user=user).first()
    return render(
        request,
        "me.html",
        {
            "players": players,
            "running": running,
            "organised": organised,
            "next_deals": [seat.table for seat in next_deals],
            "client_seed": found.seed if found else "",
            "play_forced_moves": services.plays_forced_moves(user),
            "saved": request.GET.get("saved") == "1",
        },
    )


@require_POST
@login_required
def my_client_seed(request: HttpRequest) -> HttpResponse:
    """Set the logged-in person's client seed (the form on their page)."""
    user = request.user
    assert isinstance(user, User)  # login_required
    try:
        services.set_client_seed(user, request.POST.get("seed", ""))
    except services.ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "Your client seed is set: the decks dealt to you next mix it in.")
    return redirect("my-games")


@login_required
@require_POST
def my_preferences(request: HttpRequest) -> HttpResponse:
    """Turn on or off the server playing the person's forced moves."""
    user = request.user
    assert isinstance(user, User)  # login_required
    try:
        services.set_play_forced_moves(user, request.POST.get("play_forced_moves") == "on")
    except services.ServiceError as error:
        messages.error(request, error.message)  # on the page, as the client seed's form does
        return redirect("my-games")
    return redirect(reverse("my-games") + "?saved=1")


# -- organisers -------------------------------------------------------------------------------


def _organised_clubs(user: Any) -> Any:
    return organised_clubs(user)


def _require_organiser(request: HttpRequest, club: Club) -> None:
    if not services.is_organiser(request.user, club):
        raise PermissionDenied(f"Only the organisers of {club.name} may do this.")


@login_required
def tournament_create(request: HttpRequest) -> HttpResponse:
    """An organiser creates a tournament of one of their clubs."""
    clubs = _organised_clubs(request.user)
    if not clubs.exists():
        raise PermissionDenied("You organise no club: ask an administrator to add you.")
    form = TournamentForm(request.POST or None, clubs=clubs)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = services.create_tournament(data["club"], **form.service_arguments())
        except services.ServiceError as error:
            form.add_service_error(error)
        else:
            messages.success(request, f"{tournament.name} is open for registration.")
            return redirect("tournament-manage", tournament_id=tournament.pk)
    return render(request, "organise/create.html", {"form": form})


def _manage_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    next_number = services.next_round_number(tournament)
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    last = rounds[-1] if rounds else None
    registrations = list(
        Registration.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("player__name")
    )
    checked = set(
        CheckIn.objects.filter(tournament=tournament, round_number=next_number).values_list(
            "player_id", flat=True
        )
    )
    seated_round = last if last is not None and last.status == Round.Status.SEATED else None
    round_players: list[Player] = []
    if seated_round is not None:
        round_players = [
            ts.player
            for ts in TableSeat.objects.filter(table__round=seated_round).select_related("player")
        ] + list(Player.objects.filter(pk__in=seated_round.byes))
        round_players.sort(key=lambda p: p.name)
    games = Game.objects.filter(table__round__tournament=tournament)
    running_games = list(games.filter(status=Game.Status.RUNNING).select_related("table__round"))
    clocks = []
    for game in running_games:
        for seat_key, due in sorted((game.deadlines or {}).items()):
            seat_number = int(seat_key)
            clocks.append(
                {
                    "game": game,
                    "seat": seat_number,
                    "name": list(game.players)[seat_number]
                    if seat_number < len(game.players)
                    else seat_key,
                    "deadline": due,
                }
            )
    streams = [g.stream for g in games.only("id")]
    timeouts = []
    if streams:
        for event in (
            Event.objects.filter(stream__in=streams, cause_kind="timeout")
            .order_by("-id")
            .values("stream", "sequence", "payload", "recorded_at")[:30]
        ):
            game_id = int(event["stream"].split("-", 1)[1])
            seat_number = event["payload"].get("seat")
            timeouts.append(
                {
                    "game_id": game_id,
                    "sequence": event["sequence"],
                    "seat": seat_number,
                    "at": event["recorded_at"],
                }
            )
        names = {
            g.pk: list(g.players)
            for g in Game.objects.filter(pk__in={t["game_id"] for t in timeouts})
        }
        for t in timeouts:
            players = names.get(t["game_id"], [])
            seat_number = t["seat"]
            t["name"] = (
                players[seat_number]
                if isinstance(seat_number, int) and seat_number < len(players)
                else "?"
            )
    troubled = list(
        TableSeat.objects.filter(table__round__tournament=tournament)
        .filter(Q(autoplay=True) | Q(timeouts_in_a_row__gt=0))
        .select_related("player", "table__round")
    )
    registered_ids = {r.player_id for r in registrations}
    return {
        "tournament": tournament,
        "game_name": _game_name(tournament.game),
        "series_text": series_text(tournament.series),
        "next_number": next_number,
        "rounds": _rounds_context(tournament, request.user),
        "last_round": last,
        "seated_round": seated_round,
        "registrations": registrations,
        "checked": checked,
        "register_form": RegisterForm(
            players=Player.objects.filter(club=tournament.club)
            .exclude(pk__in=registered_ids)
            .order_by("name")
        ),
        "new_player_form": NewPlayerForm(game=tournament.game),
        "start_form": StartRoundForm(),
        "swap_form": SwapForm(players=round_players) if round_players else None,
        "reseat_form": ReseatForm(players=round_players) if round_players else None,
        "clocks": clocks,
        "timeouts": timeouts,
        "troubled": troubled,
        "now": timezone.now(),
        "can_start": tournament.status != Tournament.Status.FINISHED
        and len(rounds) < tournament.rounds
        and (last is None or last.status == Round.Status.FINISHED),
        "stream_url": _tournament_stream_url(tournament)
        if tournament.status == Tournament.Status.RUNNING
        else "",
        "stream_key": reverse("api:tournament-stream", args=[tournament.pk]),
    }


@login_required
def tournament_manage(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The organiser's desk: registrations, check-in, rounds and seating, drops, timeouts."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    _require_organiser(request, tournament.club)
    context = _manage_context(request, tournament)
    if _wants_fragment(request):
        return render(request, "fragments/manage_live.html", context)
    return render(request, "organise/manage.html", context)


Command = Callable[[HttpRequest, Tournament], str]


def _posted_player(request: HttpRequest, tournament: Tournament, name: str = "player") -> Player:
    raw = request.POST.get(name, "")
    if not raw.isdecimal():
        raise services.ServiceError(f"choose a player ({name} is missing)", name)
    return _club_player(tournament, int(raw))


def _club_player(tournament: Tournament, player_id: int) -> Player:
    player = Player.objects.filter(pk=player_id, club=tournament.club).first()
    if player is None:
        raise services.ServiceError(f"{tournament.club} has no player {player_id}", "player")
    return player


def _cmd_register(request: HttpRequest, tournament: Tournament) -> str:
    form = RegisterForm(
        request.POST, players=Player.objects.filter(club=tournament.club).order_by("name")
    )
    if not form.is_valid():
        raise services.ServiceError("choose the players to register", "players")
    chosen = list(form.cleaned_data["players"])
    with transaction.atomic():  # all of them, or none
        for player in chosen:
            services.register(tournament, player)
    return f"Registered {', '.join(p.name for p in chosen)}."


def _cmd_add_player(request: HttpRequest, tournament: Tournament) -> str:
    form = NewPlayerForm(request.POST, game=tournament.game)
    if not form.is_valid():
        errors = "; ".join(f"{k}: {' '.join(str(e) for e in v)}" for k, v in form.errors.items())
        raise services.ServiceError(f"the new player is not right ({errors})", "name")
    player = services.add_player(
        tournament.club, form.cleaned_data["name"], bot_level=form.cleaned_data["bot_level"]
    )
    services.register(tournament, player)
    return f"Added {player.name} to {tournament.club} and registered them."


def _cmd_check_in(request: HttpRequest, tournament: Tournament) -> str:
    player = _posted_player(request, tournament)
    services.check_in(tournament, player)
    return f"{player.name} is checked in for round {services.next_round_number(tournament)}."


def _cmd_check_in_all(request: HttpRequest, tournament: Tournament) -> str:
    number = services.next_round_number(tournament)
    done = []
    with transaction.atomic():  # all of them, or none
        for registration in Registration.objects.filter(
            tournament=tournament, dropped_after__isnull=True
        ).select_related("player"):
            if registration.from_round > number:
                continue
            if CheckIn.objects.filter(
                tournament=tournament, player=registration.player, round_number=number
            ).exists():
                continue
            services.check_in(tournament, registration.player)
            done.append(registration.player.name)
    return f"Checked in {len(done)} player(s) for round {number}."


def _cmd_drop(request: HttpRequest, tournament: Tournament) -> str:
    player = _posted_player(request, tournament)
    services.drop(tournament, player)
    return f"{player.name} has dropped out of {tournament.name}."


def _cmd_start_round(request: HttpRequest, tournament: Tournament) -> str:
    form = StartRoundForm(request.POST)
    auto = form.is_valid() and bool(form.cleaned_data.get("auto_check_in"))
    round_ = services.start_round(tournament, auto_check_in=auto)
    return f"Round {round_.number} is seated: check the seating, adjust it, then begin it."


def _seated(tournament: Tournament) -> Round:
    round_ = Round.objects.filter(tournament=tournament).order_by("-number").first()
    if round_ is None or round_.status != Round.Status.SEATED:
        raise services.ServiceError("no round is seated and waiting to begin", "round")
    return round_


def _cmd_swap(request: HttpRequest, tournament: Tournament) -> str:
    round_ = _seated(tournament)
    a = _posted_player(request, tournament, "a")
    b = _posted_player(request, tournament, "b")
    services.swap_players(round_, a, b)
    return f"Swapped {a.name} and {b.name} in round {round_.number}."


def _cmd_reseat(request: HttpRequest, tournament: Tournament) -> str:
    round_ = _seated(tournament)
    players = Player.objects.filter(club=tournament.club)
    form = ReseatForm(request.POST, players=players)
    if not form.is_valid():
        errors = "; ".join(str(e) for errors in form.errors.values() for e in errors)
        raise services.ServiceError(f"the round is not seated again: {errors}", "round")
    round_ = services.reseat(round_, **form.constraints())
    return f"Round {round_.number} is seated again."


def _cmd_begin_round(request: HttpRequest, tournament: Tournament) -> str:
    round_ = services.begin_round(_seated(tournament))
    return f"Round {round_.number} has begun: the first deals are on the tables."


def _cmd_take_back(request: HttpRequest, tournament: Tournament) -> str:
    raw = request.POST.get("table_seat", "")
    row = TableSeat.objects.filter(
        pk=int(raw) if raw.isdecimal() else 0, table__round__tournament=tournament
    ).first()
    if row is None:
        raise services.ServiceError("there is no such seat in this tournament", "table_seat")
    clock.take_back_seat(row, request.user)
    return f"{row.player.name}'s seat is theirs again."


COMMANDS: dict[str, Command] = {
    "register": _cmd_register,
    "add-player": _cmd_add_player,
    "check-in": _cmd_check_in,
    "check-in-all": _cmd_check_in_all,
    "drop": _cmd_drop,
    "start-round": _cmd_start_round,
    "swap": _cmd_swap,
    "reseat": _cmd_reseat,
    "begin-round": _cmd_begin_round,
    "take-back": _cmd_take_back,
}


@require_POST
@login_required
def tournament_command(request: HttpRequest, tournament_id: int, command: str) -> HttpResponseBase:
    """One organiser action (``COMMANDS``) on a tournament; back to the organiser's desk."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)
    _require_organiser(request, tournament.club)
    handler = COMMANDS.get(command)
    if handler is None:
        raise Http404(f"there is no organiser command {command!r}")
    try:
        messages.success(request, handler(request, tournament))
    except services.ServiceError as error:
        messages.error(request, error.message)
    except PermissionDenied as error:
        messages.error(request, str(error))
    return redirect("tournament-manage", tournament_id=tournament.pk)
