"""The read side the pages and the API show: page data over the services.

The views (``tournaments/web/``, ``tournaments/api/views/``) are thin: what they
show that takes more than a lookup is computed here, over the game service
(:mod:`tournaments.play`), the tournament services and the models, so that no
view reads the event store or folds a game itself.  Who may see what is
:mod:`tournaments.services.access`'s.

Page data: standings rows with points per round, a player's rating history (a replay
of the club's finished tables), a finished game move by move, the organiser's list of
timeouts, where a tournament's live stream starts.  It reads ``events.models`` for two
positions in the store (where a tournament's stream starts, its timeouts).

(Just over 400 lines: one function a page's read, each standing alone over the
services; a page whose read grows takes its own module.)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from django.utils.translation import gettext

from engine.fairness import check_shuffle, shuffle_contributions
from engine.record import import_record
from engine.registry import get_game
from events.models import Event
from tournaments import play as games
from tournaments.models import (
    Forfeit,
    Game,
    Player,
    RatingStep,
    Registration,
    Round,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.play.context import GameContext
from tournaments.scoring import BYE_POINTS, TableResult, forfeited, table_points
from tournaments.services.access import hidden_tables
from tournaments.standings import forfeits_in_force, live_standings

# -- games and tables ----------------------------------------------------------------------


def game_name(kind: str) -> str:
    """A game's name in words, in the request's language (the engine's English name, marked
    in the engine, through the catalog: «Старая дева»); the id itself for a game this server
    does not know."""
    try:
        return gettext(get_game(kind).name)
    except KeyError:
        return kind


def tournament_of(game: Game) -> Tournament | None:
    """The tournament ``game`` was dealt for (with its club), or ``None``."""
    tid = GameContext.of(game).tournament
    if tid is not None:
        return Tournament.objects.filter(pk=tid).select_related("club").first()
    return None


def current_game(table: Table) -> Game | None:
    """The table's latest game of its series (``None`` before its first deal)."""
    return (
        Game.objects.filter(table=table).order_by("-number_in_series", "-id").first()
        if table.pk
        else None
    )


def tournament_stream_position(tournament: Tournament) -> str | None:
    """The store position (``tx.id``) of the tournament's games' last event, ``None`` before
    any: where a page following the tournament live starts (no replay of the past)."""
    streams = [
        games.stream_name(pk)
        for pk in Game.objects.filter(table__round__tournament=tournament).values_list(
            "pk", flat=True
        )
    ]
    if not streams:
        return None
    last = (
        Event.objects.filter(stream__in=streams)
        .order_by("-tx", "-id")
        .values_list("tx", "id")
        .first()
    )
    return None if last is None else f"{last[0]}.{last[1]}"


def recent_timeouts(
    tournament: Tournament, limit: int = 30, *, hidden: Collection[int] = ()
) -> list[dict[str, Any]]:
    """The tournament's last ``limit`` timeouts, newest first: game, sequence, seat, when and
    the name at that seat (the organiser's desk), but those of the tables ``hidden``."""
    games = Game.objects.filter(table__round__tournament=tournament).exclude(table_id__in=hidden)
    streams = [g.stream for g in games]
    if not streams:
        return []
    timeouts = []
    for event in (
        Event.objects.filter(stream__in=streams, cause_kind="timeout")
        .order_by("-id")
        .values("stream", "sequence", "payload", "recorded_at")[:limit]
    ):
        timeouts.append(
            {
                "game_id": int(event["stream"].split("-", 1)[1]),
                "sequence": event["sequence"],
                "seat": event["payload"].get("seat"),
                "at": event["recorded_at"],
            }
        )
    names = {
        g.pk: list(g.players) for g in Game.objects.filter(pk__in={t["game_id"] for t in timeouts})
    }
    for t in timeouts:
        players = names.get(t["game_id"], [])
        seat = t["seat"]
        t["name"] = players[seat] if isinstance(seat, int) and seat < len(players) else "?"
    return timeouts


