"""Standings and club ratings: projections of the games' events.

A table's series result is what its games' events say: each game's deal event
carries its context (tournament, round, table, game number and the players in
seat order) and folding the game's events gives its result.  From the series
results (:func:`series_results`) come

* the standings (:func:`compute_standings`), with the byes of the rounds that
  have begun (``Round.byes``) and the registrations (who entered, who dropped);
* the club ratings per game, replayed over every finished table of the club's
  tournaments in the order the tables finished (:func:`club_ratings` with
  ``from_events``: a check of the ratings each finished table keeps,
  :mod:`tournaments.services.ratings`).

:func:`live_standings` computes the same standings from the tables of record
(``Table.placings``, written by :func:`tournaments.services.game_over` as each
series ends); the two agree, and a test checks they still agree after every
game row was rebuilt from the events alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import F, QuerySet, Window
from django.db.models.functions import RowNumber

from engine import series as series_rules
from engine.registry import get_game
from engine.series import SeriesFormat
from events import store
from tournaments.models import (
    Club,
    Game,
    Player,
    PlayerRating,
    Registration,
    Round,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.play.context import GameContext, table_id_of
from tournaments.ratings import Rating, update
from tournaments.scoring import RoundResult, Standing, TableResult, forfeited, standings

__all__ = [
    "SeriesResult",
    "club_ratings",
    "compute_standings",
    "forfeits_in_force",
    "live_standings",
    "player_names",
    "rating_board",
    "rating_leaderboard",
    "series_results",
]


@dataclass(frozen=True)
class SeriesResult:
    """One table's series as its games' events tell it."""

    tournament: int
    round: int
    table: int
    #: Player ids (strings) in seat order.
    players: tuple[str, ...]
    #: The finished games' results, in series order (games 1, 2, … without a gap).
    results: tuple[Mapping[str, Any], ...]
    #: Whether the series needs no more games.
    over: bool
    #: Groups of seats, best first, once the series is over.
    placings: tuple[tuple[int, ...], ...] | None
    #: When the series' last game ended (once over).
    finished_at: datetime | None

    def table_result(self) -> TableResult:
        """The placings as player ids (:class:`scoring.TableResult`); only once over."""
        if self.placings is None:
            raise ValueError(f"the series of table {self.table} is not over")
        return TableResult.from_seats(self.players, self.placings)


@dataclass(frozen=True)
class _GameFacts:
    context: GameContext
    dealer: int
    result: Mapping[str, Any] | None
    finished_at: datetime | None


def _facts_from_events(game: Game) -> _GameFacts:
    """What the game's own events say: its context, and its result by folding them."""
    events = store.read_stream(game.stream)
    deal = events[0].payload
    engine = get_game(deal["game"])
    outcome = engine.outcome(engine.fold(e.payload for e in events))
    return _GameFacts(
        context=GameContext.parse((deal.get("table") or {}).get("context")),
        dealer=int(deal["dealer"]),
        result=outcome,
        finished_at=events[-1].recorded_at if outcome is not None else None,
    )


def _facts_from_projection(game: Game) -> _GameFacts:
    """The same facts from the game's row (itself a projection of the events)."""
    return _GameFacts(
        context=GameContext.of(game),
        dealer=game.dealer,
        result=game.result if game.is_over else None,
        finished_at=game.finished_at if game.is_over else None,
    )


def _number(value: int | None) -> int:
    """A number every tournament game's context has (a game dealt by the services)."""
    if value is None:
        raise ValueError("a tournament game's context lacks its tournament, round or number")
    return value


def _series(
    fmt: SeriesFormat, tournament: int, table: int, facts: Sequence[_GameFacts]
) -> SeriesResult:
    ordered = sorted(facts, key=lambda f: _number(f.context.game_number))
    first = ordered[0].context
    players = tuple(str(seat.player) for seat in first.seats)
    results: list[Mapping[str, Any]] = []
    finished_at: datetime | None = None
    for expected, fact in enumerate(ordered, start=1):
        if _number(fact.context.game_number) != expected or fact.result is None:
            break
        results.append(fact.result)
        finished_at = fact.finished_at
    over = len(results) == len(ordered) and series_rules.is_over(fmt, results, len(players))
    placings = (
        tuple(tuple(g) for g in series_rules.placings(fmt, results, len(players))) if over else None
    )
    return SeriesResult(
        tournament=tournament,
        round=_number(first.round),
        table=table,
        players=players,
        results=tuple(results),
        over=over,
        placings=placings,
        finished_at=finished_at if over else None,
    )


def series_results(
    tournaments: Tournament | Iterable[Tournament], *, from_events: bool = True
) -> list[SeriesResult]:
    """Every table's series in ``tournaments`` (finished or not), by round and table.

    ``from_events`` folds each game's event stream; otherwise the game rows'
    results are used (the projection of the same events, cheaper to read).
    """
    chosen = [tournaments] if isinstance(tournaments, Tournament) else list(tournaments)
    by_id = {t.pk: t for t in chosen}
    games = Game.objects.filter(table__round__tournament__in=list(by_id)).order_by("id")
    grouped: dict[tuple[int, int], list[_GameFacts]] = defaultdict(list)
    for game in games:
        facts = _facts_from_events(game) if from_events else _facts_from_projection(game)
        table = table_id_of(game)
        grouped[(_number(facts.context.tournament), _number(table))].append(facts)
    found = [
        _series(SeriesFormat.from_json(by_id[t].series), t, table, facts)
        for (t, table), facts in grouped.items()
    ]
    return sorted(found, key=lambda s: (s.tournament, s.round, s.table))


def _registered(tournament: Tournament) -> tuple[list[str], list[str]]:
    everyone: list[str] = []
    dropped: list[str] = []
    for player_id, dropped_after in Registration.objects.filter(tournament=tournament).values_list(
        "player_id", "dropped_after"
    ):
        everyone.append(str(player_id))
        if dropped_after is not None:
            dropped.append(str(player_id))
    return everyone, dropped


def forfeits_in_force(tournament: Tournament) -> dict[int, set[str]]:
    """Per round number, the players (ids as strings) whose series there is forfeited.

    The latest :class:`Forfeit` row of each (round, player) decides.
    """
    latest: dict[tuple[int, str], bool] = {}
    # The tournament's rows as prefetched where they are (the API's rounds: one query for
    # every table of a page), else read; their order is the model's, by id.
    for row in tournament.forfeits.all():
        latest[(row.round_number, str(row.player_id))] = row.forfeited
    found: dict[int, set[str]] = defaultdict(set)
    for (number, player), is_forfeit in latest.items():
        if is_forfeit:
            found[number].add(player)
    return dict(found)


def forfeited_seats(table: Table) -> list[int]:
    """The seats of ``table`` whose series in its round is forfeited (each placed last,
    shared, in the standings, whatever the table's placings of the play say)."""
    gone = forfeits_in_force(table.round.tournament).get(table.round.number, set())
    return [seat.seat for seat in table.seats.all() if str(seat.player_id) in gone]


def _rounds_with_forfeits(
    tournament: Tournament, finished: Mapping[int, Sequence[TableResult]]
) -> tuple[list[RoundResult], dict[str, int]]:
    """The begun rounds' results, forfeited series placed last; forfeits counted per player."""
    gone = forfeits_in_force(tournament)
    counts: dict[str, int] = defaultdict(int)
    rounds: list[RoundResult] = []
    for r in _begun_rounds(tournament):
        out = gone.get(r.number, set())
        tables = tuple(forfeited(t, out) for t in finished.get(r.number, ()))
        for table in tables:
            for player in table.players:
                if player in out:
                    counts[player] += 1
        rounds.append(RoundResult(tables=tables, byes=tuple(str(p) for p in r.byes)))
    return rounds, dict(counts)


def _begun_rounds(tournament: Tournament) -> list[Round]:
    return list(
        Round.objects.filter(
            tournament=tournament, status__in=[Round.Status.PLAYING, Round.Status.FINISHED]
        ).order_by("number")
    )