def replay(
    game: Game, move: int, seat: int | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A revealed game's view after ``move`` moves (0: the deal) and all its events, each
    with the views of the table before and after it (for the words of its consequences:
    :func:`tournaments.play.game_story`).

    Without ``seat``: every event whole (the game is revealed:
    :func:`tournaments.play.is_revealed`, which the caller checks first), the view with
    every hand and the hidden cards.  With ``seat``: the game as that seat saw it
    (:func:`tournaments.play.seat_story`): its own view, each event as it was shown to it.
    """
    engine = get_game(game.kind)
    # Each event with the table before and after it, for the log's consequences.
    events = games.game_story(game, None) if seat is None else games.seat_story(game, seat)
    # The table is folded from the whole events (shown whole: the game is revealed).
    whole = events if seat is None else games.game_events(game, None)
    state: Any = None
    for event in whole[: move + 1]:
        state = engine.evolve(state, event["payload"])
    view = engine.view(state, seat)
    if seat is None:
        view["hidden"] = engine.hidden(state)
    view["players"] = list(game.players)
    return view, events


def verify_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """Replay a portable record (RECORD.md): its result and whether its revealed shuffle
    checks out.  Stores nothing; raises the engine's record errors on the first fault."""
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
    return {
        "valid": True,
        "game": engine.id,
        "seats": record["seats"],
        "move_count": len(events) - 1,
        "result": outcome,
        "over": outcome is not None,
        "shuffle_verified": verified,
    }


# -- standings and ratings -----------------------------------------------------------------


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
    #: The player's own colour in this tournament's chart and table (whatever their rank),
    #: its place in the order colours are handed out, and a dash pattern once the palette
    #: has gone round (``""``: a solid line).
    colour: str = ""
    colour_order: int = 0
    dash: str = ""
    cumulative: list[float] = field(default_factory=list)
    #: Series forfeited (each counted as last place).
    forfeits: int = 0
    #: Round numbers of those series.
    forfeit_rounds: list[int] = field(default_factory=list)


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
#: The line of a player once the palette has gone round once, twice...
DASHES = ("", "6 3", "2 2", "8 3 2 3")


def player_colours(tournament: Tournament) -> dict[int, tuple[int, str, str]]:
    """Each registered player's place in the colour order, colour and dash pattern: by
    registration, so a player keeps theirs from round to round whatever their rank (a late
    entrant takes the next)."""
    order = Registration.objects.filter(tournament=tournament).order_by("pk")
    return {
        pid: (i, PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)])
        for i, pid in enumerate(order.values_list("player_id", flat=True))
    }


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
    gone = forfeits_in_force(tournament)
    seats: dict[int, dict[int, str]] = defaultdict(dict)
    for table_id, seat, player_id in TableSeat.objects.filter(
        table__round__tournament=tournament, table__status=Table.Status.FINISHED
    ).values_list("table_id", "seat", "player_id"):
        seats[table_id][seat] = str(player_id)
    for table in Table.objects.filter(
        round__tournament=tournament, status=Table.Status.FINISHED
    ).select_related("round"):
        players = [seats[table.pk][s] for s in sorted(seats[table.pk])]
        result = forfeited(
            TableResult.from_seats(players, table.placings or []),
            gone.get(table.round.number, set()),
        )
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
    gone = forfeits_in_force(tournament)
    players = Player.objects.in_bulk([int(s.player) for s in standings])
    colours = player_colours(tournament)
    rows = []
    for index, s in enumerate(standings):
        # A player without a registration (none should be) comes after everyone who has one.
        order, colour, dash = colours.get(
            int(s.player), (len(colours) + index, PALETTE[index % len(PALETTE)], "")
        )
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
                colour=colour,
                colour_order=order,
                dash=dash,
                cumulative=[0.0, *running],
                forfeits=s.forfeits,
                forfeit_rounds=sorted(n for n, who in gone.items() if s.player in who),
            )
        )
    return numbers, finished, rows


def podium(rows: list[StandingRow]) -> list[tuple[int, list[StandingRow]]]:
    """The places 1–3 of final standings, each with everyone who shares it (ties shown)."""
    places: dict[int, list[StandingRow]] = {}
    for row in rows:
        if row.rank <= 3:
            places.setdefault(row.rank, []).append(row)
    return sorted(places.items())


#: The columns of the standings' CSV export, in order.
CSV_COLUMNS = (
    "rank",
    "player",
    "points",
    "opponents_points",
    "head_to_head",
    "last_places",
    "tables",
    "byes",
    "dropped",
    "forfeits",
    "forfeited_rounds",
)


def standings_csv_rows(tournament: Tournament) -> list[list[str]]:
    """The standings as CSV rows (header first): names, points, tie-breaks, forfeit marks."""
    standings = live_standings(tournament)
    names = {p.pk: p.name for p in Player.objects.filter(pk__in=[int(s.player) for s in standings])}
    gone = forfeits_in_force(tournament)
    found: list[list[str]] = [list(CSV_COLUMNS)]
    for s in standings:
        rounds = sorted(n for n, who in gone.items() if s.player in who)
        found.append(
            [
                str(s.rank),
                _as_text(names[int(s.player)]),
                _decimal(s.points),
                _decimal(s.opponents_points),
                str(s.head_to_head),
                str(s.last_places),
                str(s.played),
                str(s.byes),
                "yes" if s.dropped else "",
                str(s.forfeits),
                " ".join(str(n) for n in rounds),
            ]
        )
    return found


def _as_text(name: str) -> str:
    """A name as a spreadsheet shows it, never runs it: one that begins as a formula would
    (``=``, ``+``, ``-``, ``@``, a tab or a return: ``=HYPERLINK(…)``, found by trying) is
    written after an apostrophe, as OWASP's advice on CSV injection says."""
    return f"'{name}" if name[:1] in ("=", "+", "-", "@", "\t", "\r") else name


def _decimal(value: Fraction) -> str:
    """A point value as a spreadsheet reads it (up to 4 decimals, exact ones in full)."""
    return f"{float(value):.4f}".rstrip("0").rstrip(".") if value else "0"


def rating_history(player: Player) -> list[dict[str, Any]]:
    """Per game: the player's rating after each finished table they played, oldest first
    (:class:`~tournaments.models.RatingStep`, kept as each table finished)."""
    steps: dict[str, list[dict[str, int]]] = {}
    for kind, table, rating in (
        RatingStep.objects.filter(player=player)
        .order_by("game", "finished_at", "table_id")
        .values_list("game", "table_id", "display")
    ):
        steps.setdefault(kind, []).append({"table": table, "rating": rating})
    return [
        {
            "game": kind,
            "game_name": game_name(kind),
            "points": points,
            "current": points[-1]["rating"],
            "values": [1000, *[p["rating"] for p in points]],
        }
        for kind, points in sorted(steps.items())
    ]


def player_table_results(player: Player) -> list[dict[str, Any]]:
    """Every table ``player`` sat at, newest tournament first: the place and the points they
    had there once the table finished (``None`` before), as the standings count them (a
    forfeited series is last: the page showed the raw placings' points, found by trying),
    and whether their series there is forfeited."""
    seats = list(
        TableSeat.objects.filter(player=player)
        .select_related("table__round__tournament")
        .order_by("-table__round__tournament__created_at", "-table__round__number")
    )
    finished = [ts.table.pk for ts in seats if ts.table.placings]
    by_table: dict[int, dict[int, str]] = defaultdict(dict)
    for table_id, seat, player_id in TableSeat.objects.filter(table_id__in=finished).values_list(
        "table_id", "seat", "player_id"
    ):
        by_table[table_id][seat] = str(player_id)
    gone: dict[int, dict[int, set[str]]] = {}
    results = []
    for ts in seats:
        table = ts.table
        tournament = table.round.tournament
        place, points, lost = None, None, False
        if table.placings:
            if tournament.pk not in gone:
                gone[tournament.pk] = forfeits_in_force(tournament)
            forfeits = gone[tournament.pk].get(table.round.number, set())
            players = [by_table[table.pk][s] for s in sorted(by_table[table.pk])]
            result = forfeited(TableResult.from_seats(players, table.placings), forfeits)
            me = str(player.pk)
            rank = 1
            for group in result.placings:
                if me in group:
                    place = rank
                rank += len(group)
            points = table_points(result.placings).get(me)
            lost = me in forfeits
        results.append(
            {
                "seat": ts,
                "table": table,
                "tournament": tournament,
                "place": place,
                "points": points,
                "forfeited": lost,
            }
        )
    return results