def compute_standings(tournament: Tournament, *, from_events: bool = True) -> list[Standing]:
    """The standings from the games' events (:mod:`tournaments.scoring`), best first.

    Counted: every table whose series is over, and the byes of every round
    that has begun.  Registered players without a result stand on 0; dropped
    players keep their results and are marked; a forfeited series
    (:func:`forfeits_in_force`) counts as last place at its table, and is marked.
    """
    finished: dict[int, list[TableResult]] = defaultdict(list)
    for result in series_results(tournament, from_events=from_events):
        if result.over:
            finished[result.round].append(result.table_result())
    rounds, forfeits = _rounds_with_forfeits(tournament, finished)
    everyone, dropped = _registered(tournament)
    return standings(rounds, everyone, dropped, forfeits)


def live_standings(tournament: Tournament) -> list[Standing]:
    """The standings from the tables of record (``Table.placings`` of finished tables)."""
    seats: dict[int, dict[int, str]] = defaultdict(dict)
    for table_id, seat, player_id in TableSeat.objects.filter(
        table__round__tournament=tournament, table__status=Table.Status.FINISHED
    ).values_list("table_id", "seat", "player_id"):
        seats[table_id][seat] = str(player_id)
    finished: dict[int, list[TableResult]] = defaultdict(list)
    for table in Table.objects.filter(
        round__tournament=tournament, status=Table.Status.FINISHED
    ).select_related("round"):
        players = [seats[table.pk][s] for s in sorted(seats[table.pk])]
        finished[table.round.number].append(TableResult.from_seats(players, table.placings or []))
    rounds, forfeits = _rounds_with_forfeits(tournament, finished)
    everyone, dropped = _registered(tournament)
    return standings(rounds, everyone, dropped, forfeits)


def _fold_ratings(tournaments: Iterable[Tournament]) -> dict[str, Rating]:
    """The ratings folded again from the games' events: the tables in the order they
    finished (ties by table id), as :mod:`tournaments.services.ratings` keeps them."""
    chosen = list(tournaments)
    forfeits = {t.pk: forfeits_in_force(t) for t in chosen}
    done = [s for s in series_results(chosen) if s.over]
    done.sort(key=lambda s: (s.finished_at.timestamp() if s.finished_at else 0.0, s.table))
    ratings: dict[str, Rating] = {}
    for result in done:
        # As the standings count it: a forfeited series shares the last place.
        gone = forfeits[result.tournament].get(result.round, set())
        placings = forfeited(result.table_result(), gone).placings
        ratings = update(ratings, [list(g) for g in placings])
    return ratings


def club_ratings(club: Club, game: str, *, from_events: bool = False) -> dict[str, Rating]:
    """Every rated player's rating in ``game`` at ``club`` (player ids as strings).

    As kept by each finished table (:class:`~tournaments.models.PlayerRating`);
    ``from_events`` replays every finished table of the club's tournaments of ``game``
    from the games' events instead, as a check.
    """
    if from_events:
        return _fold_ratings(Tournament.objects.filter(club=club, game=game))
    return {
        str(player): Rating(mu, sigma)
        for player, mu, sigma in PlayerRating.objects.filter(club=club, game=game).values_list(
            "player_id", "mu", "sigma"
        )
    }


def rating_board(club: Club, game: str) -> QuerySet[PlayerRating]:
    """The club's rated players in ``game``, best ordinal first (ties by player id), each
    with its ``rank``: a query a page of it is read from (a window's row number, counted
    before the page's limit), not the club's whole board."""
    order = [F("ordinal").desc(), F("player_id").asc()]
    return (
        PlayerRating.objects.filter(club=club, game=game)
        .select_related("player")
        .annotate(rank=Window(RowNumber(), order_by=order))
        .order_by(*order)
    )


def rating_leaderboard(club: Club, game: str) -> list[tuple[Player, Rating]]:
    """The club's rated players in ``game``, best ordinal first (ties by player id)."""
    return [(row.player, Rating(row.mu, row.sigma)) for row in rating_board(club, game)]


def player_names(ids: Iterable[str | int]) -> dict[str, str]:
    """Player names by id (as strings), for printing standings and seatings."""
    wanted = {int(i) for i in ids}
    return {str(p.pk): p.name for p in Player.objects.filter(pk__in=wanted)}