def rounds_overview(tournament: Tournament, user: User | AnonymousUser) -> list[dict[str, Any]]:
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
    # A duplicate round's tables whose games the user may not see: no link to them, which
    # answered 403 (services.access.hidden_tables).
    hidden = hidden_tables(user, tournament)
    gone = forfeits_in_force(tournament)
    rounds = []
    for round_ in Round.objects.filter(tournament=tournament).order_by("-number"):
        tables = []
        for table in by_round[round_.pk]:
            at = seats[table.pk]
            placings = []
            if table.placings:
                # As the standings count them: a forfeited series shares the last place (the
                # pages listed the raw placings, a no-show first: found by trying).
                by_id = {str(s.player_id): s.player for s in at}
                lost = gone.get(round_.number, set())
                result = forfeited(
                    TableResult.from_seats([str(s.player_id) for s in at], table.placings), lost
                )
                place = 1
                for group in result.placings:
                    placings.append(
                        {
                            "place": place,
                            "players": [by_id[p] for p in group],
                            "forfeited": any(p in lost for p in group),
                        }
                    )
                    place += len(group)
            tables.append(
                {
                    "table": table,
                    "seats": at,
                    "game": None if table.pk in hidden else current.get(table.pk),
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
                # Its finished games are replayed once every table of it has finished.
                "sealed": tournament.duplicate_deals and round_.status != Round.Status.FINISHED,
            }
        )
    return rounds


def registrations_of(tournament: Tournament) -> QuerySet[Registration]:
    """The tournament's registrations with their players, by name."""
    return (
        Registration.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("player__name")
    )


@dataclass
class ForfeitLine:
    """A seat of a begun round on the desk: its player and whether their series is forfeited."""

    player: Player
    table: int
    forfeited: bool
    #: Why, when forfeited: the latest decision's cause ("timeout" or "organiser").
    cause: str = ""


def forfeit_overview(tournament: Tournament) -> list[tuple[int, list[ForfeitLine]]]:
    """Per begun round (latest first), its seated players with their forfeits in force."""
    latest: dict[tuple[int, int], Forfeit] = {}
    for row in Forfeit.objects.filter(tournament=tournament).order_by("id"):
        latest[(row.round_number, row.player_id)] = row
    found: list[tuple[int, list[ForfeitLine]]] = []
    begun = Round.objects.filter(
        tournament=tournament, status__in=[Round.Status.PLAYING, Round.Status.FINISHED]
    ).order_by("-number")
    for round_ in begun:
        lines = []
        for seat in (
            TableSeat.objects.filter(table__round=round_)
            .select_related("player", "table")
            .order_by("player__name")
        ):
            decision = latest.get((round_.number, seat.player_id))
            out = decision is not None and decision.forfeited
            lines.append(
                ForfeitLine(
                    player=seat.player,
                    table=seat.table.number,
                    forfeited=out,
                    cause=decision.cause if decision is not None and out else "",
                )
            )
        found.append((round_.number, lines))
    return found


def between_rounds(tournament: Tournament) -> dict[str, Any] | None:
    """Between two rounds (the last one finished, rounds remain): which finished when, and
    which is next; ``None`` while a round is seated or played, before round 1, or at the end."""
    if tournament.status != Tournament.Status.RUNNING:
        return None
    last = Round.objects.filter(tournament=tournament).order_by("-number").first()
    if last is None or last.status != Round.Status.FINISHED or last.number >= tournament.rounds:
        return None
    return {"finished": last.number, "finished_at": last.finished_at, "next": last.number + 1}
